/* A libFuzzer harness over clua's argument checks that do arithmetic or
 * parse text, beside the Lua API fuzzer (cl_fuzz.lua), which cannot steer
 * by coverage:
 *
 *   0  check_rect (queue.c): a rectangle's origin, region and pitches inside a
 *      buffer or host array; what it accepts must lie inside, computed
 *      exactly in 128 bits
 *   1  map_log (program.c): file:line mapping of a compiler log, with a
 *      table of source pieces; memory safety only
 *   2  clua_mem_flags (buffer.c): a flags string; what it accepts must hold
 *      known flags and at most one access flag
 *   3  scalar_type (kernel.c): a kernel argument's declared type name; what
 *      it accepts must be a scalar type
 *
 * The first byte picks the check, the rest is its input. Checks raise Lua
 * errors, caught here; a crash, a sanitizer report or a failed property
 * (abort) is a finding.
 *
 *   make check-fuzz [CHECK_FUZZ_SECONDS=N]     (clang -fsanitize=fuzzer,address,undefined)
 */
#include "../../host/kernel.c"
#include "../../host/program.c"
#include "../../host/queue.c"

#include <lauxlib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const uint8_t *in;
static size_t left;

static uint64_t take(size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n && left; i++, left--) v |= (uint64_t)*in++ << (8 * i);
  return v;
}

/* A size as Lua can give one (0 to 2^63 - 1), mostly small. */
static size_t size_of_input(void) {
  uint8_t how = (uint8_t)take(1);
  if (how < 128) return how & 31;
  if (how < 192) return (size_t)take(2);
  if (how < 240) return (size_t)take(4);
  return (size_t)(take(8) & INT64_MAX);
}

static void fail(const char *what) {
  fprintf(stderr, "check_fuzz: %s\n", what);
  abort();
}

static int run_rect(lua_State *L) {
  size_t o[3], r[3], rp, sp, total;
  for (int i = 0; i < 3; i++) o[i] = size_of_input();
  for (int i = 0; i < 3; i++) r[i] = size_of_input() | 1;  /* get_region: at least 1 */
  rp = size_of_input();
  sp = size_of_input();
  total = size_of_input();
  check_rect(L, "fuzz", "buffer", o, r, &rp, &sp, total);
  /* accepted: the last byte the copy touches lies inside */
  typedef unsigned __int128 u128;
  u128 last = (u128)(o[2] + r[2] - 1) * sp + (u128)(o[1] + r[1] - 1) * rp + o[0] + r[0];
  if (last > total) fail("check_rect accepted a rectangle that runs past the end");
  if (rp < r[0]) fail("check_rect accepted a row pitch below the width");
  if ((u128)sp < (u128)rp * r[1]) fail("check_rect accepted a slice pitch below row pitch x height");
  return 0;
}

static int run_log(lua_State *L) {
  lua_newtable(L);  /* the pieces, as add_piece makes them: {name, first, lines}, one after the other */
  int pieces = lua_gettop(L);
  int n = (int)take(1) % 4;
  lua_Integer first = 1;
  for (int i = 1; i <= n; i++) {
    lua_Integer lines = (lua_Integer)take(2) + 1;
    lua_createtable(L, 0, 3);
    lua_pushfstring(L, "piece%d.cl", i);
    lua_setfield(L, -2, "name");
    lua_pushinteger(L, first);
    lua_setfield(L, -2, "first");
    lua_pushinteger(L, lines);
    lua_setfield(L, -2, "lines");
    lua_rawseti(L, pieces, i);
    first += lines;
  }
  lua_pushlstring(L, (const char *)in, left);  /* map_log reads up to the first NUL, as a driver's log ends */
  map_log(L, pieces);
  return 0;
}

static int run_flags(lua_State *L) {
  lua_pushlstring(L, (const char *)in, left);
  cl_mem_flags f = clua_mem_flags(L, lua_gettop(L), "fuzz", 0);
  cl_mem_flags known = CL_MEM_READ_WRITE | CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY | CL_MEM_ALLOC_HOST_PTR |
                       CL_MEM_COPY_HOST_PTR | CL_MEM_USE_HOST_PTR | CL_MEM_HOST_READ_ONLY | CL_MEM_HOST_WRITE_ONLY |
                       CL_MEM_HOST_NO_ACCESS;
  if (f & ~known) fail("clua_mem_flags accepted an unknown flag");
  int access = !!(f & CL_MEM_READ_WRITE) + !!(f & CL_MEM_READ_ONLY) + !!(f & CL_MEM_WRITE_ONLY);
  if (access > 1) fail("clua_mem_flags accepted two access flags");
  return 0;
}

static int run_type(lua_State *L) {
  const char *name = lua_pushlstring(L, (const char *)in, left);
  const ctype *t = scalar_type(name);
  if (t && (t->lanes != 1 || t->size < 1 || t->size > 8)) fail("scalar_type accepted a type that is no scalar");
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static lua_State *L;
  static lua_CFunction checks[] = {run_rect, run_log, run_flags, run_type};
  if (size < 1) return 0;
  if (!L) L = luaL_newstate();
  in = data + 1;
  left = size - 1;
  lua_settop(L, 0);
  lua_pushcfunction(L, checks[data[0] % 4]);
  lua_pcall(L, 0, 0, 0);  /* a Lua error is a refusal: fine */
  return 0;
}
