/* clua: what the cl module needs when a stock Lua interpreter loads it as
   cl.so (make module, the LuaRocks rock) instead of running inside clua's own
   binary, whose main.c does the same work.

   - The root (cl.root, where kernels/ is): found from the shared object's own
     place: DIR/cl.so with DIR/clua/kernels (installed: make module-install,
     luarocks) or DIR/../kernels (the build tree: build/cl.so).
   - At the state's end: clua's binary waits, after closing the state, for the
     commands of queues released while they could still run (clua_exit_wait);
     here a sentinel in the registry, made before any cl object, does it from
     its finalizer, which lua_close runs after every other one.

   Not here: ^C during a wait (lua5.4's own handler interrupts Lua code only,
   so a wait for the device ends when the device is done) and the deadline's
   clean-up at exit (clua_settle_all, clua_exit_abandoned); cl.timeout still
   bounds every wait. Compiled only into cl.so (-DCLUA_MODULE). */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>

#include <lua.h>
#include <lauxlib.h>

#include "root.h"
#include "clua.h"

#define SENTINEL "clua.module_sentinel"

/* The root from the place of this shared object, when it can tell: DIR/clua
   beside DIR/cl.so when it holds kernels/ (installed), else DIR/.. (the build
   tree). */
static void find_root(void) {
  static const char *const tries[] = {"clua", "..", NULL};
  Dl_info info;
  if (dladdr((void *)find_root, &info) != 0 && info.dli_fname != NULL)
    clua_find_root(info.dli_fname, "kernels", tries);
}

static int at_close(lua_State *L) {
  (void)L;
  clua_exit_wait();
  return 0;
}

void clua_module_open(lua_State *L) {
  if (clua_root() == NULL)
    find_root();
  if (lua_getfield(L, LUA_REGISTRYINDEX, SENTINEL) == LUA_TNIL) {
    lua_newuserdatauv(L, 1, 0);
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, at_close);
    lua_setfield(L, -2, "__gc");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, SENTINEL);
  }
  lua_pop(L, 1);
}
