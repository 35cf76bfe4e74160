/* The cl module: registers every type and the module functions. */
#include "check.h"
#include "clua.h"

#include <string.h>
#include <time.h>

static char root[4096];

void clua_set_root(const char *r) {
  if (!r) {
    root[0] = 0;
    return;
  }
  strncpy(root, r, sizeof root - 1);
  root[sizeof root - 1] = 0;
}

const char *clua_root(void) { return root[0] ? root : NULL; }

static int cl_now(lua_State *L) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  lua_pushinteger(L, (lua_Integer)ts.tv_sec * 1000000000 + ts.tv_nsec);
  return 1;
}

static int cl_error_name(lua_State *L) {
  const char *n = clua_errname((cl_int)luaL_checkinteger(L, 1));
  if (n) lua_pushstring(L, n);
  else lua_pushnil(L);
  return 1;
}

void clua_open_scalars(lua_State *L);

int luaopen_cl(lua_State *L) {
  clua_open_device(L);
  clua_open_context(L);
  clua_open_queue(L);
  clua_open_buffer(L);
  clua_open_program(L);
  clua_open_event(L);
  clua_open_kernel(L);  /* after queue and event: q:launch holds their metatables */
  clua_open_array(L);
  clua_open_image(L);
  static const luaL_Reg funcs[] = {
    {"platforms", clua_platforms}, {"devices", clua_devices}, {"device", clua_device},
    {"context", clua_context}, {"array", clua_array}, {"now", cl_now}, {"wait", clua_wait},
    {"error_name", cl_error_name}, {"nvml", clua_nvml}, {NULL, NULL}};
  luaL_newlib(L, funcs);
  clua_open_scalars(L);
  lua_pushstring(L, CLUA_VERSION);
  lua_setfield(L, -2, "version");
  if (clua_root()) {
    lua_pushstring(L, clua_root());
    lua_setfield(L, -2, "root");
  }
  lua_newtable(L);
  int i = 0;
  for (const ctype *t = clua_types; t->name; t++) {
    lua_pushstring(L, t->name);
    lua_rawseti(L, -2, ++i);
  }
  lua_setfield(L, -2, "types");
  return 1;
}
