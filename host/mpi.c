/* The mpi module (make MPI=1, Debian's libopenmpi-dev): what a report card
   run by mpirun needs, and nothing more. The rank, the number of ranks, the
   rank among the ranks of this host (to pick this host's GPU of that index),
   the host's name, a barrier, a string gathered to rank 0 and a string sent
   from rank 0 to every rank.

   MPI is started when the module is first required and ended when the
   process ends (main.c calls clua_mpi_end): finalized after a clean end,
   aborted after an error, so that the other ranks do not wait for this one
   at their next barrier forever. Errors are returned, not fatal
   (MPI_ERRORS_RETURN), and raised as "mpi.CALL: MPI_Xxx failed: reason". */
/***
MPI for clua's scripts, in a clua built with `make MPI=1` and run by mpirun:
what a cluster report card needs (`recipes/report.lua --cluster`). A clua
built without it raises an error at `require "mpi"` saying so.
@module mpi
@usage -- mpirun -n 4 build/mpi/clua this.lua
local mpi = require "mpi"
local all = mpi.gather(("rank %d on %s"):format(mpi.rank(), mpi.host()))
if all then print(table.concat(all, "\n")) end
*/
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <lauxlib.h>
#include "mpimod.h"

static MPI_Comm node = MPI_COMM_NULL; /* the ranks of this host */

/* Raises "mpi.NAME: CALL failed: reason (class N)" for an MPI error code. */
static int mpi_fail(lua_State *L, const char *name, const char *call, int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0, cls = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS)
    strcpy(text, "unknown error");
  MPI_Error_class(code, &cls);
  return luaL_error(L, "mpi.%s: %s failed: %s (error class %d)", name, call, text, cls);
}

#define CHECK(L, name, call, expr) \
  do { int rc_ = (expr); if (rc_ != MPI_SUCCESS) return mpi_fail(L, name, call, rc_); } while (0)

static int world_rank(lua_State *L, const char *name) {
  int r;
  CHECK(L, name, "MPI_Comm_rank", MPI_Comm_rank(MPI_COMM_WORLD, &r));
  return r;
}

/* Pushes what query (MPI_Comm_rank or MPI_Comm_size) tells of comm. */
static int push_query(lua_State *L, const char *name, const char *call, int (*query)(MPI_Comm, int *),
                      MPI_Comm comm) {
  int v;
  CHECK(L, name, call, query(comm, &v));
  lua_pushinteger(L, v);
  return 1;
}

/* MPI_Init was called here (luaopen_mpi): clua_mpi_end ends it. */
static int started_here;

/* The ends of the process (main.c): finalize, or abort on failure. */
void clua_mpi_end(int failed) {
  int done = 0;
  if (!started_here)
    return;
  MPI_Finalized(&done);
  if (done)
    return;
  if (failed) {
    MPI_Abort(MPI_COMM_WORLD, failed);
    return;
  }
  if (node != MPI_COMM_NULL)
    MPI_Comm_free(&node);
  MPI_Finalize();
}

/***
This process's rank in MPI_COMM_WORLD, from 0.
@function rank
@treturn integer
*/
static int l_rank(lua_State *L) {
  return push_query(L, "rank", "MPI_Comm_rank", MPI_Comm_rank, MPI_COMM_WORLD);
}

/***
The number of ranks.
@function size
@treturn integer
*/
static int l_size(lua_State *L) {
  return push_query(L, "size", "MPI_Comm_size", MPI_Comm_size, MPI_COMM_WORLD);
}

/***
This process's rank among the ranks of its host, from 0: the index of the
host's GPU this rank takes.
@function local_rank
@treturn integer
*/
static int l_local_rank(lua_State *L) {
  return push_query(L, "local_rank", "MPI_Comm_rank", MPI_Comm_rank, node);
}

/***
The number of ranks on this host.
@function local_size
@treturn integer
*/
static int l_local_size(lua_State *L) {
  return push_query(L, "local_size", "MPI_Comm_size", MPI_Comm_size, node);
}

/***
The name of this host (MPI_Get_processor_name).
@function host
@treturn string
*/
static int l_host(lua_State *L) {
  char name[MPI_MAX_PROCESSOR_NAME];
  int len = 0;
  CHECK(L, "host", "MPI_Get_processor_name", MPI_Get_processor_name(name, &len));
  lua_pushlstring(L, name, (size_t)len);
  return 1;
}

/***
Waits until every rank has called it.
@function barrier
*/
static int l_barrier(lua_State *L) {
  CHECK(L, "barrier", "MPI_Barrier", MPI_Barrier(MPI_COMM_WORLD));
  return 0;
}

/***
Gathers one string from every rank to rank 0.
@function gather
@string s this rank's string (any bytes, up to 2 GiB)
@treturn ?{string,...} on rank 0 the strings in rank order (s of rank r at
index r + 1); nil on the other ranks
*/
static int l_gather(lua_State *L) {
  size_t len;
  const char *s = luaL_checklstring(L, 1, &len);
  int rank = world_rank(L, "gather"), n, mine, i, total = 0;
  int *lens = NULL, *offs = NULL;
  char *all = NULL;
  luaL_argcheck(L, len <= (size_t)0x7fffffff, 1, "a string of over 2 GiB");
  mine = (int)len;
  CHECK(L, "gather", "MPI_Comm_size", MPI_Comm_size(MPI_COMM_WORLD, &n));
  if (rank == 0) {
    /* one userdata holds the lengths, offsets and bytes: collected on error */
    lens = lua_newuserdatauv(L, 2 * (size_t)n * sizeof(int), 0);
    offs = lens + n;
  }
  CHECK(L, "gather", "MPI_Gather", MPI_Gather(&mine, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD));
  if (rank == 0) {
    for (i = 0; i < n; i++) {
      if (lens[i] > 0x7fffffff - total)
        return luaL_error(L, "mpi.gather: the strings add up to over 2 GiB");
      offs[i] = total;
      total += lens[i];
    }
    all = lua_newuserdatauv(L, total > 0 ? (size_t)total : 1, 0);
  }
  CHECK(L, "gather", "MPI_Gatherv",
        MPI_Gatherv(s, mine, MPI_CHAR, all, lens, offs, MPI_CHAR, 0, MPI_COMM_WORLD));
  if (rank != 0) {
    lua_pushnil(L);
    return 1;
  }
  lua_createtable(L, n, 0);
  for (i = 0; i < n; i++) {
    lua_pushlstring(L, all + offs[i], (size_t)lens[i]);
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

/***
Sends a string from rank 0 to every rank.
@function bcast
@tparam ?string s on rank 0 the string to send; ignored on the others (may be nil)
@treturn string rank 0's string, on every rank
*/
static int l_bcast(lua_State *L) {
  int rank = world_rank(L, "bcast"), len = 0;
  size_t slen = 0;
  const char *s = NULL;
  char *buf;
  if (rank == 0) {
    s = luaL_checklstring(L, 1, &slen);
    luaL_argcheck(L, slen <= (size_t)0x7fffffff, 1, "a string of over 2 GiB");
    len = (int)slen;
  }
  CHECK(L, "bcast", "MPI_Bcast", MPI_Bcast(&len, 1, MPI_INT, 0, MPI_COMM_WORLD));
  buf = lua_newuserdatauv(L, len > 0 ? (size_t)len : 1, 0);
  if (rank == 0 && len > 0)
    memcpy(buf, s, (size_t)len);
  CHECK(L, "bcast", "MPI_Bcast", MPI_Bcast(buf, len, MPI_CHAR, 0, MPI_COMM_WORLD));
  lua_pushlstring(L, buf, (size_t)len);
  return 1;
}

static const luaL_Reg funcs[] = {
  { "rank", l_rank },
  { "size", l_size },
  { "local_rank", l_local_rank },
  { "local_size", l_local_size },
  { "host", l_host },
  { "barrier", l_barrier },
  { "gather", l_gather },
  { "bcast", l_bcast },
  { NULL, NULL },
};

/* package.preload.mpi (main.c): starts MPI at the first require. */
int luaopen_mpi(lua_State *L) {
  int started = 0, done = 0;
  MPI_Finalized(&done);
  if (done)
    return luaL_error(L, "mpi: MPI was finalized already");
  MPI_Initialized(&started);
  if (!started) {
    CHECK(L, "init", "MPI_Init", MPI_Init(NULL, NULL));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    started_here = 1;
    CHECK(L, "init", "MPI_Comm_split_type",
          MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  }
  luaL_newlib(L, funcs);
  return 1;
}
