/* Contexts: cl.context(device or list). */

/***
Contexts: what `cl.context` returns.
@module cl.context
@usage local ctx = cl.context(cl.device())
local q = ctx:queue()
*/
#include "check.h"
#include "objects.h"
#include "open.h"
#include "state.h"

#include <string.h>

/* user value 1: the list of devices */

/***
A context (`cl.context`): the devices it was made for (`cl.context`), the
maker of queues, buffers, images, programs and user events.
`tostring(ctx)` is `cl.context: DEVICE (0x...)`.
@type context
*/
int clua_context(lua_State *L) {
  if (lua_isnoneornil(L, 1)) {
    lua_settop(L, 0);
    clua_device(L);
  }
  cl_device_id ids[64];
  cl_uint n = 0;
  lua_newtable(L);  /* the devices list kept by the context */
  int list = lua_gettop(L);
  if (luaL_testudata(L, 1, T_DEVICE)) {
    ids[n++] = ((cdevice *)clua_check(L, 1, T_DEVICE))->id;
    lua_pushvalue(L, 1);
    lua_rawseti(L, list, 1);
  } else if (lua_istable(L, 1)) {
    lua_Integer len = luaL_len(L, 1);
    if (len < 1 || len > 64) luaL_argerror(L, 1, "a list of 1 to 64 devices expected");
    for (lua_Integer i = 1; i <= len; i++) {
      lua_geti(L, 1, i);
      cdevice *d = luaL_testudata(L, -1, T_DEVICE);
      if (!d) luaL_error(L, "cl.context: element %I of the list is a %s, not a cl.device", i, luaL_typename(L, -1));
      ids[n++] = d->id;
      lua_rawseti(L, list, i);
    }
  } else {
    return luaL_typeerror(L, 1, "cl.device or list of devices");
  }
  cl_int err;
  ccontext *c = clua_new(L, sizeof *c, T_CONTEXT, 1);
  c->released = 1;  /* until created */
  cl_context ctx = clCreateContext(NULL, n, ids, NULL, NULL, &err);
  if (err != CL_SUCCESS && clua_collect_for(L, err)) ctx = clCreateContext(NULL, n, ids, NULL, NULL, &err);
  if (err != CL_SUCCESS) return clua_clerror(L, "cl.context", "clCreateContext", err, NULL);
  c->ctx = ctx;
  c->released = 0;
  CLUA_CREATED(CNT_CONTEXT);
  lua_pushvalue(L, list);
  lua_setiuservalue(L, -2, 1);
  return 1;
}

cl_device_id clua_ctx_device(lua_State *L, int ctxidx) {
  lua_getiuservalue(L, ctxidx, 1);
  lua_geti(L, -1, 1);
  cdevice *d = luaL_checkudata(L, -1, T_DEVICE);
  cl_device_id id = d->id;
  lua_pop(L, 2);
  return id;
}

static int ctx_release(lua_State *L) {
  ccontext *c = luaL_checkudata(L, 1, T_CONTEXT);
  if (!c->released) {
    c->released = 1;
    CLUA_RELEASE(clReleaseContext(c->ctx));
    CLUA_RELEASED(CNT_CONTEXT);
  }
  return 0;
}

/***
A copy of the list of the context's devices.
@field devices
*/
/***
The context's first device.
@field device
*/
static int ctx_index(lua_State *L) {
  if (clua_index_method(L)) return 1;
  clua_check(L, 1, T_CONTEXT);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "devices")) {
    lua_getiuservalue(L, 1, 1);
    /* a copy, so callers cannot change the context's own list */
    lua_newtable(L);
    for (lua_Integer i = 1; lua_geti(L, -2, i) != LUA_TNIL; i++) lua_rawseti(L, -2, i);
    lua_pop(L, 1);
    return 1;
  }
  if (!strcmp(k, "device")) {
    lua_getiuservalue(L, 1, 1);
    lua_geti(L, -1, 1);
    return 1;
  }
  luaL_getmetafield(L, 1, "methods");
  lua_getfield(L, -1, k);
  return 1;
}

/***
Releases the context (also done by `__gc` and `__close`; a second release
does nothing). The objects made from it keep it alive until they are released.
@function context:release
*/
static int ctx_tostring(lua_State *L) {
  ccontext *c = luaL_checkudata(L, 1, T_CONTEXT);
  if (c->released) {
    lua_pushstring(L, "cl.context (released)");
    return 1;
  }
  char name[256];
  lua_pushfstring(L, "cl.context: %s (%p)", clua_device_name(clua_ctx_device(L, 1), name, sizeof name), (void *)c->ctx);
  return 1;
}

/* The methods implemented in queue.c, buffer.c, program.c and event.c (each
   adds its own to the context's methods: clua_add_methods), documented here
   with the type they belong to. */

/***
A command queue on one of the context's devices.
@function context:queue
@tparam[opt] cl.device device default the context's first device
@tab[opt] opts options
@bool[opt=true] opts.profiling event profiling (`e.start`, `e["end"]`)
@bool[opt=false] opts.out_of_order out-of-order execution
@treturn cl.queue the queue
@raise `ctx:queue: clCreateCommandQueue failed: CL_INVALID_QUEUE_PROPERTIES (the device does not support out-of-order queues)`,
or `CL_INVALID_DEVICE (the device is not in this context)`
@usage local q = ctx:queue()
*/

/***
A buffer: `size` bytes, or initialised from a host array.
@function context:buffer
@tparam int|cl.array size_or_array the size in bytes, or a host array whose
bytes the buffer gets (`copy_host_ptr` unless `flags` says `use_host_ptr`,
which makes the buffer use the array's memory and keeps the array alive)
@string[opt="read_write"] flags words separated by spaces, commas or `|`:
`read_write`, `read_only`, `write_only`, `alloc_host_ptr`, `copy_host_ptr`,
`use_host_ptr`, `host_read_only`, `host_write_only`, `host_no_access`
@treturn cl.buffer the buffer
@raise `ctx:buffer: clCreateBuffer failed: CL_INVALID_BUFFER_SIZE (size N bytes exceeds the largest allocation M bytes on DEVICE)`;
`bad argument #1 to 'buffer' (buffer size must be at least 1 byte)`; an unknown flag names it
@usage local b = ctx:buffer(64 * 2^20)                   -- 64 MiB
local a = ctx:buffer(host_array, "read_only")             -- a copy of host_array
*/

/***
A program from OpenCL C source (built with `program:build`).
@function context:program
@string source the source
@string[opt] name the file name build logs show (default `"<source>"`)
@treturn cl.program the program
@raise `ctx:program: clCreateProgramWithSource failed: ...`
*/

/***
A program from a file.
@function context:program_file
@string path a relative path is tried as given, then under clua's `kernels/` folder
@treturn cl.program the program (its build logs name the file)
@raise `ctx:program_file: cannot open kernel file 'PATH' (also looked in ROOT/kernels)`
@usage local prog = ctx:program_file("copy.cl"):build()
*/

/***
A user event, completed from Lua (`event:complete`): a gate other commands
can wait for.
@function context:user_event
@treturn cl.event the event (status `"submitted"`)
*/
void clua_open_context(lua_State *L) {
  static const luaL_Reg methods[] = {
    {"release", ctx_release}, {NULL, NULL}};
  static const luaL_Reg meta[] = {
    {"__index", ctx_index}, {"__gc", ctx_release}, {"__close", ctx_release},
    {"__tostring", ctx_tostring}, {NULL, NULL}};
  clua_newtype(L, T_CONTEXT, methods, meta);
}
