/* Kernels: arguments typed from the kernel's argument info, typed wrappers
   (cl.float(x), cl.localmem(bytes)) and kernel info; launch.c launches them. */

/***
Kernels: arguments and work-group facts (launched by `queue:launch`).
@module cl.kernel
@usage local k = prog:kernel("copy"):args(dst, src)
print(k.name, k.nargs, k:info().work_group_size)
*/
#include "check.h"
#include "objects.h"
#include "array.h"
#include "fatal.h"
#include "open.h"
#include "state.h"
#include "handles.h"

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

static int prog_kernel(lua_State *L) {
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

cl_kernel clua_kernel_handle(lua_State *L, int idx) { return check_kernel(L, idx)->k; }

static const char *kname(ckernel *k, char *buf, size_t len) {
  if (clGetKernelInfo(k->k, CL_KERNEL_FUNCTION_NAME, len, buf, NULL) != CL_SUCCESS) buf[0] = 0;
  buf[len - 1] = 0;
  return buf;
}

/* The English ordinal suffix of n: 1st, 2nd, 3rd, 4th, 11th, 21st. */
static const char *ordinal(cl_uint n) {
  if (n % 100 >= 11 && n % 100 <= 13) return "th";
  return n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
}

/* "argument 3 (the 4th, uint n)": the index k:arg takes, counted from 0 as
   OpenCL counts, then the count from 1 that a Lua user reads in k:args. */
static const char *argdesc(lua_State *L, ckernel *k, cl_uint i) {
  if (k->argname[i] && k->argtype[i])
    return lua_pushfstring(L, "argument %d (the %d%s, %s %s)", (int)i, (int)i + 1, ordinal(i + 1), k->argtype[i],
                           k->argname[i]);
  return lua_pushfstring(L, "argument %d (the %d%s)", (int)i, (int)i + 1, ordinal(i + 1));
}

/* The two above, for launch.c's messages. */
const char *clua_kernel_name(ckernel *k, char *buf, size_t len) { return kname(k, buf, len); }
const char *clua_kernel_argdesc(lua_State *L, ckernel *k, cl_uint i) { return argdesc(L, k, i); }

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
    luaL_error(L, "%s: kernel '%s' has %d arguments (0 to %d, counted from 0), no argument %d", method, kname(k, kn, sizeof kn),
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
    clua_fatal_forget(k->k);
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
  static const luaL_Reg smeta[] = {{"__tostring", scalar_tostring}, {NULL, NULL}};
  clua_newtype(L, T_SCALAR, NULL, smeta);
  static const luaL_Reg lmeta[] = {{"__tostring", local_tostring}, {NULL, NULL}};
  clua_newtype(L, T_LOCAL, NULL, lmeta);
  static const luaL_Reg pmethods[] = {{"kernel", prog_kernel}, {NULL, NULL}};
  clua_add_methods(L, T_PROGRAM, pmethods);
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
