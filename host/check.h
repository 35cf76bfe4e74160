/* Shared by every file of the cl module: OpenCL headers, the userdata types,
   error names and argument helpers. It includes state.h (CLUA_RELEASE reads
   clua_given_up) and no other header of host/ (state.h draws the tree). */
#ifndef CLUA_CHECK_H
#define CLUA_CHECK_H

#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <stddef.h>
#include <lua.h>
#include <lauxlib.h>

#include "state.h"

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

/* Array element types. */
typedef struct {
  const char *name;
  int size;      /* bytes of one scalar */
  int lanes;     /* 1, 2 or 4 */
  char kind;     /* 'i' signed, 'u' unsigned, 'f' floating, 'h' half bits */
} ctype;
extern const ctype clua_types[];
const ctype *clua_find_type(const char *name);

/* Host memory shared by an array, its slices and pending transfers. It is freed
   when the last holder lets go, so a collected array never frees memory the
   device still reads or writes. Mapped memory belongs to its buffer: `valid`
   drops to 0 at unmap or when the buffer is released. */
typedef struct hostmem {
  int refs;
  int mapped;            /* 1: ptr is a mapping of `buffer`, not ours to free */
  int mmapped;           /* 1: ptr is our own mmap() (a big array), to munmap() */
  int valid;
  void *ptr;
  size_t size;
  void *owner;           /* mapped: the cbuffer it maps */
  struct hostmem *next;  /* the buffer's list of live mappings */
  cl_event mapev;        /* mapped without blocking: the map's event (retained), which the unmap waits for */
  cl_command_queue mapq; /* mapped: the queue that mapped it (retained), to unmap it when the buffer goes */
  const ctype *dropped;  /* the array that made it was released (its type): its slices raise, naming it */
} hostmem;

hostmem *hostmem_new(lua_State *L, size_t size);
hostmem *hostmem_wrap_mapped(lua_State *L, void *ptr, size_t size);
void hostmem_ref(hostmem *m);
void hostmem_unref(hostmem *m);

/* Every userdata struct starts with `released`, so one check serves all. */
typedef struct {
  int released;
  hostmem *mem;
  size_t offset;        /* bytes into mem */
  size_t n;             /* scalar elements */
  const ctype *type;
  int owner;            /* made by cl.array: releasing it ends its slices too */
} carray;

typedef struct { int released; cl_platform_id id; int index; } cplatform;
typedef struct { int released; cl_device_id id; } cdevice;
typedef struct { int released; cl_context ctx; } ccontext;
typedef struct pending { cl_event ev; hostmem *mem; } pending;
struct cevent_s;
/* The first word of a queue's and a kernel's userdata after `released`: q:launch
   (kernel.c) knows its arguments by size and mark, without their metatables. */
#define CLUA_MARK_QUEUE 0x65757571u  /* "queu" */
#define CLUA_MARK_KERNEL 0x6e72656bu /* "kern" */
typedef struct cqueue_s {
  int released;
  unsigned mark;        /* CLUA_MARK_QUEUE */
  cl_command_queue q;
  cl_device_id dev;
  cl_context ctx;
  pending *pend;        /* non-blocking transfers still using host memory */
  int npend, cappend;
  int busy;             /* commands may still run: a blocking transfer waits for them first (interruptibly) */
  int ooo;              /* out-of-order execution */
  int cpu;              /* the device is a CPU: waits must leave it its cores (and stay interruptible) */
  int sim;              /* the device is Oclgrind's (sim.c) */
  cl_event last;        /* the newest command, when busy and in order (what settling waits for): retained,
                           or borrowed from last_ev */
  struct cevent_s *last_ev;  /* a launch's event that owns `last` (no retain/release pair per launch) */
  struct evpool *pool;  /* the state's event pool (registry, kept to the state's end), for q:launch, q:finish */
  struct cqueue_s *live_prev, *live_next;  /* the queues not released yet (clua_settle_all) */
} cqueue;
typedef struct {
  int released;
  cl_mem mem;
  cl_context ctx;
  size_t size;
  cl_mem_flags flags;
  hostmem *maps;        /* live mappings, invalidated at release */
  hostmem *host;        /* use_host_ptr memory, held while the buffer lives */
} cbuffer;
/* Parses a flags string ("read_only alloc_host_ptr"); raises naming method. */
cl_mem_flags clua_mem_flags(lua_State *L, int idx, const char *method, cl_mem_flags def);
void clua_push_mem_flags(lua_State *L, cl_mem_flags f);
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
/* The kernel's name into buf ("" when the driver does not say). */
const char *clua_kernel_name(ckernel *k, char *buf, size_t len);
/* "argument 2 (uint n)", pushed on the stack. */
const char *clua_kernel_argdesc(lua_State *L, ckernel *k, cl_uint i);
/* An event's state lives in a pool in C (host/evpool.c), not in its userdata
   (a ceventref), so that the event needs no finalizer: it is released when
   Lua frees its userdata's memory. */
typedef struct cevent_s {
  int released;
  cl_event ev;
  int user;
  cqueue *newest_of;    /* the queue whose newest command this is: at release, the handle goes to the queue */
  int slot;             /* its place in the pool */
  int used;             /* the slot holds an event whose userdata may live */
  int next;             /* the next free slot, while free */
  unsigned gen;         /* bumped each time the slot is freed */
  struct ceventref_s *ref; /* its userdata, while that is allocated */
} cevent;
typedef struct ceventref_s {
  cevent *e;
  unsigned gen;
  unsigned mark;  /* EVENT_MARK (evpool.c), once the slot is set */
  int slot;
} ceventref;
typedef struct evpool evpool;

/* Live OpenCL handles and host memory blocks, for cl.debug_counts(): how many
   of each kind clua created (or retained) and released. */
enum { CNT_CONTEXT, CNT_QUEUE, CNT_BUFFER, CNT_IMAGE, CNT_SAMPLER, CNT_PROGRAM, CNT_KERNEL, CNT_EVENT, CNT_MAP,
       CNT_HOSTMEM, CNT_KINDS };
extern size_t clua_counts[CNT_KINDS][2];
#define CLUA_CREATED(kind) (clua_counts[kind][0]++)
#define CLUA_RELEASED(kind) (clua_counts[kind][1]++)

/* Releases an OpenCL object unless ^C gave them up (clua_given_up, state.h). */
#define CLUA_RELEASE(call) (clua_given_up ? (void)0 : (void)(call))

/* Errors. */
const char *clua_errname(cl_int err);
/* Raises "METHOD: CALL failed: CL_NAME (detail)"; detail may be NULL. */
int clua_clerror(lua_State *L, const char *method, const char *call, cl_int err,
                 const char *fmt, ...);
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
/* Reads opts.wait (a list of events) into an array left on the Lua stack as
   a userdata; returns the count. Every event must be of context ctx (NULL: of
   one context, the first's). */
cl_uint clua_waitlist(lua_State *L, int t, const char *method, cl_context ctx, cl_event **out);
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
/* Pushes a new cl.event owning ev (or nil when ev is NULL, returning NULL). */
cevent *clua_push_event(lua_State *L, cl_event ev);
/* The same for a user event (released by a finalizer of its own). */
cevent *clua_push_user_event(lua_State *L, cl_event ev);
/* The same with the event metatable at the given index (q:launch's upvalue). */
cevent *clua_event_new(lua_State *L, evpool *p, int meta, cl_event ev);
/* The state's event pool, for clua_event_new (a queue keeps it). */
evpool *clua_evpool(lua_State *L);
/* The event at idx: NULL when it is not one; test: a released one is
   returned (its `released` set); check: raises for a released one. */
cevent *clua_test_event(lua_State *L, int idx);
cevent *clua_check_event(lua_State *L, int idx);
/* Releases the event's handle, once (e:release(), the collector). */
void clua_event_drop(cevent *e);
/* After q:finish(): a collection step, where many events were made since
   the last one, so that those dropped are released now (evpool.c). */
void clua_events_settled(lua_State *L, evpool *p);
/* Converts an event-returning enqueue: pushes the event. */

/* Registration of each type (defined in its own file). */
void clua_open_device(lua_State *L);
void clua_open_context(lua_State *L);
void clua_open_queue(lua_State *L);
void clua_open_buffer(lua_State *L);
void clua_open_program(lua_State *L);
void clua_open_kernel(lua_State *L);
void clua_open_launch(lua_State *L);  /* after kernel: q:launch and q:launcher (launch.c) */
void clua_open_event(lua_State *L);
void clua_open_evpool(lua_State *L);  /* from clua_open_event, once cl.event's metatable is made */
void clua_open_array(lua_State *L);
void clua_open_image(lua_State *L);  /* after context and queue: adds their image methods */
void clua_open_scalars(lua_State *L);  /* kernel.c: cl.int, cl.float, ..., cl.localmem into the module table on top */

/* Module functions defined in the type files, gathered by cl.c. */
int clua_platforms(lua_State *L);
int clua_devices(lua_State *L);
int clua_device(lua_State *L);
int clua_context(lua_State *L);
int clua_array(lua_State *L);
int clua_wait(lua_State *L);
int clua_nvml(lua_State *L);
void clua_push_device(lua_State *L, cl_device_id id);
const char *clua_device_name(cl_device_id id, char *buf, size_t len);

/* Context methods defined next to the type they create. */
int clua_ctx_queue(lua_State *L);
int clua_ctx_buffer(lua_State *L);
int clua_ctx_program(lua_State *L);
int clua_ctx_program_file(lua_State *L);
int clua_ctx_user_event(lua_State *L);
/* The context's first device (for messages and defaults). */
cl_device_id clua_ctx_device(lua_State *L, int ctxidx);

/* Defines a metatable with methods (which are also the __index table unless
   index is given) and a shared release function for __gc/__close/release. */
void clua_newtype(lua_State *L, const char *tname, const luaL_Reg *methods,
                  const luaL_Reg *meta);

/* Host arrays, for the queue and buffer code. */
carray *clua_checkarray(lua_State *L, int idx);
void *clua_array_ptr(lua_State *L, carray *a);  /* raises if invalid */
size_t clua_array_bytes(const carray *a);
/* Stores the Lua number at idx as one scalar of type t at dst. Returns NULL,
   or (pushed) why the value does not fit. */
const char *clua_store(lua_State *L, const ctype *t, int idx, void *dst);
carray *clua_push_view(lua_State *L, hostmem *m, const ctype *t, size_t n);

/* Waits for the events as clWaitForEvents does (returning its result), but
   Ctrl-C ends the wait with an error "METHOD: interrupted", and waiting for
   a user event not completed yet (which nothing could complete) raises. */
cl_int clua_wait_list(lua_State *L, const char *method, cl_uint n, const cl_event *list);
/* Oclgrind (sim.c): clua_sim_device, whether the device is its; clua_sim_stored,
   after a command of q that stored into mem from the host (a write, fill, copy,
   unmap): makes its uninitialised-value check count the whole buffer defined. */
int clua_sim_device(cl_device_id dev);
void clua_sim_stored(cqueue *q, cl_mem mem);
/* Flushes the queues of the events' commands (clFlush), as OpenCL asks
   before polling an event's status or waiting on its callback. */
void clua_flush_events(cl_uint n, const cl_event *list);
/* Whether a queue of a CPU device was ever made: until then every wait is a GPU's (event.c). */
extern int clua_cpu_queue_made;
/* Before a blocking command: waits (interruptibly) for what it would wait
   for inside the driver: the queue's earlier commands and the wait list. */
void clua_queue_settle(lua_State *L, cqueue *q, const char *method, cl_uint nw, const cl_event *wl);

/* A queue's commands once enqueued (pending.c). clua_queue_live: a new queue
   joins the queues not released yet (clua_settle_all, clua.h). */
void clua_queue_live(cqueue *q);
/* After an enqueue: busy (the command may still run) and its event (NULL when
   it failed or made none). */
void clua_queue_enqueued(cqueue *q, int busy, cl_event ev);
/* After a launch: as clua_queue_enqueued, but the queue borrows the handle of
   the launch's event e (NULL: a launch without event) instead of retaining it. */
void clua_queue_launched(cqueue *q, cevent *e);
/* A non-blocking transfer's event ev (retained) and its host memory m
   (referenced), held until it completes; raises when out of memory. */
void clua_queue_hold(lua_State *L, cqueue *q, cl_event ev, hostmem *m);
/* Drops the completed transfers held: clua_queue_sweep q's,
   clua_queue_sweep_all q's and those of released queues (before any queue
   method); clua_queue_drain waits for all of q's and drops them. */
void clua_queue_sweep(cqueue *q);
void clua_queue_sweep_all(cqueue *q);
void clua_queue_drain(cqueue *q);
/* At a queue's release, before its handle's: waits for its commands under
   cl.timeout, and hands what may still run to the commands the process
   waits for at exit (clua_exit_wait, clua.h). */
void clua_queue_orphan(cqueue *q);

/* Deadlines of waits (deadline.c). clua_deadline: the monotonic time (s) a
   wait starting now ends at, 0 when there is no timeout; clua_past: whether
   it has passed; clua_timed_out raises "METHOD: timed out ..." naming the
   first unfinished command of the list, and gives every object up;
   clua_note_launch records a launch's event and kernel for that message. */
double clua_deadline(void);
int clua_past(double deadline);
void clua_timed_out(lua_State *L, const char *method, cl_uint n, const cl_event *list);
/* A command runs on past its deadline: gives every object up from now on
   (clua_given_up) and ends the process without waiting (clua_abandoned). */
void clua_abandon(void);
void clua_note_launch(cl_event ev, cl_kernel k);

/* A fatal signal inside the OpenCL driver (fatal.c): clua_fatal_note, at each
   launch, makes the message it prints (the kernel, the script line of the
   launch, the clua check command) when the launch's place differs from the
   last one's, and installs the handler at the first; clua_fatal_forget, at a
   kernel's release, makes the next launch note its place anew;
   clua_keep_fatal puts the handler back where a driver may have taken the
   signals (after device discovery and builds, as clua_keep_sigint). */
void clua_fatal_note(lua_State *L, ckernel *k);
void clua_fatal_forget(cl_kernel k);
void clua_keep_fatal(void);
void clua_timeout_init(lua_State *L);
int clua_timeout(lua_State *L);
/* Raises the message on top of the stack as an error about the machine
   (CLUA_ENV_ERROR): printed on one line, no traceback. */
int clua_env_error(lua_State *L);

/* A queue has a metatable of its own (queue.c): it is known by its
   userdata's size and mark. test: the queue at idx or NULL; check: raises
   as clua_check does ("cl.queue expected, got ...", "attempt to use a
   released cl.queue"). */
cqueue *clua_test_queue(lua_State *L, int idx);
cqueue *clua_check_queue(lua_State *L, int idx);
int clua_queue_launch(lua_State *L);

#endif
