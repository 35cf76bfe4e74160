/* Kernels: arguments typed from the kernel's argument info, typed wrappers
   (cl.float(x), cl.localmem(bytes)), kernel info, and queue:launch. */

/***
Kernels: arguments and work-group facts (launched by `queue:launch`).
@module cl.kernel
@usage local k = prog:kernel("copy"):args(dst, src)
print(k.name, k.nargs, k:info().work_group_size)
*/
#include "check.h"
#include "clua.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* user values: 1 the program, 2 the table of argument values kept alive */

typedef struct { const ctype *type; unsigned char bytes[8]; } cscalar;
typedef struct { size_t size; } clocal;

static char *dupstr(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

static void free_kernel_info(ckernel *k) {
  for (cl_uint i = 0; i < k->nargs; i++) {
    if (k->argtype) free(k->argtype[i]);
    if (k->argname) free(k->argname[i]);
  }
  free(k->argtype);
  free(k->argname);
  free(k->argset);
  free(k->argkind);
  free(k->argbuf);
  k->argtype = k->argname = NULL;
  k->argbuf = NULL;
  k->argset = NULL;
  k->argkind = NULL;
}

/* Reads the argument descriptions of kernel `from` (k's own, or the same
   kernel of the program's arg-info twin). */
static void read_arg_info(ckernel *k, cl_kernel from) {
  for (cl_uint i = 0; i < k->nargs; i++) {
    k->argkind[i] = '?';
    cl_kernel_arg_address_qualifier aq;
    char buf[256];
    if (clGetKernelArgInfo(from, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof aq, &aq, NULL) != CL_SUCCESS) continue;
    k->argkind[i] = aq == CL_KERNEL_ARG_ADDRESS_LOCAL ? 'l'
                    : (aq == CL_KERNEL_ARG_ADDRESS_GLOBAL || aq == CL_KERNEL_ARG_ADDRESS_CONSTANT) ? 'g' : 's';
    if (clGetKernelArgInfo(from, i, CL_KERNEL_ARG_TYPE_NAME, sizeof buf, buf, NULL) == CL_SUCCESS) {
      buf[sizeof buf - 1] = 0;
      k->argtype[i] = dupstr(buf);
      if (k->argkind[i] == 's' && strchr(buf, '*')) k->argkind[i] = 'g';
      if (!strcmp(buf, "sampler_t")) k->argkind[i] = 'S';
      else if (strstr(buf, "image")) k->argkind[i] = '?';
    }
    cl_kernel_arg_access_qualifier acc;  /* only images (and pipes) have an access qualifier */
    if (clGetKernelArgInfo(from, i, CL_KERNEL_ARG_ACCESS_QUALIFIER, sizeof acc, &acc, NULL) == CL_SUCCESS &&
        acc != CL_KERNEL_ARG_ACCESS_NONE && k->argtype[i] && strstr(k->argtype[i], "image"))
      k->argkind[i] = 'i';
    if (clGetKernelArgInfo(from, i, CL_KERNEL_ARG_NAME, sizeof buf, buf, NULL) == CL_SUCCESS) {
      buf[sizeof buf - 1] = 0;
      k->argname[i] = dupstr(buf);
    }
  }
}

int clua_program_kernel(lua_State *L) {
  cprogram *p = clua_check(L, 1, T_PROGRAM);
  const char *name = luaL_checkstring(L, 2);
  ckernel *k = clua_new(L, sizeof *k, T_KERNEL, 2);
  k->released = 1;
  k->mark = CLUA_MARK_KERNEL;
  cl_int err;
  cl_kernel ker = clCreateKernel(p->prog, name, &err);
  if (err == CL_INVALID_KERNEL_NAME) {
    size_t n = 0;
    char names[1024] = "";
    clGetProgramInfo(p->prog, CL_PROGRAM_KERNEL_NAMES, sizeof names, names, &n);
    names[sizeof names - 1] = 0;
    return clua_clerror(L, "program:kernel", "clCreateKernel", err, "no kernel '%s' in the program; it has: %s", name, names);
  }
  if (err == CL_INVALID_PROGRAM_EXECUTABLE)
    return clua_clerror(L, "program:kernel", "clCreateKernel", err, "build the program first (program:build())");
  if (err != CL_SUCCESS) return clua_clerror(L, "program:kernel", "clCreateKernel", err, "kernel '%s'", name);
  k->k = ker;
  k->released = 0;
  CLUA_CREATED(CNT_KERNEL);
  clGetKernelInfo(ker, CL_KERNEL_NUM_ARGS, sizeof k->nargs, &k->nargs, NULL);
  clGetKernelInfo(ker, CL_KERNEL_CONTEXT, sizeof k->ctx, &k->ctx, NULL);
  size_t n = k->nargs ? k->nargs : 1;
  k->argset = calloc(n, 1);
  k->argkind = calloc(n, 1);
  k->argtype = calloc(n, sizeof(char *));
  k->argname = calloc(n, sizeof(char *));
  k->argbuf = calloc(n, sizeof(void *));
  if (!k->argset || !k->argkind || !k->argtype || !k->argname || !k->argbuf) return luaL_error(L, "program:kernel: out of memory");
  k->unset = k->nargs;
  cl_kernel from = ker;
  if (p->info && (from = clCreateKernel(p->info, name, &err)) == NULL) from = ker;
  read_arg_info(k, from);
  if (from != ker) clReleaseKernel(from);  /* not counted: created and released here */
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  lua_newtable(L);
  lua_setiuservalue(L, -2, 2);
  return 1;
}

static ckernel *check_kernel(lua_State *L, int idx) { return clua_check(L, idx, T_KERNEL); }

static const char *kname(ckernel *k, char *buf, size_t len) {
  if (clGetKernelInfo(k->k, CL_KERNEL_FUNCTION_NAME, len, buf, NULL) != CL_SUCCESS) buf[0] = 0;
  buf[len - 1] = 0;
  return buf;
}

/* "argument 2 (n, uint)" */
static const char *argdesc(lua_State *L, ckernel *k, cl_uint i) {
  if (k->argname[i] && k->argtype[i]) return lua_pushfstring(L, "argument %d (%s %s)", (int)i, k->argtype[i], k->argname[i]);
  return lua_pushfstring(L, "argument %d", (int)i);
}

/* A scalar type from a declared type name, NULL when not a plain scalar. */
static const ctype *scalar_type(const char *tn) {
  static const struct { const char *cname; const char *name; } alias[] = {
    {"unsigned int", "uint"}, {"unsigned char", "uchar"}, {"unsigned short", "ushort"},
    {"unsigned long", "ulong"}, {"size_t", "ulong"}, {"ptrdiff_t", "long"}, {"intptr_t", "long"},
    {"uintptr_t", "ulong"}, {"bool", "uchar"}};
  for (size_t i = 0; i < sizeof alias / sizeof alias[0]; i++)
    if (!strcmp(tn, alias[i].cname)) tn = alias[i].name;
  const ctype *t = clua_find_type(tn);
  return t && t->lanes == 1 && t->kind != 'h' ? t : NULL;
}

/* Sets argument i from the value at idx. */
static void set_arg(lua_State *L, const char *method, int kidx, ckernel *k, cl_uint i, int idx) {
  cl_int err;
  char kn[128];
  const char *call = "clSetKernelArg";
  if (i >= k->nargs)
    luaL_error(L, "%s: kernel '%s' has %d arguments (0 to %d), no argument %d", method, kname(k, kn, sizeof kn),
               (int)k->nargs, (int)k->nargs - 1, (int)i);
  char kind = k->argkind[i];
  cbuffer *b;
  cscalar *s;
  clocal *loc;
  cimage *img = NULL;
  csampler *smp = NULL;
  if (kind == 'i' || kind == 'S') {  /* an image or a sampler, and nothing else */
    const char *want = kind == 'i' ? T_IMAGE : T_SAMPLER;
    void *p = luaL_testudata(L, idx, want);
    if (!p) {
      const char *got = luaL_typename(L, idx);
      if (luaL_getmetafield(L, idx, "__name") == LUA_TSTRING) got = lua_tostring(L, -1);
      luaL_error(L, "%s: %s of '%s' takes a %s, got %s", method, argdesc(L, k, i), kname(k, kn, sizeof kn), want, got);
    }
    if (*(int *)p) luaL_error(L, "%s: %s of '%s' is a released %s", method, argdesc(L, k, i), kname(k, kn, sizeof kn), want);
  }
  if ((b = luaL_testudata(L, idx, T_BUFFER))) {
    if (b->released) luaL_error(L, "%s: %s of '%s' is a released cl.buffer", method, argdesc(L, k, i), kname(k, kn, sizeof kn));
    if (kind == 's' || kind == 'l')
      luaL_error(L, "%s: %s of '%s' takes %s, got a cl.buffer", method, argdesc(L, k, i), kname(k, kn, sizeof kn),
                 kind == 'l' ? "cl.localmem(bytes)" : "a number");
    clua_same_context(L, method, call, CL_INVALID_MEM_OBJECT, k->ctx, b->ctx, "the buffer", "the kernel");
    err = clSetKernelArg(k->k, i, sizeof(cl_mem), &b->mem);
  } else if ((img = luaL_testudata(L, idx, T_IMAGE))) {
    if (img->released) luaL_error(L, "%s: %s of '%s' is a released cl.image", method, argdesc(L, k, i), kname(k, kn, sizeof kn));
    if (kind != 'i' && kind != '?')
      luaL_error(L, "%s: %s of '%s' is not an image; a cl.image does not fit it", method, argdesc(L, k, i), kname(k, kn, sizeof kn));
    clua_same_context(L, method, call, CL_INVALID_MEM_OBJECT, k->ctx, img->ctx, "the image", "the kernel");
    err = clSetKernelArg(k->k, i, sizeof(cl_mem), &img->mem);
  } else if ((smp = luaL_testudata(L, idx, T_SAMPLER))) {
    if (smp->released) luaL_error(L, "%s: %s of '%s' is a released cl.sampler", method, argdesc(L, k, i), kname(k, kn, sizeof kn));
    if (kind != 'S' && kind != '?')
      luaL_error(L, "%s: %s of '%s' is not a sampler_t; a cl.sampler does not fit it", method, argdesc(L, k, i), kname(k, kn, sizeof kn));
    clua_same_context(L, method, call, CL_INVALID_SAMPLER, k->ctx, smp->ctx, "the sampler", "the kernel");
    err = clSetKernelArg(k->k, i, sizeof(cl_sampler), &smp->s);
  } else if ((loc = luaL_testudata(L, idx, T_LOCAL))) {
    if (kind == 's' || kind == 'g')
      luaL_error(L, "%s: %s of '%s' is not a __local pointer; cl.localmem() does not fit it", method, argdesc(L, k, i),
                 kname(k, kn, sizeof kn));
    err = clSetKernelArg(k->k, i, loc->size, NULL);
    k->localcheck = 1;
  } else if ((s = luaL_testudata(L, idx, T_SCALAR))) {
    if (kind == 'g' || kind == 'l')
      luaL_error(L, "%s: %s of '%s' is a pointer; pass a %s, not a cl.%s", method, argdesc(L, k, i),
                 kname(k, kn, sizeof kn), kind == 'l' ? "cl.localmem(bytes)" : "cl.buffer", s->type->name);
    const ctype *want = k->argtype[i] ? scalar_type(k->argtype[i]) : NULL;
    if (want && want->size != s->type->size)
      luaL_error(L, "%s: %s of '%s' takes %d bytes, got a cl.%s of %d", method, argdesc(L, k, i),
                 kname(k, kn, sizeof kn), want->size, s->type->name, s->type->size);
    err = clSetKernelArg(k->k, i, (size_t)s->type->size, s->bytes);
  } else if (lua_type(L, idx) == LUA_TNUMBER) {
    if (kind == 'g' || kind == 'l')
      luaL_error(L, "%s: %s of '%s' is a pointer; pass a %s, not a number", method, argdesc(L, k, i),
                 kname(k, kn, sizeof kn), kind == 'l' ? "cl.localmem(bytes)" : "cl.buffer");
    const ctype *t = k->argtype[i] ? scalar_type(k->argtype[i]) : NULL;
    if (!t)
      luaL_error(L, "%s: %s of '%s': its type is unknown here; pass a typed value such as cl.int(x) or cl.float(x)", method,
                 argdesc(L, k, i), kname(k, kn, sizeof kn));
    unsigned char bytes[8];
    const char *why = clua_store(L, t, idx, bytes);
    if (why) luaL_error(L, "%s: %s of '%s': %s", method, argdesc(L, k, i), kname(k, kn, sizeof kn), why);
    err = clSetKernelArg(k->k, i, (size_t)t->size, bytes);
  } else {
    luaL_error(L, "%s: %s of '%s': a cl.buffer, cl.image, cl.sampler, number, typed value (cl.int(x)) or cl.localmem(bytes) expected, got %s", method,
               argdesc(L, k, i), kname(k, kn, sizeof kn), luaL_typename(L, idx));
    return;
  }
  if (err != CL_SUCCESS) clua_clerror(L, method, call, err, "%s of '%s'", argdesc(L, k, i), kname(k, kn, sizeof kn));
  if (!k->argset[i]) {
    k->argset[i] = 1;
    k->unset--;
  }
  k->argbuf[i] = b ? (void *)b : img ? (void *)img : (void *)smp;
  /* keep buffers alive while the kernel may use them */
  lua_getiuservalue(L, kidx, 2);
  lua_pushvalue(L, idx);
  lua_rawseti(L, -2, (lua_Integer)i + 1);
  lua_pop(L, 1);
}

/***
A kernel (`cl.kernel`), made by `program:kernel`. It keeps its program and
the values of its arguments alive. `tostring(k)` is `cl.kernel: NAME, N arguments (0x...)`.

An argument value is a `cl.buffer`, a `cl.image`, a `cl.sampler`, a typed
value (`cl.float(1)`), `cl.localmem(bytes)` for a `__local` pointer, or a
plain Lua number, converted to the argument's declared type. A number for a
pointer, a buffer for a scalar, a value that does not fit the type (300 for a
`uchar`) or a missing argument at launch raise errors naming the argument:
`kernel:arg: argument 1 (float* in) of 'copy' takes a cl.buffer, got number`.
@type kernel
*/

/***
Sets one argument (`clSetKernelArg`).
@function kernel:arg
@int index 0-based
@param value a buffer, image, sampler, typed value, `cl.localmem(bytes)` or number
@treturn cl.kernel the kernel itself
@raise `kernel:arg: kernel 'copy' has 2 arguments (0 to 1), no argument 5`
*/
static int k_arg(lua_State *L) {
  ckernel *k = check_kernel(L, 1);
  lua_Integer i = luaL_checkinteger(L, 2);
  if (i < 0 || (lua_Integer)(cl_uint)i != i) luaL_argerror(L, 2, "argument index must be 0 or more");
  luaL_checkany(L, 3);
  set_arg(L, "kernel:arg", 1, k, (cl_uint)i, 3);
  lua_settop(L, 1);
  return 1;
}

/***
Sets every argument at once, in order.
@function kernel:args
@param ... one value per argument, as for `kernel:arg`
@treturn cl.kernel the kernel itself (to chain into `queue:launch`)
@raise `kernel:args: kernel 'copy' takes 2 arguments, got 3`
@usage q:launch(k:args(dst, src, cl.uint(n)), n, 256)
*/
static int k_args(lua_State *L) {
  ckernel *k = check_kernel(L, 1);
  int n = lua_gettop(L) - 1;
  char kn[128];
  if ((cl_uint)n != k->nargs)
    luaL_error(L, "kernel:args: kernel '%s' takes %d arguments, got %d", kname(k, kn, sizeof kn), (int)k->nargs, n);
  for (int i = 0; i < n; i++) set_arg(L, "kernel:args", 1, k, (cl_uint)i, i + 2);
  lua_settop(L, 1);
  return 1;
}

static cl_device_id kernel_device(lua_State *L, int kidx, int devidx) {
  if (!lua_isnoneornil(L, devidx)) return ((cdevice *)clua_check(L, devidx, T_DEVICE))->id;
  lua_getiuservalue(L, kidx, 1);     /* program */
  lua_getiuservalue(L, -1, 1);       /* context */
  cl_device_id d = clua_ctx_device(L, lua_gettop(L));
  lua_pop(L, 2);
  return d;
}

/***
The kernel's work-group facts on a device (`clGetKernelWorkGroupInfo`).
@function kernel:info
@tparam[opt] cl.device device default the program's first device
@treturn table `work_group_size` (the largest this kernel can launch with),
`preferred_work_group_size_multiple`, `local_mem_size` (bytes: static plus
`__local` arguments set), `private_mem_size`, `compile_work_group_size`
(`{x, y, z}`, zeros when not fixed by `reqd_work_group_size`)
*/
static int k_info(lua_State *L) {
  ckernel *k = check_kernel(L, 1);
  cl_device_id d = kernel_device(L, 1, 2);
  size_t wg = 0, mult = 0, cwg[3] = {0, 0, 0};
  cl_ulong lmem = 0, pmem = 0;
  cl_int err = clGetKernelWorkGroupInfo(k->k, d, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
  if (err != CL_SUCCESS) return clua_clerror(L, "kernel:info", "clGetKernelWorkGroupInfo", err, NULL);
  clGetKernelWorkGroupInfo(k->k, d, CL_KERNEL_PREFERRED_WORK_GROUP_SIZE_MULTIPLE, sizeof mult, &mult, NULL);
  clGetKernelWorkGroupInfo(k->k, d, CL_KERNEL_LOCAL_MEM_SIZE, sizeof lmem, &lmem, NULL);
  clGetKernelWorkGroupInfo(k->k, d, CL_KERNEL_PRIVATE_MEM_SIZE, sizeof pmem, &pmem, NULL);
  clGetKernelWorkGroupInfo(k->k, d, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof cwg, cwg, NULL);
  lua_createtable(L, 0, 5);
  lua_pushinteger(L, (lua_Integer)wg);
  lua_setfield(L, -2, "work_group_size");
  lua_pushinteger(L, (lua_Integer)mult);
  lua_setfield(L, -2, "preferred_work_group_size_multiple");
  lua_pushinteger(L, (lua_Integer)lmem);
  lua_setfield(L, -2, "local_mem_size");
  lua_pushinteger(L, (lua_Integer)pmem);
  lua_setfield(L, -2, "private_mem_size");
  lua_createtable(L, 3, 0);
  for (int i = 0; i < 3; i++) {
    lua_pushinteger(L, (lua_Integer)cwg[i]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "compile_work_group_size");
  return 1;
}

/***
One argument's description (from `-cl-kernel-arg-info`).
@function kernel:arg_info
@int index 0-based
@treturn table `name`, `type` (`"float*"`), `address` (`"global"`, `"local"`,
`"private"`, `"unknown"`), `set` (whether a value was given)
*/
static int k_arg_info(lua_State *L) {
  ckernel *k = check_kernel(L, 1);
  lua_Integer i = luaL_checkinteger(L, 2);
  if (i < 0 || i >= (lua_Integer)k->nargs) luaL_argerror(L, 2, lua_pushfstring(L, "index 0 to %d expected", (int)k->nargs - 1));
  lua_createtable(L, 0, 4);
  if (k->argname[i]) { lua_pushstring(L, k->argname[i]); lua_setfield(L, -2, "name"); }
  if (k->argtype[i]) { lua_pushstring(L, k->argtype[i]); lua_setfield(L, -2, "type"); }
  char kind = k->argkind[i];
  lua_pushstring(L, kind == 'g' || kind == 'i' ? "global" : kind == 'l' ? "local" : kind == 's' || kind == 'S' ? "private" : "unknown");
  lua_setfield(L, -2, "address");
  lua_pushboolean(L, k->argset[i]);
  lua_setfield(L, -2, "set");
  return 1;
}

/***
Releases the kernel (also `__gc`, `__close`; a second release does nothing).
@function kernel:release
*/
static int k_release(lua_State *L) {
  ckernel *k = luaL_checkudata(L, 1, T_KERNEL);
  if (!k->released) {
    k->released = 1;
    CLUA_RELEASE(clReleaseKernel(k->k));
    CLUA_RELEASED(CNT_KERNEL);
    free_kernel_info(k);
  }
  return 0;
}

/***
The kernel's name.
@field name
*/
/***
The number of arguments.
@field nargs
*/
/***
The program it came from.
@field program
*/
static int k_index(lua_State *L) {
  if (clua_index_method(L)) return 1;
  ckernel *k = check_kernel(L, 1);
  const char *key = luaL_checkstring(L, 2);
  char kn[128];
  if (!strcmp(key, "name")) lua_pushstring(L, kname(k, kn, sizeof kn));
  else if (!strcmp(key, "nargs")) lua_pushinteger(L, k->nargs);
  else if (!strcmp(key, "program")) lua_getiuservalue(L, 1, 1);
  else {
    luaL_getmetafield(L, 1, "methods");
    lua_getfield(L, -1, key);
  }
  return 1;
}

static int k_tostring(lua_State *L) {
  ckernel *k = luaL_checkudata(L, 1, T_KERNEL);
  char kn[128];
  if (k->released) lua_pushstring(L, "cl.kernel (released)");
  else lua_pushfstring(L, "cl.kernel: %s, %d arguments (%p)", kname(k, kn, sizeof kn), (int)k->nargs, (void *)k->k);
  return 1;
}

/* ---- launch ---- */

/* A work size: a number or a list of 1 to 3. Errors name argument idx, or,
   for an option (opt: idx is the option's value on the stack), the option. */
static void size_error(lua_State *L, int idx, int opt, const char *msg) {
  if (opt) luaL_error(L, "queue:launch: option 'offset': %s", msg);
  luaL_argerror(L, idx, msg);
}

/* Any work size but work_size's usual case. */
static CLUA_NOINLINE cl_uint work_size_any(lua_State *L, int idx, size_t out[3], const char *what, int opt) {
  if (lua_type(L, idx) == LUA_TNUMBER) {
    if (!opt) {
      out[0] = clua_checksize(L, idx, what);
      return 1;
    }
    lua_createtable(L, 1, 0);  /* an option's number: checked as a list of one */
    lua_pushvalue(L, idx);
    lua_rawseti(L, -2, 1);
    lua_replace(L, idx);
  }
  if (!lua_istable(L, idx)) {
    if (opt) size_error(L, idx, opt, lua_pushfstring(L, "an integer or a list of 1 to 3 integers expected, got %s",
                                                     luaL_typename(L, idx)));
    luaL_typeerror(L, idx, "number or list of 1 to 3 numbers");
  }
  lua_Integer n = luaL_len(L, idx);
  if (n < 1 || n > 3) size_error(L, idx, opt, lua_pushfstring(L, "%s must have 1 to 3 dimensions, got %I", what, n));
  for (lua_Integer i = 0; i < n; i++) {
    lua_geti(L, idx, i + 1);
    int ok;
    lua_Integer v = lua_tointegerx(L, -1, &ok);
    if (!ok || v < 0) size_error(L, idx, opt, lua_pushfstring(L, "%s[%I] must be a non-negative integer", what, i + 1));
    out[i] = (size_t)v;
    lua_pop(L, 1);
  }
  return (cl_uint)n;
}

/* The usual case, a non-negative integer, inline in q:launch in two calls. */
static inline cl_uint work_size(lua_State *L, int idx, size_t out[3], const char *what, int opt) {
  lua_Integer v;
  if (!opt && lua_isinteger(L, idx) && (v = lua_tointeger(L, idx)) >= 0) {
    out[0] = (size_t)v;
    return 1;
  }
  return work_size_any(L, idx, out, what, opt);
}

/* q:launch is the hot path: it is a closure holding the event metatable
   and the option names (upvalues 1 to 4, see clua_open_kernel), and its
   queue holds the event pool, so it makes its event without looking types
   up by name, and it knows its kernel, as every queue method knows its
   queue (clua_test_queue), by the userdata's size and mark (a Lua script
   cannot write a userdata's bytes), not by its metatable: two API calls
   instead of five. */
static ckernel *launch_kernel(lua_State *L, int idx) {
  ckernel *k = lua_touserdata(L, idx);  /* NULL unless a userdata; a light one's length is 0 */
  if (k && lua_rawlen(L, idx) == sizeof(ckernel) && k->mark == CLUA_MARK_KERNEL && !k->released) return k;
  return clua_check(L, idx, T_KERNEL);  /* raises the usual argument errors */
}

/* q:launch's rarer paths, each a function of its own, so that the common
   launch runs through fewer instructions and cache lines (docs/launch.md,
   sixth part): the cold ones (CLUA_COLD) are laid out apart. */

/* A kernel's arguments not set, or its local memory not checked yet. */
static CLUA_COLD void launch_kernel_checks(lua_State *L, cqueue *q, ckernel *k) {
  char kn[128], dn[128];
  if (k->unset) {
    for (cl_uint i = 0; i < k->nargs; i++)
      if (!k->argset[i])
        luaL_error(L, "queue:launch: %s of kernel '%s' is not set", argdesc(L, k, i), kname(k, kn, sizeof kn));
  }
  if (k->localcheck) {  /* past the device's local memory, PoCL 3.1 aborts (an assertion) instead of failing */
    cl_ulong used = 0, have = 0;
    clGetKernelWorkGroupInfo(k->k, q->dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof used, &used, NULL);
    clGetDeviceInfo(q->dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof have, &have, NULL);
    if (have && used > have)
      clua_clerror(L, "queue:launch", "clEnqueueNDRangeKernel", CL_OUT_OF_RESOURCES,
                   "kernel '%s' needs %I bytes of local memory, %s has %I", kname(k, kn, sizeof kn), (lua_Integer)used,
                   clua_device_name(q->dev, dn, sizeof dn), (lua_Integer)have);
    k->localcheck = 0;
  }
}

/* An argument whose object was released explicitly: its handle is gone. */
static CLUA_COLD void launch_released_arg(lua_State *L, ckernel *k, cl_uint i) {
  char kn[128];
  lua_getiuservalue(L, 2, 2);
  lua_rawgeti(L, -1, (lua_Integer)i + 1);
  luaL_error(L, "queue:launch: %s of kernel '%s' is a released %s", argdesc(L, k, i), kname(k, kn, sizeof kn),
             luaL_getmetafield(L, -1, "__name") == LUA_TSTRING ? lua_tostring(L, -1) : "object");
}

/* The geometry beyond one dimension of a size below 2^32 and no local size:
   sizes of 0, 2^32 work-groups or more, a local size and its limits. */
static CLUA_NOINLINE void launch_geometry(lua_State *L, cqueue *q, ckernel *k, cl_uint dims, const size_t g[3],
                                          const size_t l[3], int haslocal) {
  char dn[128];
  size_t total = 1;
  for (cl_uint i = 0; i < dims; i++) {
    if (g[i] == 0) luaL_error(L, "queue:launch: global size %d is 0", (int)i + 1);
    /* 2^32 work-groups or more in a dimension: PoCL 3.1 aborts or traps, and no
       GPU runs that many (without a local size: even with the largest one) */
    if (g[i] > 0xFFFFFFFFu) {
      size_t most = haslocal ? l[i] : 0;
      if (!haslocal) clGetDeviceInfo(q->dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof most, &most, NULL);
      if (most && g[i] / most > 0xFFFFFFFFu)
        clua_clerror(L, "queue:launch", "clEnqueueNDRangeKernel", CL_INVALID_GLOBAL_WORK_SIZE,
                     "global size %I in dimension %d makes 2^32 or more work-groups", (lua_Integer)g[i], (int)i + 1);
    }
    total *= l[i];
  }
  if (!haslocal) return;
  /* The device's limit is a hard one. The kernel's CL_KERNEL_WORK_GROUP_SIZE
     is not always: NVIDIA's driver reports 256 for most kernels and runs them
     with 1024, so a larger local size is left to the driver, and its refusal
     is explained by launch_failed. */
  if (k->wgdev != q->dev) {
    size_t wg = 0, dmax = 0;
    cl_int err = clGetKernelWorkGroupInfo(k->k, q->dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    if (err != CL_SUCCESS) clua_clerror(L, "queue:launch", "clGetKernelWorkGroupInfo", err, NULL);
    clGetDeviceInfo(q->dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof dmax, &dmax, NULL);
    k->wgdev = q->dev;
    k->wgsize = wg;
    k->wgdevmax = dmax ? dmax : wg;
  }
  for (cl_uint i = 0; i < dims; i++)
    if (l[i] == 0) luaL_error(L, "queue:launch: local size %d is 0", (int)i + 1);
  if (total > k->wgdevmax)
    clua_clerror(L, "queue:launch", "clEnqueueNDRangeKernel", CL_INVALID_WORK_GROUP_SIZE,
                 "local size %I exceeds the device's maximum %I on %s", (lua_Integer)total, (lua_Integer)k->wgdevmax,
                 clua_device_name(q->dev, dn, sizeof dn));
  for (cl_uint i = 0; i < dims; i++)
    if (g[i] % l[i])
      clua_clerror(L, "queue:launch", "clEnqueueNDRangeKernel", CL_INVALID_WORK_GROUP_SIZE,
                   "global size %I in dimension %d is not a multiple of the local size %I", (lua_Integer)g[i],
                   (int)i + 1, (lua_Integer)l[i]);
}

/* The options table at 5, in one pass: keys compared with the interned
   names held as upvalues 2-4, no lua_getfield (which hashes its key). */
static CLUA_HOT CLUA_NOINLINE int launch_options(lua_State *L, int *has_offset, int *has_wait) {
  int want_event = 1;
  luaL_checktype(L, 5, LUA_TTABLE);
  lua_pushnil(L);
  while (lua_next(L, 5)) {
    if (lua_rawequal(L, -2, lua_upvalueindex(2))) want_event = lua_toboolean(L, -1);
    else if (lua_rawequal(L, -2, lua_upvalueindex(3))) *has_offset = 1;
    else if (lua_rawequal(L, -2, lua_upvalueindex(4))) *has_wait = 1;
    else {
      static const char *const valid[] = {"offset", "wait", "event", NULL};
      clua_check_options(L, 5, valid);  /* raises, naming the key */
    }
    lua_pop(L, 1);
  }
  return want_event;
}

/* The driver refused the launch: why, where clua can tell. */
static CLUA_COLD int launch_failed(lua_State *L, cqueue *q, ckernel *k, cl_int err, cl_uint dims, const size_t l[3],
                                   int haslocal) {
  char kn[128], dn[128];
  clua_queue_enqueued(q, 1, NULL);
  size_t total = 1, req[3] = {0, 0, 0};
  for (cl_uint i = 0; i < dims; i++) total *= l[i];
  if (err == CL_INVALID_WORK_GROUP_SIZE &&
      clGetKernelWorkGroupInfo(k->k, q->dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof req, req, NULL) == CL_SUCCESS &&
      req[0] && (!haslocal || req[0] != l[0] || (dims > 1 && req[1] != l[1]) || (dims > 2 && req[2] != l[2])))
    return clua_clerror(L, "queue:launch", "clEnqueueNDRangeKernel", err,
                        "kernel '%s' declares reqd_work_group_size(%I, %I, %I); launch it with that local size",
                        kname(k, kn, sizeof kn), (lua_Integer)req[0], (lua_Integer)req[1], (lua_Integer)req[2]);
  if ((err == CL_INVALID_WORK_GROUP_SIZE || err == CL_OUT_OF_RESOURCES) && haslocal && total > k->wgsize)
    return clua_clerror(L, "queue:launch", "clEnqueueNDRangeKernel", err, "local size %I exceeds the kernel's maximum %I on %s",
                        (lua_Integer)total, (lua_Integer)k->wgsize, clua_device_name(q->dev, dn, sizeof dn));
  if (err == CL_INVALID_WORK_ITEM_SIZE)
    return clua_clerror(L, "queue:launch", "clEnqueueNDRangeKernel", err,
                        "a local size exceeds the device's max work-item size on %s", clua_device_name(q->dev, dn, sizeof dn));
  if (err == CL_INVALID_KERNEL_ARGS)
    return clua_clerror(L, "queue:launch", "clEnqueueNDRangeKernel", err, "an argument of '%s' is not set or not valid",
                        kname(k, kn, sizeof kn));
  return clua_clerror(L, "queue:launch", "clEnqueueNDRangeKernel", err, "kernel '%s'", kname(k, kn, sizeof kn));
}

CLUA_HOT int clua_queue_launch(lua_State *L) {
  cqueue *q = clua_check_queue(L, 1);
  if (q->npend) clua_queue_sweep(q);
  ckernel *k = launch_kernel(L, 2);
  if (k->ctx != q->ctx)
    clua_same_context(L, "queue:launch", "clEnqueueNDRangeKernel", CL_INVALID_CONTEXT, q->ctx, k->ctx, "the kernel",
                      "the queue");
  size_t g[3] = {1, 1, 1}, l[3] = {1, 1, 1}, off[3] = {0, 0, 0};
  cl_uint dims = work_size(L, 3, g, "global size", 0);
  int top = lua_gettop(L);  /* q:launch(k, n) asks no more of the stack */
  int haslocal = top >= 4 && !lua_isnil(L, 4);
  if (haslocal) {
    cl_uint ld = work_size(L, 4, l, "local size", 0);
    if (ld != dims)
      luaL_error(L, "queue:launch: global size has %d dimensions, local size %d", (int)dims, (int)ld);
  }
  int want_event = 1, has_offset = 0, has_wait = 0;
  if (top >= 5 && !lua_isnil(L, 5)) want_event = launch_options(L, &has_offset, &has_wait);
  if (k->unset || k->localcheck) launch_kernel_checks(L, q, k);
  for (cl_uint i = 0; i < k->nargs; i++)  /* an explicitly released object's handle is gone */
    if (k->argbuf[i] && *(int *)k->argbuf[i]) launch_released_arg(L, k, i);
  if (haslocal || dims > 1 || g[0] - 1 >= 0xFFFFFFFFu) launch_geometry(L, q, k, dims, g, l, haslocal);
  cl_event *wl = NULL;
  cl_uint nw = 0;
  if (has_offset) {
    lua_getfield(L, 5, "offset");
    cl_uint od = work_size(L, lua_gettop(L), off, "offset", 1);
    if (od != dims) luaL_error(L, "queue:launch: offset has %d dimensions, global size %d", (int)od, (int)dims);
    lua_pop(L, 1);
  }
  if (has_wait) nw = clua_waitlist(L, 5, "queue:launch", q->ctx, &wl);
  cl_event ev;
  cl_int err = clEnqueueNDRangeKernel(q->q, k->k, dims, has_offset ? off : NULL, g, haslocal ? l : NULL, nw, wl,
                                      want_event ? &ev : NULL);
  if (err != CL_SUCCESS) return launch_failed(L, q, k, err, dims, l, haslocal);
  clua_note_launch(want_event ? ev : NULL, k->k);
  if (!want_event) {
    clua_queue_launched(q, NULL);
    return 0;
  }
  /* clua_push_event, with the metatable and the pool at hand */
  cevent *e = clua_event_new(L, q->pool, lua_upvalueindex(1), ev);
  clua_queue_launched(q, e);  /* the queue borrows the event's handle: no retain/release pair per launch */
  return 1;
}

/* ---- typed values ---- */

static int make_scalar(lua_State *L) {
  const ctype *t = lua_touserdata(L, lua_upvalueindex(1));
  luaL_checktype(L, 1, LUA_TNUMBER);
  cscalar *s = clua_new(L, sizeof *s, T_SCALAR, 0);
  s->type = t;
  const char *why = clua_store(L, t, 1, s->bytes);
  if (why) luaL_error(L, "cl.%s: %s", lua_isstring(L, lua_upvalueindex(2)) ? lua_tostring(L, lua_upvalueindex(2)) : t->name, why);
  return 1;
}

static int make_local(lua_State *L) {
  size_t n = clua_checksize(L, 1, "bytes");
  if (n == 0) luaL_argerror(L, 1, "local memory size must be at least 1 byte");
  clocal *c = clua_new(L, sizeof *c, T_LOCAL, 0);
  c->size = n;
  return 1;
}

static int scalar_tostring(lua_State *L) {
  cscalar *s = luaL_checkudata(L, 1, T_SCALAR);
  double v = 0;
  lua_Integer iv = 0;
  const unsigned char *b = s->bytes;
  switch (s->type->kind == 'f' ? -s->type->size : s->type->size) {
    case -4: { float f; memcpy(&f, b, 4); v = f; break; }
    case -8: memcpy(&v, b, 8); break;
    default: memcpy(&iv, b, (size_t)s->type->size); break;  /* little-endian hosts */
  }
  if (s->type->kind == 'f') lua_pushfstring(L, "cl.%s(%f)", s->type->name, v);
  else lua_pushfstring(L, "cl.%s(%I)", s->type->name, iv);
  return 1;
}

static int local_tostring(lua_State *L) {
  clocal *c = luaL_checkudata(L, 1, T_LOCAL);
  lua_pushfstring(L, "cl.localmem(%I)", (lua_Integer)c->size);
  return 1;
}

void clua_open_kernel(lua_State *L) {
  static const luaL_Reg methods[] = {
    {"arg", k_arg}, {"args", k_args}, {"info", k_info}, {"arg_info", k_arg_info}, {"release", k_release}, {NULL, NULL}};
  static const luaL_Reg meta[] = {
    {"__index", k_index}, {"__gc", k_release}, {"__close", k_release}, {"__tostring", k_tostring}, {NULL, NULL}};
  clua_newtype(L, T_KERNEL, methods, meta);
  luaL_getmetatable(L, T_QUEUE);  /* q:launch, with what it makes its event with */
  lua_getfield(L, -1, "methods");
  luaL_getmetatable(L, T_EVENT);
  lua_pushliteral(L, "event");
  lua_pushliteral(L, "offset");
  lua_pushliteral(L, "wait");
  lua_pushcclosure(L, clua_queue_launch, 4);
  lua_setfield(L, -2, "launch");
  lua_pop(L, 2);
  static const luaL_Reg smeta[] = {{"__tostring", scalar_tostring}, {NULL, NULL}};
  clua_newtype(L, T_SCALAR, NULL, smeta);
  static const luaL_Reg lmeta[] = {{"__tostring", local_tostring}, {NULL, NULL}};
  clua_newtype(L, T_LOCAL, NULL, lmeta);
}

/* Adds cl.int, cl.float, ... and cl.local to the module table on top. */
void clua_open_scalars(lua_State *L) {
  for (const ctype *t = clua_types; t->name; t++) {
    if (t->lanes != 1 || t->kind == 'h') continue;
    lua_pushlightuserdata(L, (void *)t);
    lua_pushcclosure(L, make_scalar, 1);
    lua_setfield(L, -2, t->name);
  }
  lua_pushlightuserdata(L, (void *)clua_find_type("ulong"));
  lua_pushliteral(L, "size_t");  /* its messages say cl.size_t */
  lua_pushcclosure(L, make_scalar, 2);
  lua_setfield(L, -2, "size_t");
  lua_pushcfunction(L, make_local);
  lua_setfield(L, -2, "localmem");  /* cl.local is a keyword in Lua: cl.localmem(bytes) */
  lua_pushcfunction(L, make_local);
  lua_setfield(L, -2, "local");
}
