/* Error names, argument checks and the helpers every type shares. */
#include "check.h"
#include "objects.h"
#include "clua.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const struct { cl_int code; const char *name; } errnames[] = {
  {CL_SUCCESS, "CL_SUCCESS"},
  {CL_DEVICE_NOT_FOUND, "CL_DEVICE_NOT_FOUND"},
  {CL_DEVICE_NOT_AVAILABLE, "CL_DEVICE_NOT_AVAILABLE"},
  {CL_COMPILER_NOT_AVAILABLE, "CL_COMPILER_NOT_AVAILABLE"},
  {CL_MEM_OBJECT_ALLOCATION_FAILURE, "CL_MEM_OBJECT_ALLOCATION_FAILURE"},
  {CL_OUT_OF_RESOURCES, "CL_OUT_OF_RESOURCES"},
  {CL_OUT_OF_HOST_MEMORY, "CL_OUT_OF_HOST_MEMORY"},
  {CL_PROFILING_INFO_NOT_AVAILABLE, "CL_PROFILING_INFO_NOT_AVAILABLE"},
  {CL_MEM_COPY_OVERLAP, "CL_MEM_COPY_OVERLAP"},
  {CL_IMAGE_FORMAT_MISMATCH, "CL_IMAGE_FORMAT_MISMATCH"},
  {CL_IMAGE_FORMAT_NOT_SUPPORTED, "CL_IMAGE_FORMAT_NOT_SUPPORTED"},
  {CL_BUILD_PROGRAM_FAILURE, "CL_BUILD_PROGRAM_FAILURE"},
  {CL_MAP_FAILURE, "CL_MAP_FAILURE"},
  {CL_MISALIGNED_SUB_BUFFER_OFFSET, "CL_MISALIGNED_SUB_BUFFER_OFFSET"},
  {CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST, "CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST"},
  {CL_COMPILE_PROGRAM_FAILURE, "CL_COMPILE_PROGRAM_FAILURE"},
  {CL_LINKER_NOT_AVAILABLE, "CL_LINKER_NOT_AVAILABLE"},
  {CL_LINK_PROGRAM_FAILURE, "CL_LINK_PROGRAM_FAILURE"},
  {CL_DEVICE_PARTITION_FAILED, "CL_DEVICE_PARTITION_FAILED"},
  {CL_KERNEL_ARG_INFO_NOT_AVAILABLE, "CL_KERNEL_ARG_INFO_NOT_AVAILABLE"},
  {CL_INVALID_VALUE, "CL_INVALID_VALUE"},
  {CL_INVALID_DEVICE_TYPE, "CL_INVALID_DEVICE_TYPE"},
  {CL_INVALID_PLATFORM, "CL_INVALID_PLATFORM"},
  {CL_INVALID_DEVICE, "CL_INVALID_DEVICE"},
  {CL_INVALID_CONTEXT, "CL_INVALID_CONTEXT"},
  {CL_INVALID_QUEUE_PROPERTIES, "CL_INVALID_QUEUE_PROPERTIES"},
  {CL_INVALID_COMMAND_QUEUE, "CL_INVALID_COMMAND_QUEUE"},
  {CL_INVALID_HOST_PTR, "CL_INVALID_HOST_PTR"},
  {CL_INVALID_MEM_OBJECT, "CL_INVALID_MEM_OBJECT"},
  {CL_INVALID_IMAGE_FORMAT_DESCRIPTOR, "CL_INVALID_IMAGE_FORMAT_DESCRIPTOR"},
  {CL_INVALID_IMAGE_SIZE, "CL_INVALID_IMAGE_SIZE"},
  {CL_INVALID_SAMPLER, "CL_INVALID_SAMPLER"},
  {CL_INVALID_BINARY, "CL_INVALID_BINARY"},
  {CL_INVALID_BUILD_OPTIONS, "CL_INVALID_BUILD_OPTIONS"},
  {CL_INVALID_PROGRAM, "CL_INVALID_PROGRAM"},
  {CL_INVALID_PROGRAM_EXECUTABLE, "CL_INVALID_PROGRAM_EXECUTABLE"},
  {CL_INVALID_KERNEL_NAME, "CL_INVALID_KERNEL_NAME"},
  {CL_INVALID_KERNEL_DEFINITION, "CL_INVALID_KERNEL_DEFINITION"},
  {CL_INVALID_KERNEL, "CL_INVALID_KERNEL"},
  {CL_INVALID_ARG_INDEX, "CL_INVALID_ARG_INDEX"},
  {CL_INVALID_ARG_VALUE, "CL_INVALID_ARG_VALUE"},
  {CL_INVALID_ARG_SIZE, "CL_INVALID_ARG_SIZE"},
  {CL_INVALID_KERNEL_ARGS, "CL_INVALID_KERNEL_ARGS"},
  {CL_INVALID_WORK_DIMENSION, "CL_INVALID_WORK_DIMENSION"},
  {CL_INVALID_WORK_GROUP_SIZE, "CL_INVALID_WORK_GROUP_SIZE"},
  {CL_INVALID_WORK_ITEM_SIZE, "CL_INVALID_WORK_ITEM_SIZE"},
  {CL_INVALID_GLOBAL_OFFSET, "CL_INVALID_GLOBAL_OFFSET"},
  {CL_INVALID_EVENT_WAIT_LIST, "CL_INVALID_EVENT_WAIT_LIST"},
  {CL_INVALID_EVENT, "CL_INVALID_EVENT"},
  {CL_INVALID_OPERATION, "CL_INVALID_OPERATION"},
  {CL_INVALID_GL_OBJECT, "CL_INVALID_GL_OBJECT"},
  {CL_INVALID_BUFFER_SIZE, "CL_INVALID_BUFFER_SIZE"},
  {CL_INVALID_MIP_LEVEL, "CL_INVALID_MIP_LEVEL"},
  {CL_INVALID_GLOBAL_WORK_SIZE, "CL_INVALID_GLOBAL_WORK_SIZE"},
  {CL_INVALID_PROPERTY, "CL_INVALID_PROPERTY"},
  {CL_INVALID_IMAGE_DESCRIPTOR, "CL_INVALID_IMAGE_DESCRIPTOR"},
  {CL_INVALID_COMPILER_OPTIONS, "CL_INVALID_COMPILER_OPTIONS"},
  {CL_INVALID_LINKER_OPTIONS, "CL_INVALID_LINKER_OPTIONS"},
  {CL_INVALID_DEVICE_PARTITION_COUNT, "CL_INVALID_DEVICE_PARTITION_COUNT"},
  {-69, "CL_INVALID_PIPE_SIZE"},
  {-70, "CL_INVALID_DEVICE_QUEUE"},
  {-71, "CL_INVALID_SPEC_ID"},
  {-72, "CL_MAX_SIZE_RESTRICTION_EXCEEDED"},
  {-1001, "CL_PLATFORM_NOT_FOUND_KHR"},
  {-9999, "CL_NV_ILLEGAL_ADDRESS (an out-of-bounds access in a kernel)"},
};

/* The live counts of objects.h, which every type's file adds to: here, at the
   bottom of the call graph, where all of them may reach. */
size_t clua_counts[CNT_KINDS][2];

const char *clua_errname(cl_int err) {
  for (size_t i = 0; i < sizeof errnames / sizeof errnames[0]; i++)
    if (errnames[i].code == err) return errnames[i].name;
  return NULL;
}

int clua_clerror(lua_State *L, const char *method, const char *call, cl_int err,
                 const char *fmt, ...) {
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  const char *name = clua_errname(err);
  char num[48];
  if (!name) {
    snprintf(num, sizeof num, "OpenCL error %d", (int)err);
    name = num;
  }
  lua_pushfstring(L, "%s: %s failed: %s", method, call, name);
  luaL_addvalue(&b);
  if (fmt) {
    va_list ap;
    va_start(ap, fmt);
    lua_pushliteral(L, " (");
    luaL_addvalue(&b);
    lua_pushvfstring(L, fmt, ap);  /* Lua's format: %s %d %I %f %p */
    luaL_addvalue(&b);
    va_end(ap);
    luaL_addchar(&b, ')');
  }
  luaL_pushresult(&b);
  luaL_where(L, 1);
  lua_insert(L, -2);
  lua_concat(L, 2);
  return lua_error(L);
}

/* Raises the message on top of the stack as an error about the machine (see
   CLUA_ENV_ERROR): no source position, and main.c prints no traceback. */
int clua_env_error(lua_State *L) {
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, CLUA_ENV_ERROR);
  return lua_error(L);
}

/* "attempt to use a released cl.buffer", as an argument error when idx is an
   argument, so that the message names the call. */
int clua_released(lua_State *L, int idx, const char *tname) {
  const char *msg = lua_pushfstring(L, "attempt to use a released %s", tname);
  if (idx > 0) return luaL_argerror(L, idx, msg);
  return lua_error(L);
}

void *clua_test(lua_State *L, int idx, const char *tname) {
  int *p = luaL_testudata(L, idx, tname);
  if (p && *p) clua_released(L, idx, tname);
  return p;
}

void *clua_check(lua_State *L, int idx, const char *tname) {
  int *p = luaL_testudata(L, idx, tname);
  if (!p) {
    const char *got = luaL_typename(L, idx);
    if (luaL_getmetafield(L, idx, "__name") == LUA_TSTRING) got = lua_tostring(L, -1);
    luaL_argerror(L, idx, lua_pushfstring(L, "%s expected, got %s", tname, got));
  }
  if (*p) clua_released(L, idx, tname);
  return p;
}

int clua_index_method(lua_State *L) {
  if (lua_type(L, 2) != LUA_TSTRING || luaL_getmetafield(L, 1, "methods") != LUA_TTABLE) return 0;
  lua_pushvalue(L, 2);
  if (lua_rawget(L, -2) != LUA_TNIL) return 1;
  lua_pop(L, 2);
  return 0;
}

void *clua_new(lua_State *L, size_t size, const char *tname, int nuv) {
  void *p = lua_newuserdatauv(L, size, nuv);
  memset(p, 0, size);
  luaL_setmetatable(L, tname);
  return p;
}

size_t clua_checksize(lua_State *L, int idx, const char *what) {
  int isnum;
  lua_Integer v = lua_tointegerx(L, idx, &isnum);
  if (!isnum) {
    if (lua_type(L, idx) == LUA_TNUMBER)
      return (size_t)luaL_argerror(L, idx, lua_pushfstring(L, "%s must be an integer, got %s", what, lua_tostring(L, idx)));
    return (size_t)luaL_argerror(L, idx, lua_pushfstring(L, "%s expected (an integer), got %s", what, luaL_typename(L, idx)));
  }
  if (v < 0)
    return (size_t)luaL_argerror(L, idx, lua_pushfstring(L, "%s must not be negative, got %I", what, v));
  return (size_t)v;
}

size_t clua_optsize(lua_State *L, int idx, size_t def, const char *what) {
  return lua_isnoneornil(L, idx) ? def : clua_checksize(L, idx, what);
}

/* A bad option: an argument error on the options table at t, so that the
   message names the call ("bad argument #3 to 'write' (option 'size' ...)"). */
static int bad_option(lua_State *L, int t, const char *msg) {
  if (t > 0) return luaL_argerror(L, t, msg);
  return luaL_error(L, "%s", msg);
}

size_t clua_field_size(lua_State *L, int t, const char *k, size_t def) {
  if (lua_isnoneornil(L, t)) return def;
  lua_getfield(L, t, k);
  size_t v = def;
  if (!lua_isnil(L, -1)) {
    int isnum;
    lua_Integer i = lua_tointegerx(L, -1, &isnum);
    if (!isnum)
      bad_option(L, t, lua_pushfstring(L, "option '%s' must be an integer, got %s", k,
                                       lua_type(L, -1) == LUA_TNUMBER ? lua_tostring(L, -1) : luaL_typename(L, -1)));
    if (i < 0) bad_option(L, t, lua_pushfstring(L, "option '%s' must not be negative, got %I", k, i));
    v = (size_t)i;
  }
  lua_pop(L, 1);
  return v;
}

void clua_check_options(lua_State *L, int idx, const char *const valid[]) {
  if (lua_isnoneornil(L, idx)) return;
  luaL_checktype(L, idx, LUA_TTABLE);
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);  /* the value */
    const char *k = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
    int known = 0;
    for (int i = 0; k && valid[i] && !known; i++) known = !strcmp(k, valid[i]);
    if (known) continue;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 0; valid[i]; i++) {
      if (i) luaL_addstring(&b, ", ");
      luaL_addstring(&b, valid[i]);
    }
    luaL_pushresult(&b);
    if (k)
      luaL_argerror(L, idx, lua_pushfstring(L, "unknown option '%s'; valid: %s", k, lua_tostring(L, -1)));
    luaL_argerror(L, idx, lua_pushfstring(L, "option names are strings, got a %s key; valid: %s",
                                          luaL_typename(L, -2), lua_tostring(L, -1)));
  }
}

int clua_field_bool(lua_State *L, int t, const char *k, int def) {
  if (lua_isnoneornil(L, t)) return def;
  lua_getfield(L, t, k);
  int v = lua_isnil(L, -1) ? def : lua_toboolean(L, -1);
  lua_pop(L, 1);
  return v;
}

const char *clua_field_string(lua_State *L, int t, const char *k, const char *def) {
  if (lua_isnoneornil(L, t)) return def;
  lua_getfield(L, t, k);
  const char *v = def;
  if (!lua_isnil(L, -1)) {
    if (lua_type(L, -1) != LUA_TSTRING)
      bad_option(L, t, lua_pushfstring(L, "option '%s' must be a string, got %s", k, luaL_typename(L, -1)));
    v = lua_tostring(L, -1);  /* kept alive by the options table */
  }
  lua_pop(L, 1);
  return v;
}

int clua_collect_for(lua_State *L, cl_int err) {
  if (err != CL_OUT_OF_HOST_MEMORY && err != CL_OUT_OF_RESOURCES && err != CL_MEM_OBJECT_ALLOCATION_FAILURE) return 0;
  lua_gc(L, LUA_GCCOLLECT);
  return 1;
}

void clua_same_context(lua_State *L, const char *method, const char *call, cl_int err, cl_context want,
                       cl_context got, const char *what, const char *with) {
  if (want != got)
    clua_clerror(L, method, call, err, "%s is of another context than %s", what, with);
}

void clua_newtype(lua_State *L, const char *tname, const luaL_Reg *methods,
                  const luaL_Reg *meta) {
  luaL_newmetatable(L, tname);
  luaL_setfuncs(L, meta, 0);
  if (methods) {
    /* with an __index function, the methods live in the "methods" field */
    int has_index = lua_getfield(L, -1, "__index") != LUA_TNIL;
    lua_pop(L, 1);
    lua_newtable(L);
    luaL_setfuncs(L, methods, 0);
    lua_setfield(L, -2, has_index ? "methods" : "__index");
  }
  lua_pop(L, 1);
}

void clua_add_methods(lua_State *L, const char *tname, const luaL_Reg *funcs) {
  luaL_getmetatable(L, tname);
  lua_getfield(L, -1, "methods");
  luaL_setfuncs(L, funcs, 0);
  lua_pop(L, 2);
}
