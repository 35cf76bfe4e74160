/* The OpenCL objects as Lua userdata: their type names, their structs, how
   many of each are live, and what each type's file offers the others (the
   queue is queue.h's, events are events.h's, host arrays array.h's). Every
   struct starts with `released`, so one check serves all. */
#ifndef CLUA_OBJECTS_H
#define CLUA_OBJECTS_H

#include <stddef.h>
#include <lua.h>

#include "opencl.h"

/* Metatable names, also the names used in messages and tostring. */
#define T_PLATFORM "cl.platform"
#define T_DEVICE   "cl.device"
#define T_CONTEXT  "cl.context"
#define T_QUEUE    "cl.queue"
#define T_BUFFER   "cl.buffer"
#define T_IMAGE    "cl.image"
#define T_SAMPLER  "cl.sampler"
#define T_PROGRAM  "cl.program"
#define T_KERNEL   "cl.kernel"
#define T_EVENT    "cl.event"
#define T_ARRAY    "cl.array"
#define T_SCALAR   "cl.scalar"
#define T_LOCAL    "cl.local"

/* Live OpenCL handles and host memory blocks, for cl.debug_counts(): how many
   of each kind clua created (or retained) and released (check.c holds them). */
enum { CNT_CONTEXT, CNT_QUEUE, CNT_BUFFER, CNT_IMAGE, CNT_SAMPLER, CNT_PROGRAM, CNT_KERNEL, CNT_EVENT, CNT_MAP,
       CNT_HOSTMEM, CNT_KINDS };
extern size_t clua_counts[CNT_KINDS][2];
#define CLUA_CREATED(kind) (clua_counts[kind][0]++)
#define CLUA_RELEASED(kind) (clua_counts[kind][1]++)

typedef struct { int released; cl_platform_id id; int index; } cplatform;
typedef struct { int released; cl_device_id id; } cdevice;
typedef struct { int released; cl_context ctx; } ccontext;

typedef struct {
  int released;
  cl_mem mem;
  cl_context ctx;
  size_t size;
  cl_mem_flags flags;
  struct hostmem *maps;  /* live mappings, invalidated at release */
  struct hostmem *host;  /* use_host_ptr memory, held while the buffer lives */
} cbuffer;
typedef struct {
  int released;
  cl_mem mem;
  cl_context ctx;
  size_t width, height;
  int format;           /* index into image.c's table of formats */
  size_t pixel;         /* bytes of one pixel */
  cl_mem_flags flags;
} cimage;
typedef struct {
  int released;
  cl_sampler s;
  cl_context ctx;
  int normalized, address, linear;  /* address: index into image.c's table of modes */
} csampler;
typedef struct {
  int released;
  cl_program prog;
  cl_program info;      /* built with -cl-kernel-arg-info when prog could not be */
} cprogram;

/* The first word of a kernel's userdata after `released` (a queue's has its
   own, queue.h): q:launch (launch.c) knows its arguments by size and mark,
   without their metatables. */
#define CLUA_MARK_KERNEL 0x6e72656bu /* "kern" */
typedef struct {
  int released;
  unsigned mark;        /* CLUA_MARK_KERNEL */
  cl_kernel k;
  cl_context ctx;
  cl_uint nargs;
  unsigned char *argset;  /* nargs flags */
  cl_uint unset;          /* arguments not set yet */
  cl_device_id wgdev;     /* cache of CL_KERNEL_WORK_GROUP_SIZE for one device */
  size_t wgsize;
  size_t wgdevmax;        /* and of that device's CL_DEVICE_MAX_WORK_GROUP_SIZE */
  char *argkind;          /* per argument: 'g' global/constant pointer, 'l' local, 's' scalar,
                             'i' image, 'S' sampler, '?' unknown */
  char **argtype;         /* declared type names (NULL when unknown) */
  char **argname;
  void **argbuf;          /* per argument: the cbuffer, cimage or csampler set (kept alive by the
                             kernel; each starts with `released`), else NULL */
  int localcheck;         /* a __local argument was set: check the local memory at the next launch */
} ckernel;

/* device.c: a new cl.device; the device's name into buf. */
void clua_push_device(lua_State *L, cl_device_id id);
const char *clua_device_name(cl_device_id id, char *buf, size_t len);
/* context.c: the context's first device (for messages and defaults). */
cl_device_id clua_ctx_device(lua_State *L, int ctxidx);
/* buffer.c: parses a flags string ("read_only alloc_host_ptr"), raising
   naming method; pushes flags as such a string. */
cl_mem_flags clua_mem_flags(lua_State *L, int idx, const char *method, cl_mem_flags def);
void clua_push_mem_flags(lua_State *L, cl_mem_flags f);
/* kernel.c: the kernel's name into buf ("" when the driver does not say);
   "argument 2 (uint n)", pushed on the stack. */
const char *clua_kernel_name(ckernel *k, char *buf, size_t len);
const char *clua_kernel_argdesc(lua_State *L, ckernel *k, cl_uint i);

#endif
