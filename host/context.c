/* Contexts: cl.context(device or list). */
#include "check.h"

#include <string.h>

/* user value 1: the list of devices */

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
  if (err != CL_SUCCESS) return clua_clerror(L, "cl.context", "clCreateContext", err, NULL);
  c->ctx = ctx;
  c->released = 0;
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
    clReleaseContext(c->ctx);
  }
  return 0;
}

static int ctx_index(lua_State *L) {
  if (clua_release_method(L)) return 1;
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

void clua_open_context(lua_State *L) {
  static const luaL_Reg methods[] = {
    {"queue", clua_ctx_queue}, {"buffer", clua_ctx_buffer}, {"program", clua_ctx_program},
    {"program_file", clua_ctx_program_file}, {"user_event", clua_ctx_user_event},
    {"release", ctx_release}, {NULL, NULL}};
  static const luaL_Reg meta[] = {
    {"__index", ctx_index}, {"__gc", ctx_release}, {"__close", ctx_release},
    {"__tostring", ctx_tostring}, {NULL, NULL}};
  clua_newtype(L, T_CONTEXT, methods, meta);
}
