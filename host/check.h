/* Errors and argument checks (check.c): what every type of the cl module
   raises with, finds its objects with and registers its metatable with. */
#ifndef CLUA_CHECK_H
#define CLUA_CHECK_H

#include <stddef.h>
#include <lua.h>
#include <lauxlib.h>

#include "opencl.h"

/* The name of an OpenCL error code, NULL when unknown. */
const char *clua_errname(cl_int err);
/* Raises "METHOD: CALL failed: CL_NAME (detail)"; detail may be NULL. */
int clua_clerror(lua_State *L, const char *method, const char *call, cl_int err,
                 const char *fmt, ...);
/* Raises the message on top of the stack as an error about the machine
   (CLUA_ENV_ERROR, clua.h): printed on one line, no traceback. */
int clua_env_error(lua_State *L);

/* Fetches a userdata of type tname at idx, raising if it is of another type or
   was released. */
void *clua_check(lua_State *L, int idx, const char *tname);
/* Raises "attempt to use a released TNAME" (an argument error when idx > 0). */
int clua_released(lua_State *L, int idx, const char *tname);
/* Same, NULL when the value is not of that type (released objects raise). */
void *clua_test(lua_State *L, int idx, const char *tname);
/* For an __index function, before any check of the object: pushes the method
   named by the key at 2 and returns 1, else returns 0. Methods come first, so
   that a released object still answers release() (which does nothing then)
   and a call of any other method raises naming it ("calling 'sub' on bad self
   (attempt to use a released cl.buffer)"). */
int clua_index_method(lua_State *L);
/* A new userdata with metatable tname and nuv user values, zeroed. */
void *clua_new(lua_State *L, size_t size, const char *tname, int nuv);

/* A non-negative integer that fits size_t. */
size_t clua_checksize(lua_State *L, int idx, const char *what);
size_t clua_optsize(lua_State *L, int idx, size_t def, const char *what);
/* An options table at idx (nil or absent: none): raises an argument error
   naming the first key that is not in valid (NULL-terminated) and listing
   the valid ones, so that a typo never changes what runs unnoticed. */
void clua_check_options(lua_State *L, int idx, const char *const valid[]);
/* Options-table fields. */
size_t clua_field_size(lua_State *L, int t, const char *k, size_t def);
int clua_field_bool(lua_State *L, int t, const char *k, int def);
const char *clua_field_string(lua_State *L, int t, const char *k, const char *def);

/* Raises err (CL_INVALID_CONTEXT, ...) naming method and call when an object
   (what: "the buffer") is of another context than the one it is used with
   (with: "the queue"). */
void clua_same_context(lua_State *L, const char *method, const char *call, cl_int err, cl_context want,
                       cl_context got, const char *what, const char *with);
/* For a creation the driver refused for want of memory (CL_OUT_OF_HOST_MEMORY,
   CL_OUT_OF_RESOURCES, CL_MEM_OBJECT_ALLOCATION_FAILURE): runs a full garbage
   collection and returns 1, to try once more; else returns 0. Lua's collector
   does not see what a dropped context or buffer holds on the device (an
   NVIDIA context takes hundreds of MiB), as Lua collects before it fails an
   allocation of its own. */
int clua_collect_for(lua_State *L, cl_int err);

/* Defines a metatable with methods (which are also the __index table unless
   index is given) and a shared release function for __gc/__close/release. */
void clua_newtype(lua_State *L, const char *tname, const luaL_Reg *methods,
                  const luaL_Reg *meta);
/* Adds funcs to the methods of a type registered before whose metatable has
   an __index function (its "methods" field): a type adds the methods that
   make it to its maker's type (ctx:queue, in queue.c). */
void clua_add_methods(lua_State *L, const char *tname, const luaL_Reg *funcs);

#endif
