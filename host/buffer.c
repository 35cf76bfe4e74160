/* Buffers: ctx:buffer(size or array, [flags]), sub-buffers, release. */

/***
Buffers: device memory, made by `context:buffer`.
@module cl.buffer
*/
#include "check.h"
#include "objects.h"
#include "hostmem.h"
#include "array.h"
#include "open.h"
#include "state.h"
#include "sim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* user values: 1 the context, 2 the parent buffer of a sub-buffer */

static const struct { const char *name; cl_mem_flags flag; } flagnames[] = {
  {"read_write", CL_MEM_READ_WRITE}, {"read_only", CL_MEM_READ_ONLY},
  {"write_only", CL_MEM_WRITE_ONLY}, {"alloc_host_ptr", CL_MEM_ALLOC_HOST_PTR},
  {"copy_host_ptr", CL_MEM_COPY_HOST_PTR}, {"use_host_ptr", CL_MEM_USE_HOST_PTR},
  {"host_read_only", CL_MEM_HOST_READ_ONLY}, {"host_write_only", CL_MEM_HOST_WRITE_ONLY},
  {"host_no_access", CL_MEM_HOST_NO_ACCESS}};
#define NFLAGS (sizeof flagnames / sizeof flagnames[0])

cl_mem_flags clua_mem_flags(lua_State *L, int idx, const char *method, cl_mem_flags def) {
  if (lua_isnoneornil(L, idx)) return def;
  if (lua_type(L, idx) != LUA_TSTRING)  /* numbers too: flags are names */
    luaL_error(L, "%s: flags must be a string of flag names (\"read_only alloc_host_ptr\"), got %s", method,
               luaL_typename(L, idx));
  const char *s = lua_tostring(L, idx);
  cl_mem_flags f = 0;
  while (*s) {
    size_t n = strcspn(s, " ,|");
    if (n) {
      size_t i = 0;
      while (i < NFLAGS && !(strlen(flagnames[i].name) == n && !strncmp(flagnames[i].name, s, n))) i++;
      if (i == NFLAGS)
        luaL_error(L, "%s: unknown memory flag '%s' (expected read_write, read_only, write_only, "
                      "alloc_host_ptr, copy_host_ptr, use_host_ptr, host_read_only, host_write_only, host_no_access)",
                   method, lua_pushlstring(L, s, n));
      f |= flagnames[i].flag;
    }
    s += n;
    if (*s) s++;
  }
  int access = !!(f & CL_MEM_READ_WRITE) + !!(f & CL_MEM_READ_ONLY) + !!(f & CL_MEM_WRITE_ONLY);
  if (access > 1) luaL_error(L, "%s: flags name more than one of read_write, read_only, write_only", method);
  return f;
}

void clua_push_mem_flags(lua_State *L, cl_mem_flags f) {
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  int first = 1;
  if (!(f & (CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY))) f |= CL_MEM_READ_WRITE;
  for (size_t i = 0; i < NFLAGS; i++)
    if (f & flagnames[i].flag) {
      if (!first) luaL_addstring(&b, ", ");
      luaL_addstring(&b, flagnames[i].name);
      first = 0;
    }
  luaL_pushresult(&b);
}

static int ctx_buffer(lua_State *L) {
  ccontext *c = clua_check(L, 1, T_CONTEXT);
  carray *a = luaL_testudata(L, 2, T_ARRAY);
  cl_mem_flags f = clua_mem_flags(L, 3, "ctx:buffer", 0);
  size_t size;
  void *host = NULL;
  hostmem *hold = NULL;
  if (a) {
    host = clua_array_ptr(L, clua_checkarray(L, 2));
    size = clua_array_bytes(a);
    if (!(f & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR))) f |= CL_MEM_COPY_HOST_PTR;
    if (f & CL_MEM_USE_HOST_PTR) hold = a->mem;
    if (hold && hold->mapped)  /* another buffer's memory: PoCL 3.1 frees it when this buffer goes */
      luaL_argerror(L, 2, "use_host_ptr needs a cl.array's own memory, not a view mapped from a buffer");
  } else {
    if (lua_type(L, 2) != LUA_TNUMBER)
      return luaL_typeerror(L, 2, "size in bytes or cl.array");
    size = clua_checksize(L, 2, "size");
    if (f & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR))
      luaL_error(L, "ctx:buffer: flags use_host_ptr and copy_host_ptr need a cl.array as argument #1, not a size");
  }
  if (size == 0) luaL_argerror(L, 2, "buffer size must be at least 1 byte");
  cl_device_id dev = clua_ctx_device(L, 1);
  cl_ulong maxalloc = 0;
  clGetDeviceInfo(dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof maxalloc, &maxalloc, NULL);
  if (maxalloc && size > maxalloc) {  /* OpenCL's limit; NVIDIA's driver does not check it */
    char name[256];
    return clua_clerror(L, "ctx:buffer", "clCreateBuffer", CL_INVALID_BUFFER_SIZE,
                        "size %I bytes exceeds the largest allocation %I bytes on %s", (lua_Integer)size,
                        (lua_Integer)maxalloc, clua_device_name(dev, name, sizeof name));
  }
  cbuffer *b = clua_new(L, sizeof *b, T_BUFFER, 2);
  b->released = 1;
  /* on Oclgrind, contents for its uninitialised-value check (sim.c) */
  void *zeros = host ? NULL : clua_sim_zeros(dev, size);
  cl_mem_flags made = zeros ? f | CL_MEM_COPY_HOST_PTR : f;
  if (zeros) host = zeros;
  cl_int err;
  cl_mem mem = clCreateBuffer(c->ctx, made, size, host, &err);
  if (err != CL_SUCCESS && clua_collect_for(L, err)) mem = clCreateBuffer(c->ctx, made, size, host, &err);
  free(zeros);
  if (err != CL_SUCCESS) return clua_clerror(L, "ctx:buffer", "clCreateBuffer", err, "size %I bytes", (lua_Integer)size);
  b->mem = mem;
  b->ctx = c->ctx;
  b->size = size;
  b->flags = f;
  b->released = 0;
  CLUA_CREATED(CNT_BUFFER);
  if (hold) {
    hostmem_ref(hold);
    b->host = hold;
  }
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  return 1;
}

/***
A buffer of device memory (`cl.buffer`), made by `context:buffer`.
`tostring(b)` is `cl.buffer: 256 MiB, read_write (0x...)`; two buffer objects
are `==` when they are the same `cl_mem`.
@type buffer
*/

/***
A sub-buffer: a region of this buffer (`clCreateSubBuffer`); it keeps its parent alive.
@function buffer:sub
@int offset bytes into the buffer, a multiple of the device's `mem_base_addr_align` bits / 8
@int size bytes
@string[opt] flags as for `context:buffer` (default the parent's access flags)
@treturn cl.buffer the sub-buffer (`parent` is this buffer)
@raise `buffer:sub: region of N bytes at offset O is outside the buffer of S bytes`;
`buffer:sub: clCreateSubBuffer failed: CL_MISALIGNED_SUB_BUFFER_OFFSET (offset O is not a multiple of the device's base address alignment, A bytes)`;
`buffer:sub: clCreateSubBuffer failed: CL_INVALID_MEM_OBJECT (this buffer is a sub-buffer, ...)`
*/
static int buf_sub(lua_State *L) {
  cbuffer *b = clua_check(L, 1, T_BUFFER);
  size_t off = clua_checksize(L, 2, "offset");
  size_t size = clua_checksize(L, 3, "size");
  cl_mem_flags f = clua_mem_flags(L, 4, "buffer:sub", 0);
  if (size == 0 || off > b->size || size > b->size - off)
    return luaL_error(L, "buffer:sub: region of %I bytes at offset %I is outside the buffer of %I bytes",
                      (lua_Integer)size, (lua_Integer)off, (lua_Integer)b->size);
  cl_mem parent = NULL;
  clGetMemObjectInfo(b->mem, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL);
  if (parent)
    return clua_clerror(L, "buffer:sub", "clCreateSubBuffer", CL_INVALID_MEM_OBJECT,
                        "this buffer is a sub-buffer, which OpenCL does not divide: take the region from its parent");
  /* Checked here too (NVIDIA's driver accepts any offset): an error when the
     offset suits none of the context's devices. */
  cl_device_id devs[16];
  size_t got = 0;
  cl_uint align = 0, misaligned = 0;
  if (clGetContextInfo(b->ctx, CL_CONTEXT_DEVICES, sizeof devs, devs, &got) != CL_SUCCESS) got = 0;
  for (size_t i = 0; i < got / sizeof devs[0]; i++)
    if (clGetDeviceInfo(devs[i], CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align, &align, NULL) == CL_SUCCESS &&
        align >= 8 && off % (align / 8))
      misaligned++;
  if (got && misaligned == got / sizeof devs[0])
    return clua_clerror(L, "buffer:sub", "clCreateSubBuffer", CL_MISALIGNED_SUB_BUFFER_OFFSET,
                        "offset %I is not a multiple of the device's base address alignment, %I bytes", (lua_Integer)off,
                        (lua_Integer)(align / 8));
  cl_buffer_region r = {off, size};
  cbuffer *s = clua_new(L, sizeof *s, T_BUFFER, 2);
  s->released = 1;
  cl_int err;
  cl_mem mem = clCreateSubBuffer(b->mem, f, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
  if (err != CL_SUCCESS) return clua_clerror(L, "buffer:sub", "clCreateSubBuffer", err, NULL);
  s->mem = mem;
  s->ctx = b->ctx;
  s->size = size;
  CLUA_CREATED(CNT_BUFFER);
  s->flags = f ? f : (b->flags & (CL_MEM_READ_WRITE | CL_MEM_READ_ONLY | CL_MEM_WRITE_ONLY));
  s->released = 0;
  lua_getiuservalue(L, 1, 1);
  lua_setiuservalue(L, -2, 1);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 2);
  return 1;
}

/***
Releases the buffer (also done by `__gc` and `__close`; a second release does
nothing). Views mapped from it and pending transfers keep the memory valid
until they are done.
@function buffer:release
*/
/* A mapping still there when its buffer goes: unmapped on the queue that made
   it (after the map, when that has not ended), or the driver keeps the buffer
   (PoCL 3.1: about 5 KB each). */
static void unmap_at_release(cbuffer *b, hostmem *m) {
  if (!m->mapq) return;
  cl_int st = CL_COMPLETE;
  if (m->mapev) clGetEventInfo(m->mapev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
  cl_event w = m->mapev;
  clEnqueueUnmapMemObject(m->mapq, b->mem, m->ptr, st > CL_COMPLETE ? 1 : 0, st > CL_COMPLETE ? &w : NULL, NULL);
  clFlush(m->mapq);
  CLUA_RELEASE(clReleaseCommandQueue(m->mapq));
  m->mapq = NULL;
  CLUA_RELEASED(CNT_QUEUE);
}

static int buf_release(lua_State *L) {
  cbuffer *b = luaL_checkudata(L, 1, T_BUFFER);
  if (b->released) return 0;
  b->released = 1;
  /* views over this buffer's mappings become unusable */
  for (hostmem *m = b->maps; m;) {
    hostmem *next = m->next;
    m->valid = 0;
    m->next = NULL;
    unmap_at_release(b, m);
    hostmem_unref(m);
    CLUA_RELEASED(CNT_MAP);  /* never unmapped: unmapped now, with the buffer */
    m = next;
  }
  b->maps = NULL;
  CLUA_RELEASE(clReleaseMemObject(b->mem));
  clua_sim_released();
  CLUA_RELEASED(CNT_BUFFER);
  if (b->host) hostmem_unref(b->host);
  b->host = NULL;
  return 0;
}

/***
The size in bytes.
@field size
*/
/***
The flags it was made with, as a string (`"read_only alloc_host_ptr"`).
@field flags
*/
/***
The context it belongs to.
@field context
*/
/***
For a sub-buffer, the buffer it is a region of (nil otherwise).
@field parent
*/
static int buf_index(lua_State *L) {
  if (clua_index_method(L)) return 1;
  cbuffer *b = clua_check(L, 1, T_BUFFER);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "size")) lua_pushinteger(L, (lua_Integer)b->size);
  else if (!strcmp(k, "flags")) clua_push_mem_flags(L, b->flags);
  else if (!strcmp(k, "context")) lua_getiuservalue(L, 1, 1);
  else if (!strcmp(k, "parent")) lua_getiuservalue(L, 1, 2);
  else {
    luaL_getmetafield(L, 1, "methods");
    lua_getfield(L, -1, k);
  }
  return 1;
}

static void push_size(lua_State *L, size_t n) {
  static const char *unit[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int i = 0;
  double v = (double)n;
  while (v >= 1024 && i < 4) {
    v /= 1024;
    i++;
  }
  char buf[64];
  snprintf(buf, sizeof buf, v == (double)(size_t)v ? "%.0f %s" : "%.2f %s", v, unit[i]);
  lua_pushstring(L, buf);
}

static int buf_tostring(lua_State *L) {
  cbuffer *b = luaL_checkudata(L, 1, T_BUFFER);
  if (b->released) {
    lua_pushstring(L, "cl.buffer (released)");
    return 1;
  }
  push_size(L, b->size);
  clua_push_mem_flags(L, b->flags);
  lua_pushfstring(L, "cl.buffer: %s, %s (%p)", lua_tostring(L, -2), lua_tostring(L, -1), (void *)b->mem);
  return 1;
}

static int buf_eq(lua_State *L) {
  cbuffer *a = luaL_testudata(L, 1, T_BUFFER), *b = luaL_testudata(L, 2, T_BUFFER);
  lua_pushboolean(L, a == b);
  return 1;
}

void clua_open_buffer(lua_State *L) {
  static const luaL_Reg methods[] = {{"sub", buf_sub}, {"release", buf_release}, {NULL, NULL}};
  static const luaL_Reg meta[] = {
    {"__index", buf_index}, {"__gc", buf_release}, {"__close", buf_release},
    {"__tostring", buf_tostring}, {"__eq", buf_eq}, {NULL, NULL}};
  clua_newtype(L, T_BUFFER, methods, meta);
  static const luaL_Reg cmethods[] = {{"buffer", ctx_buffer}, {NULL, NULL}};
  clua_add_methods(L, T_CONTEXT, cmethods);
}
