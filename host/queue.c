/* Command queues: transfers, copies, fills, rectangular copies, maps, markers,
   barriers; kernels are launched by clua_queue_launch (launch.c), and what
   the queue's commands hold once enqueued is kept in pending.c. */

/***
Command queues: transfers, copies, fills, maps, kernel launches, markers.
@module cl.queue
@usage local q = ctx:queue()
local e = q:launch(k, n, 256)
q:finish()
*/
#include "check.h"
#include "objects.h"
#include "hostmem.h"
#include "array.h"
#include "events.h"
#include "wait.h"
#include "queue.h"
#include "deadline.h"
#include "sim.h"
#include "open.h"
#include "state.h"
#include "compiler.h"
#include "handles.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* user values: 1 the context */

/* A queue's own metatable. A method call (q:launch, the hot path of every
   experiment) finds its method through the metatable's __index: a function
   there (a C call per lookup) cost each launch about 300 instructions on
   PoCL (docs/notes/launch.md), a table a few dozen. A queue's properties differ
   from queue to queue, so ctx:queue gives each queue a metatable of its own:
   the fields of the class metatable (cl.queue: __gc, __close, __tostring,
   __name), with as __index a table of the methods, `context` and `device`.
   A key it lacks (`pending`, any other) falls to queue_more, the __index of
   that table's metatable, which finds the queue under queue_key. Queues are
   therefore known by their userdata's size and mark (clua_test_queue), not
   by their metatable. q:release takes `context` and `device` out, so that
   they raise as any use of a released queue does. */
static char queue_key, more_key;

static int queue_more(lua_State *L) {
  lua_rawgetp(L, 1, &queue_key);
  cqueue *q = clua_test_queue(L, -1);
  if (!q) return 0;  /* a table that only looks like a queue's */
  if (q->released) return luaL_error(L, "attempt to use a released cl.queue");
  if (lua_type(L, 2) == LUA_TSTRING && !strcmp(lua_tostring(L, 2), "pending")) lua_pushinteger(L, q->npend);
  else lua_pushnil(L);
  return 1;
}

/* Gives the queue on top its own metatable. */
static void own_metatable(lua_State *L, cqueue *q) {
  int qi = lua_gettop(L);
  lua_createtable(L, 0, 8);                 /* qi + 1: the metatable */
  luaL_getmetatable(L, T_QUEUE);            /* its fields, but __index */
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, qi + 1);
  }
  lua_getfield(L, -1, "methods");
  lua_createtable(L, 0, 32);                /* qi + 4: __index */
  lua_pushnil(L);
  while (lua_next(L, -3)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, qi + 4);
  }
  lua_getiuservalue(L, qi, 1);
  lua_setfield(L, qi + 4, "context");
  clua_push_device(L, q->dev);
  lua_setfield(L, qi + 4, "device");
  lua_pushvalue(L, qi);
  lua_rawsetp(L, qi + 4, &queue_key);
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &more_key) != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_createtable(L, 0, 1);
    lua_pushcfunction(L, queue_more);
    lua_setfield(L, -2, "__index");
    lua_pushvalue(L, -1);
    lua_rawsetp(L, LUA_REGISTRYINDEX, &more_key);
  }
  lua_setmetatable(L, qi + 4);
  lua_setfield(L, qi + 1, "__index");
  lua_pop(L, 2);                            /* methods, class metatable */
  lua_setmetatable(L, qi);
}

/* The queue at idx (known by its userdata's size and mark), or NULL. */
CLUA_HOT cqueue *clua_test_queue(lua_State *L, int idx) {
  cqueue *q = lua_touserdata(L, idx);  /* NULL unless a userdata; a light one's length is 0 */
  if (!q || lua_rawlen(L, idx) != sizeof(cqueue)) return NULL;
  return q->mark == CLUA_MARK_QUEUE ? q : NULL;
}

CLUA_HOT cqueue *clua_check_queue(lua_State *L, int idx) {
  cqueue *q = clua_test_queue(L, idx);
  if (!q) return clua_check(L, idx, T_QUEUE);  /* raises, as for any type */
  if (q->released) clua_released(L, idx, T_QUEUE);
  return q;
}

cl_command_queue clua_queue_handle(lua_State *L, int idx) { return clua_check_queue(L, idx)->q; }

static int ctx_queue(lua_State *L) {
  ccontext *c = clua_check(L, 1, T_CONTEXT);
  int opts = 0;
  cl_device_id dev;
  if (luaL_testudata(L, 2, T_DEVICE)) {
    dev = ((cdevice *)clua_check(L, 2, T_DEVICE))->id;
    opts = 3;
  } else {
    dev = clua_ctx_device(L, 1);
    opts = lua_isnil(L, 2) && lua_gettop(L) >= 3 ? 3 : 2;  /* ctx:queue(nil, opts) as ctx:queue(opts) */
  }
  static const char *const valid[] = {"profiling", "out_of_order", NULL};
  clua_check_options(L, opts, valid);
  cl_command_queue_properties props = 0;
  if (clua_field_bool(L, opts, "profiling", 1)) props |= CL_QUEUE_PROFILING_ENABLE;
  if (clua_field_bool(L, opts, "out_of_order", 0)) props |= CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;
  cqueue *q = clua_new(L, sizeof *q, T_QUEUE, 1);
  q->released = 1;
  q->mark = CLUA_MARK_QUEUE;
  q->pool = clua_evpool(L);
  cl_int err;
  cl_command_queue cq = clCreateCommandQueue(c->ctx, dev, props, &err);
  if (err != CL_SUCCESS && clua_collect_for(L, err)) cq = clCreateCommandQueue(c->ctx, dev, props, &err);
  if (err == CL_INVALID_QUEUE_PROPERTIES)
    return clua_clerror(L, "ctx:queue", "clCreateCommandQueue", err, "the device does not support %s",
                        (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) ? "out-of-order queues" : "these properties");
  if (err == CL_INVALID_DEVICE)
    return clua_clerror(L, "ctx:queue", "clCreateCommandQueue", err, "the device is not in this context");
  if (err != CL_SUCCESS) return clua_clerror(L, "ctx:queue", "clCreateCommandQueue", err, NULL);
  q->q = cq;
  q->dev = dev;
  q->ctx = c->ctx;
  q->ooo = (props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0;
  cl_device_type type = CL_DEVICE_TYPE_CPU;
  clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
  q->cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
  if (q->cpu) clua_cpu_queue_made = 1;
  q->sim = clua_sim_device(dev);
  if (q->sim) clua_sim_any = 1;
  q->released = 0;
  clua_queue_live(q);
  CLUA_CREATED(CNT_QUEUE);
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  own_metatable(L, q);
  return 1;
}

static cqueue *check_queue(lua_State *L) {
  cqueue *q = clua_check_queue(L, 1);
  clua_queue_sweep_all(q);
  return q;
}

/***
A command queue (`cl.queue`), made by `context:queue`. Every enqueue method
returns a `cl.event` (profiling on by default); `opts.wait` is a list of
events the command waits for. `tostring(q)` is `cl.queue: DEVICE, profiling (0x...)`.
@type queue
*/

/***
Releases the queue (also `__gc`, `__close`). Non-blocking transfers still
running keep their host arrays alive until they complete.
@function queue:release
*/
static int q_release(lua_State *L) {
  cqueue *q = clua_test_queue(L, 1);
  if (!q) q = luaL_checkudata(L, 1, T_QUEUE);  /* raises */
  if (q->released) return 0;
  q->released = 1;
  if (lua_getmetatable(L, 1) && lua_getfield(L, -1, "__index") == LUA_TTABLE) {  /* own_metatable's */
    lua_pushnil(L);
    lua_setfield(L, -2, "context");
    lua_pushnil(L);
    lua_setfield(L, -2, "device");
  }
  lua_settop(L, 1);
  clua_queue_orphan(q);
  CLUA_RELEASE(clReleaseCommandQueue(q->q));
  CLUA_RELEASED(CNT_QUEUE);
  return 0;
}

/* Waits, interruptibly, for the queue's commands and a wait list: for the
   newest command's event where the queue is in order and there is no wait
   list (a marker costs about 8 us on the H100), else for a marker. */
void clua_queue_settle(lua_State *L, cqueue *q, const char *method, cl_uint nw, const cl_event *wl) {
  if (!q->busy && !nw) return;
  if (q->last && !nw) {
    clFlush(q->q);
    clua_wait_list(L, method, 1, &q->last);  /* a failed command says why itself */
    clua_queue_enqueued(q, 0, NULL);
    return;
  }
  cl_event m;
  if (clEnqueueMarkerWithWaitList(q->q, nw, wl, &m) != CL_SUCCESS) return;  /* the command itself says why */
  clua_flush_events(nw, wl);  /* what the marker waits for, on other queues too */
  clFlush(q->q);
  cevent *e = clua_push_event(L, m);  /* an error (^C) leaves it to the collector */
  clua_wait_list(L, method, 1, &m);
  clua_event_drop(e);
  lua_pop(L, 1);
  clua_queue_enqueued(q, 0, NULL);
}

/***
Waits until every command of the queue is done (`clFinish`). Once 256 events
or more were made since it last did, it then runs one step of the garbage
collector, so that the events dropped meanwhile are released while the
program waits, not during its next loop of enqueues.
@function queue:finish
@raise `queue:finish: clFinish failed: ...` (e.g. a kernel that faulted)
*/
static int q_finish(lua_State *L) {
  cqueue *q = check_queue(L);
  /* On a GPU with no deadline every wait is the driver's own blocking one
     (clua_wait_list), so clFinish alone, as in C: waiting for the newest
     command first cost four more driver calls (2 us a round trip on the
     H100). Elsewhere the wait must end on ^C and on time: clFinish cannot be
     interrupted, so the queue is settled first, interruptibly. */
  int direct = !q->cpu && clua_deadline() <= 0;
  if (!direct) clua_queue_settle(L, q, "queue:finish", 0, NULL);
  clua_direct_wait = direct;
  cl_int err = clFinish(q->q);
  clua_direct_wait = 0;
  if (err == CL_INVALID_COMMAND_QUEUE)  /* what the H100 answered after a kernel wrote 8 TiB past a buffer */
    return clua_clerror(L, "queue:finish", "clFinish", err,
                        "the queue failed; on NVIDIA this follows a kernel's out-of-bounds access, and the context "
                        "is unusable from then on");
  if (err != CL_SUCCESS) return clua_clerror(L, "queue:finish", "clFinish", err, NULL);
  clua_queue_enqueued(q, 0, NULL);  /* nothing runs any more */
  clua_queue_drain(q);
  clua_events_settled(L, q->pool);
  return 0;
}

/***
Submits the queued commands to the device without waiting (`clFlush`).
@function queue:flush
*/
static int q_flush(lua_State *L) {
  cqueue *q = check_queue(L);
  /* Oclgrind's clFlush runs the commands and would wait for ever on a user
     event not ended yet (sim.c): they run at the next wait instead */
  if (q->sim && clua_sim_gated()) return 0;
  cl_int err = clFlush(q->q);
  if (err != CL_SUCCESS) return clua_clerror(L, "queue:flush", "clFlush", err, NULL);
  return 0;
}

/* A buffer argument, of the queue's context (OpenCL asks drivers to refuse
   another context's; not all do). */
static cbuffer *check_buffer(lua_State *L, cqueue *q, int idx, const char *method, const char *call) {
  cbuffer *b = clua_check(L, idx, T_BUFFER);
  clua_same_context(L, method, call, CL_INVALID_CONTEXT, q->ctx, b->ctx, "the buffer", "the queue");
  return b;
}

/* Raises unless [off, off+size) lies in a buffer of bsize bytes. */
static void check_range(lua_State *L, const char *method, const char *what, size_t off, size_t size, size_t bsize) {
  if (off > bsize || size > bsize - off)
    luaL_error(L, "%s: %I bytes at offset %I run past the end of the %s (%I bytes)", method,
               (lua_Integer)size, (lua_Integer)off, what, (lua_Integer)bsize);
}

/* A sub-buffer's parent, the sub-buffer's offset added to *offset; any other
   buffer as it is. */
static cl_mem parent_of(cl_mem m, size_t *offset) {
  cl_mem parent = NULL;
  size_t off = 0;
  if (clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL) != CL_SUCCESS || !parent ||
      clGetMemObjectInfo(m, CL_MEM_OFFSET, sizeof off, &off, NULL) != CL_SUCCESS)
    return m;
  *offset += off;
  return parent;
}

/* The host side of a transfer must not be the buffer's own memory: a view
   mapped from it (or from a buffer sharing its memory), or use_host_ptr
   memory at another place than the bytes transferred. OpenCL leaves both
   undefined, and PoCL memcpy()s between the overlapping ranges. p: the host
   bytes, [off, off + size) the buffer's; same: whether the bytes at p are
   exactly the buffer's own at off (the use_host_ptr way to synchronize). */
static void check_host_side(lua_State *L, const char *method, cbuffer *b, carray *a, const char *p, size_t off,
                            size_t size, int same) {
  size_t o1 = 0, o2 = 0;
  if (a->mem->mapped && parent_of(((cbuffer *)a->mem->owner)->mem, &o1) == parent_of(b->mem, &o2))
    luaL_error(L, "%s: the host array is a view mapped from this buffer's memory: unmap it first, or use queue:copy",
               method);
  char *hp = NULL;
  if (clGetMemObjectInfo(b->mem, CL_MEM_HOST_PTR, sizeof hp, &hp, NULL) != CL_SUCCESS || !hp) return;
  if (!(same && p == hp + off) && p < hp + off + size && hp + off < p + size)
    luaL_error(L, "%s: the host array overlaps the buffer's own (use_host_ptr) memory at other bytes", method);
}

/* q:write(buf, array, opts) and q:read(buf, array, opts) */
static int transfer(lua_State *L, int write) {
  const char *method = write ? "queue:write" : "queue:read";
  cqueue *q = check_queue(L);
  cbuffer *b = check_buffer(L, q, 2, method, write ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer");
  carray *a = clua_checkarray(L, 3);
  static const char *const valid[] = {"offset", "size", "blocking", "wait", NULL};
  clua_check_options(L, 4, valid);
  size_t abytes = clua_array_bytes(a);
  size_t off = clua_field_size(L, 4, "offset", 0);
  size_t size = clua_field_size(L, 4, "size", abytes);
  int blocking = clua_field_bool(L, 4, "blocking", 1);
  if (size > abytes)
    luaL_error(L, "%s: size %I bytes exceeds the host array (%I bytes)", method, (lua_Integer)size, (lua_Integer)abytes);
  check_range(L, method, "buffer", off, size, b->size);
  cl_event *wl;
  cl_uint nw = clua_waitlist(L, 4, method, q->ctx, &wl);
  cl_event ev = NULL;
  void *p = clua_array_ptr(L, a);
  check_host_side(L, method, b, a, p, off, size, 1);
  if (blocking) clua_queue_settle(L, q, method, nw, wl);
  cl_int err = write ? clEnqueueWriteBuffer(q->q, b->mem, blocking, off, size, p, nw, wl, &ev)
                     : clEnqueueReadBuffer(q->q, b->mem, blocking, off, size, p, nw, wl, &ev);
  if (err != CL_SUCCESS)
    return clua_clerror(L, method, write ? "clEnqueueWriteBuffer" : "clEnqueueReadBuffer", err,
                        "%I bytes at offset %I", (lua_Integer)size, (lua_Integer)off);
  if (!blocking) clua_queue_hold(L, q, ev, a->mem);
  clua_queue_enqueued(q, !blocking, err == CL_SUCCESS ? ev : NULL);
  if (q->sim && write) clua_sim_stored(q, b->mem);
  clua_push_event(L, ev);
  return 1;
}
/***
Host array to buffer (`clEnqueueWriteBuffer`). A non-blocking write keeps
the array alive until its event completes.
@function queue:write
@tparam cl.buffer buf the buffer
@tparam cl.array array the host array
@tab[opt] opts options
@int[opt=0] opts.offset bytes into the buffer
@int[opt] opts.size bytes (default the array's size)
@bool[opt=true] opts.blocking return only when the copy is done
@tparam[opt] {cl.event,...} opts.wait events to wait for
@treturn cl.event the command's event
@raise `queue:write: N bytes at offset O run past the end of the buffer (S bytes)`;
`queue:write: size N bytes exceeds the host array (M bytes)`
@usage q:write(dbuf, host)                                   -- blocking
local e = q:write(dbuf, pinned, { blocking = false })     -- returns at once
*/
static int q_write(lua_State *L) { return transfer(L, 1); }
/***
Buffer to host array (`clEnqueueReadBuffer`); the same options as `queue:write`.
@function queue:read
@tparam cl.buffer buf the buffer
@tparam cl.array array the host array
@tab[opt] opts `offset`, `size`, `blocking` (default true), `wait`
@treturn cl.event the command's event
*/
static int q_read(lua_State *L) { return transfer(L, 0); }

/***
Buffer to buffer on the device (`clEnqueueCopyBuffer`).
@function queue:copy
@tparam cl.buffer src the source
@tparam cl.buffer dst the destination
@tab[opt] opts options
@int[opt=0] opts.src_offset bytes
@int[opt=0] opts.dst_offset bytes
@int[opt] opts.size bytes (default: the smaller of what is left of either buffer)
@tparam[opt] {cl.event,...} opts.wait events to wait for
@treturn cl.event the command's event
@raise `queue:copy: clEnqueueCopyBuffer failed: CL_MEM_COPY_OVERLAP (source and destination regions overlap)`
*/
static int q_copy(lua_State *L) {
  cqueue *q = check_queue(L);
  cbuffer *s = check_buffer(L, q, 2, "queue:copy", "clEnqueueCopyBuffer");
  cbuffer *d = check_buffer(L, q, 3, "queue:copy", "clEnqueueCopyBuffer");
  static const char *const valid[] = {"src_offset", "dst_offset", "size", "wait", NULL};
  clua_check_options(L, 4, valid);
  size_t so = clua_field_size(L, 4, "src_offset", 0), dof = clua_field_size(L, 4, "dst_offset", 0);
  size_t def = so <= s->size ? s->size - so : 0;
  if (dof <= d->size && d->size - dof < def) def = d->size - dof;
  size_t size = clua_field_size(L, 4, "size", def);
  check_range(L, "queue:copy", "source buffer", so, size, s->size);
  check_range(L, "queue:copy", "destination buffer", dof, size, d->size);
  if (size == 0) luaL_error(L, "queue:copy: nothing to copy (size 0)");
  size_t sa = so, da = dof;  /* two views of one buffer: PoCL 3.1 does not check them, and memcpy()s overlaps */
  if (parent_of(s->mem, &sa) == parent_of(d->mem, &da) && sa < da + size && da < sa + size)  /* NVIDIA does not check either */
    return clua_clerror(L, "queue:copy", "clEnqueueCopyBuffer", CL_MEM_COPY_OVERLAP, s->mem == d->mem
                        ? "source and destination regions overlap"
                        : "source and destination regions overlap (in the buffer both are part of)");
  cl_event *wl;
  cl_uint nw = clua_waitlist(L, 4, "queue:copy", q->ctx, &wl);
  cl_event ev;
  cl_int err = clEnqueueCopyBuffer(q->q, s->mem, d->mem, so, dof, size, nw, wl, &ev);
  clua_queue_enqueued(q, 1, err == CL_SUCCESS ? ev : NULL);
  if (err != CL_SUCCESS) return clua_clerror(L, "queue:copy", "clEnqueueCopyBuffer", err, "%I bytes", (lua_Integer)size);
  if (q->sim) clua_sim_stored(q, d->mem);
  clua_push_event(L, ev);
  return 1;
}

/***
Fills a buffer with a repeated pattern (`clEnqueueFillBuffer`).
@function queue:fill
@tparam cl.buffer buf the buffer
@tparam number|cl.array value a number (an `int` pattern when it is an
integer, else a `float`, or `opts.type`), or a host array whose bytes are the
pattern (1, 2, 4, ..., 128 bytes)
@tab[opt] opts options
@string[opt] opts.type the pattern's scalar type for a number (`"uint"`, `"double"`, ...)
@int[opt=0] opts.offset bytes, a multiple of the pattern size
@int[opt] opts.size bytes (default to the end), a multiple of the pattern size
@tparam[opt] {cl.event,...} opts.wait events to wait for
@treturn cl.event the command's event
@raise `queue:fill: offset O and size S must be multiples of the pattern size P`
@usage q:fill(buf, 0x7fc00000, { type = "uint" })   -- NaN poison
*/
static int q_fill(lua_State *L) {
  cqueue *q = check_queue(L);
  cbuffer *b = check_buffer(L, q, 2, "queue:fill", "clEnqueueFillBuffer");
  static const char *const valid[] = {"type", "offset", "size", "wait", NULL};
  clua_check_options(L, 4, valid);
  unsigned char pat[128];
  size_t psize;
  if (luaL_testudata(L, 3, T_ARRAY)) {
    carray *a = clua_checkarray(L, 3);
    psize = clua_array_bytes(a);
    if (psize == 0 || psize > 128 || (psize & (psize - 1)))
      luaL_error(L, "queue:fill: a pattern must be 1, 2, 4, ..., 128 bytes, got %I", (lua_Integer)psize);
    memcpy(pat, clua_array_ptr(L, a), psize);
  } else {
    luaL_checktype(L, 3, LUA_TNUMBER);
    const char *tn = clua_field_string(L, 4, "type", lua_isinteger(L, 3) ? "int" : "float");
    const ctype *t = clua_find_type(tn);
    if (!t || t->lanes != 1) luaL_error(L, "queue:fill: option 'type' must be a scalar array type, got '%s'", tn);
    const char *why = clua_store(L, t, 3, pat);
    if (why) luaL_error(L, "queue:fill: %s", why);
    psize = (size_t)t->size;
  }
  size_t off = clua_field_size(L, 4, "offset", 0);
  size_t size = clua_field_size(L, 4, "size", off <= b->size ? b->size - off : 0);
  check_range(L, "queue:fill", "buffer", off, size, b->size);
  if (off % psize || size % psize)
    luaL_error(L, "queue:fill: offset %I and size %I must be multiples of the pattern size %I", (lua_Integer)off,
               (lua_Integer)size, (lua_Integer)psize);
  cl_event *wl;
  cl_uint nw = clua_waitlist(L, 4, "queue:fill", q->ctx, &wl);
  cl_event ev;
  cl_int err = clEnqueueFillBuffer(q->q, b->mem, pat, psize, off, size, nw, wl, &ev);
  clua_queue_enqueued(q, 1, err == CL_SUCCESS ? ev : NULL);
  if (err != CL_SUCCESS) return clua_clerror(L, "queue:fill", "clEnqueueFillBuffer", err, NULL);
  if (q->sim) clua_sim_stored(q, b->mem);
  clua_push_event(L, ev);
  return 1;
}

/* ---- rectangular copies ---- */

/* Reads opts[k] = {x, y, z} into out, which holds the defaults. */
static void triple(lua_State *L, int t, const char *k, size_t out[3]) {
  if (lua_getfield(L, t, k) == LUA_TNIL) {
    lua_pop(L, 1);
    return;
  }
  if (!lua_istable(L, -1))  /* argument errors name the call */
    luaL_argerror(L, t, lua_pushfstring(L, "option '%s' must be a list {x, y, z}, got %s", k, luaL_typename(L, -1)));
  for (int i = 0; i < 3; i++) {
    if (lua_geti(L, -1, i + 1) != LUA_TNIL) {
      int ok;
      lua_Integer v = lua_tointegerx(L, -1, &ok);
      if (!ok || v < 0) luaL_argerror(L, t, lua_pushfstring(L, "option '%s'[%d] must be a non-negative integer", k, i + 1));
      out[i] = (size_t)v;
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/* Checks a rectangle (origin, region, pitches) inside `total` bytes; fills in
   default pitches. */
static void check_rect(lua_State *L, const char *method, const char *what, const size_t o[3], const size_t r[3],
                       size_t *rp, size_t *sp, size_t total) {
  if (*rp == 0) *rp = r[0];
  if (*rp < r[0]) luaL_error(L, "%s: %s row pitch %I is less than the region's width %I bytes", method, what, (lua_Integer)*rp, (lua_Integer)r[0]);
  if (*rp > SIZE_MAX / r[1])
    luaL_error(L, "%s: %s row pitch %I × height %I overflows", method, what, (lua_Integer)*rp, (lua_Integer)r[1]);
  size_t plane = *rp * r[1];
  if (*sp == 0) *sp = plane;
  if (*sp < plane) luaL_error(L, "%s: %s slice pitch %I is less than row pitch × height %I", method, what, (lua_Integer)*sp, (lua_Integer)plane);
  /* the byte after the last one the copy touches, exactly (o and r are below 2^63) */
  size_t z, y, last;
  int over = __builtin_mul_overflow(o[2] + r[2] - 1, *sp, &z) || __builtin_mul_overflow(o[1] + r[1] - 1, *rp, &y) ||
             __builtin_add_overflow(z, y, &last) || __builtin_add_overflow(last, o[0] + r[0], &last);
  if (over || last > total) {
    char need[32];
    if (over) snprintf(need, sizeof need, "over 2^64");
    else snprintf(need, sizeof need, "%zu", last);
    luaL_error(L, "%s: the rectangle runs past the end of the %s (%s bytes needed, %I there)", method, what, need,
               (lua_Integer)total);
  }
}

static void get_region(lua_State *L, int t, const char *method, size_t r[3]) {
  r[0] = 0;
  r[1] = r[2] = 1;
  if (lua_getfield(L, t, "region") != LUA_TTABLE)
    luaL_error(L, "%s: option 'region' {width_bytes, height, depth} is required", method);
  lua_pop(L, 1);
  triple(L, t, "region", r);
  if (!r[0] || !r[1] || !r[2]) luaL_error(L, "%s: region sizes must be at least 1", method);
}

static int rect_transfer(lua_State *L, int write) {
  const char *method = write ? "queue:write_rect" : "queue:read_rect";
  cqueue *q = check_queue(L);
  cbuffer *b = check_buffer(L, q, 2, method, write ? "clEnqueueWriteBufferRect" : "clEnqueueReadBufferRect");
  carray *a = clua_checkarray(L, 3);
  luaL_checktype(L, 4, LUA_TTABLE);
  static const char *const valid[] = {"region", "buffer_origin", "host_origin", "buffer_row_pitch",
                                      "buffer_slice_pitch", "host_row_pitch", "host_slice_pitch", "blocking",
                                      "wait", NULL};
  clua_check_options(L, 4, valid);
  size_t r[3], bo[3] = {0, 0, 0}, ho[3] = {0, 0, 0};
  get_region(L, 4, method, r);
  triple(L, 4, "buffer_origin", bo);
  triple(L, 4, "host_origin", ho);
  size_t brp = clua_field_size(L, 4, "buffer_row_pitch", 0), bsp = clua_field_size(L, 4, "buffer_slice_pitch", 0);
  size_t hrp = clua_field_size(L, 4, "host_row_pitch", 0), hsp = clua_field_size(L, 4, "host_slice_pitch", 0);
  check_rect(L, method, "buffer", bo, r, &brp, &bsp, b->size);
  check_rect(L, method, "host array", ho, r, &hrp, &hsp, clua_array_bytes(a));
  int blocking = clua_field_bool(L, 4, "blocking", 1);
  cl_event *wl;
  cl_uint nw = clua_waitlist(L, 4, method, q->ctx, &wl);
  cl_event ev;
  void *p = clua_array_ptr(L, a);
  int same = !memcmp(bo, ho, sizeof bo) && brp == hrp && bsp == hsp;  /* the same bytes at either end */
  check_host_side(L, method, b, a, p, 0, b->size, same);
  if (blocking) clua_queue_settle(L, q, method, nw, wl);
  cl_int err = write ? clEnqueueWriteBufferRect(q->q, b->mem, blocking, bo, ho, r, brp, bsp, hrp, hsp, p, nw, wl, &ev)
                     : clEnqueueReadBufferRect(q->q, b->mem, blocking, bo, ho, r, brp, bsp, hrp, hsp, p, nw, wl, &ev);
  if (err != CL_SUCCESS)
    return clua_clerror(L, method, write ? "clEnqueueWriteBufferRect" : "clEnqueueReadBufferRect", err, NULL);
  if (!blocking) clua_queue_hold(L, q, ev, a->mem);
  clua_queue_enqueued(q, !blocking, err == CL_SUCCESS ? ev : NULL);
  if (q->sim && write) clua_sim_stored(q, b->mem);
  clua_push_event(L, ev);
  return 1;
}
/***
A rectangle of a host array to a rectangle of a buffer (`clEnqueueWriteBufferRect`).
@function queue:write_rect
@tparam cl.buffer buf the buffer
@tparam cl.array array the host array
@tab opts options
@tparam {int,int,int} opts.region `{width_bytes, height, depth}` (required)
@tparam[opt] {int,int,int} opts.buffer_origin `{x_bytes, y, z}` (default `{0,0,0}`)
@tparam[opt] {int,int,int} opts.host_origin `{x_bytes, y, z}` (default `{0,0,0}`)
@int[opt] opts.buffer_row_pitch bytes (default the region's width)
@int[opt] opts.buffer_slice_pitch bytes (default row pitch x height)
@int[opt] opts.host_row_pitch bytes
@int[opt] opts.host_slice_pitch bytes
@bool[opt=true] opts.blocking
@tparam[opt] {cl.event,...} opts.wait events to wait for
@treturn cl.event the command's event
@raise `queue:write_rect: the rectangle runs past the end of the buffer (N bytes needed, M there)`;
`queue:write_rect: option 'region' {width_bytes, height, depth} is required`
*/
static int q_write_rect(lua_State *L) { return rect_transfer(L, 1); }
/***
A rectangle of a buffer to a rectangle of a host array
(`clEnqueueReadBufferRect`); the options of `queue:write_rect`.
@function queue:read_rect
@tparam cl.buffer buf the buffer
@tparam cl.array array the host array
@tab opts `region`, `buffer_origin`, `host_origin`, pitches, `blocking`, `wait`
@treturn cl.event the command's event
*/
static int q_read_rect(lua_State *L) { return rect_transfer(L, 0); }

/***
A rectangle of one buffer to a rectangle of another (`clEnqueueCopyBufferRect`).
@function queue:copy_rect
@tparam cl.buffer src the source
@tparam cl.buffer dst the destination
@tab opts `region` (required), `src_origin`, `dst_origin`, `src_row_pitch`,
`src_slice_pitch`, `dst_row_pitch`, `dst_slice_pitch`, `wait`
@treturn cl.event the command's event
*/
static int q_copy_rect(lua_State *L) {
  const char *method = "queue:copy_rect";
  cqueue *q = check_queue(L);
  cbuffer *s = check_buffer(L, q, 2, method, "clEnqueueCopyBufferRect");
  cbuffer *d = check_buffer(L, q, 3, method, "clEnqueueCopyBufferRect");
  luaL_checktype(L, 4, LUA_TTABLE);
  static const char *const valid[] = {"region", "src_origin", "dst_origin", "src_row_pitch", "src_slice_pitch",
                                      "dst_row_pitch", "dst_slice_pitch", "wait", NULL};
  clua_check_options(L, 4, valid);
  size_t r[3], so[3] = {0, 0, 0}, dof[3] = {0, 0, 0};
  get_region(L, 4, method, r);
  triple(L, 4, "src_origin", so);
  triple(L, 4, "dst_origin", dof);
  size_t srp = clua_field_size(L, 4, "src_row_pitch", 0), ssp = clua_field_size(L, 4, "src_slice_pitch", 0);
  size_t drp = clua_field_size(L, 4, "dst_row_pitch", 0), dsp = clua_field_size(L, 4, "dst_slice_pitch", 0);
  check_rect(L, method, "source buffer", so, r, &srp, &ssp, s->size);
  check_rect(L, method, "destination buffer", dof, r, &drp, &dsp, d->size);
  cl_event *wl;
  cl_uint nw = clua_waitlist(L, 4, method, q->ctx, &wl);
  cl_event ev;
  /* PoCL 3.1 dereferences NULL in clEnqueueCopyBufferRect given a sub-buffer: copy
     within the parents, the sub-buffers' offsets added to origin[0] (the same
     bytes: a rectangle's origin[0] may exceed its row pitch) */
  cl_mem sm = parent_of(s->mem, &so[0]), dm = parent_of(d->mem, &dof[0]);
  cl_int err = clEnqueueCopyBufferRect(q->q, sm, dm, so, dof, r, srp, ssp, drp, dsp, nw, wl, &ev);
  clua_queue_enqueued(q, 1, err == CL_SUCCESS ? ev : NULL);
  if (err != CL_SUCCESS) return clua_clerror(L, method, "clEnqueueCopyBufferRect", err, NULL);
  if (q->sim) clua_sim_stored(q, d->mem);
  clua_push_event(L, ev);
  return 1;
}

/* ---- maps ---- */

/***
Maps a buffer into host memory (`clEnqueueMapBuffer`, blocking by default):
a host array view over the mapped memory, valid until `queue:unmap`.
With an `alloc_host_ptr` buffer this is pinned memory.
@function queue:map
@tparam cl.buffer buf the buffer
@tab[opt] opts options
@string[opt="read_write"] opts.map `"read"`, `"write"`, `"read_write"` or `"write_invalidate"`
@string[opt="uchar"] opts.type the view's array type
@int[opt=0] opts.offset bytes
@int[opt] opts.size bytes (default to the end), a multiple of the type's size
@bool[opt=true] opts.blocking
@tparam[opt] {cl.event,...} opts.wait events to wait for
@treturn cl.array the view (it keeps the buffer alive)
@treturn cl.event the command's event
@raise `queue:map: option 'map' must be read, write, read_write or write_invalidate, got 'x'`
@usage local view = q:map(ctx:buffer(bytes, "alloc_host_ptr"), { type = "float" })
*/
static int q_map(lua_State *L) {
  cqueue *q = check_queue(L);
  cbuffer *b = check_buffer(L, q, 2, "queue:map", "clEnqueueMapBuffer");
  static const char *const valid[] = {"map", "type", "offset", "size", "blocking", "wait", NULL};
  clua_check_options(L, 3, valid);
  const char *mode = clua_field_string(L, 3, "map", "read_write");
  cl_map_flags mf;
  if (!strcmp(mode, "read")) mf = CL_MAP_READ;
  else if (!strcmp(mode, "write")) mf = CL_MAP_WRITE;
  else if (!strcmp(mode, "read_write")) mf = CL_MAP_READ | CL_MAP_WRITE;
  else if (!strcmp(mode, "write_invalidate")) mf = CL_MAP_WRITE_INVALIDATE_REGION;
  else return luaL_error(L, "queue:map: option 'map' must be read, write, read_write or write_invalidate, got '%s'", mode);
  const char *tn = clua_field_string(L, 3, "type", "uchar");
  const ctype *t = clua_find_type(tn);
  if (!t) return luaL_error(L, "queue:map: unknown array type '%s'", tn);
  size_t off = clua_field_size(L, 3, "offset", 0);
  size_t size = clua_field_size(L, 3, "size", off <= b->size ? b->size - off : 0);
  check_range(L, "queue:map", "buffer", off, size, b->size);
  if (size == 0 || size % (size_t)t->size)
    return luaL_error(L, "queue:map: size %I is not a positive multiple of the %s size (%d bytes)", (lua_Integer)size, t->name, t->size);
  int blocking = clua_field_bool(L, 3, "blocking", 1);
  cl_event *wl;
  cl_uint nw = clua_waitlist(L, 3, "queue:map", q->ctx, &wl);
  cl_event ev;
  cl_int err;
  if (blocking) clua_queue_settle(L, q, "queue:map", nw, wl);
  void *p = clEnqueueMapBuffer(q->q, b->mem, blocking, mf, off, size, nw, wl, &ev, &err);
  clua_queue_enqueued(q, !blocking, err == CL_SUCCESS ? ev : NULL);
  if (err != CL_SUCCESS) return clua_clerror(L, "queue:map", "clEnqueueMapBuffer", err, "%I bytes at offset %I", (lua_Integer)size, (lua_Integer)off);
  hostmem *m = hostmem_wrap_mapped(L, p, size);  /* one reference: the buffer's list */
  m->owner = b;
  m->next = b->maps;
  b->maps = m;
  CLUA_CREATED(CNT_MAP);
  if (clRetainCommandQueue(q->q) == CL_SUCCESS) {
    m->mapq = q->q;
    CLUA_CREATED(CNT_QUEUE);
  }
  if (!blocking && clRetainEvent(ev) == CL_SUCCESS) {
    m->mapev = ev;
    CLUA_CREATED(CNT_EVENT);
  }
  carray *v = clua_push_view(L, m, t, size / (size_t)t->size);
  (void)v;
  lua_pushvalue(L, 2);
  lua_setiuservalue(L, -2, 1);  /* the view keeps its buffer */
  clua_push_event(L, ev);
  return 2;
}

/***
Unmaps a view made by `queue:map` (`clEnqueueUnmapMemObject`); the view
becomes unusable.
@function queue:unmap
@tparam cl.array view the view
@tab[opt] opts `wait`
@treturn cl.event the command's event
@raise `bad argument #2 to 'unmap' (a view returned by queue:map expected, got a plain array)`;
`queue:unmap: this view was already unmapped (or its buffer released)`
*/
static int q_unmap(lua_State *L) {
  cqueue *q = check_queue(L);
  carray *v = clua_check(L, 2, T_ARRAY);
  static const char *const valid[] = {"wait", NULL};
  clua_check_options(L, 3, valid);
  hostmem *m = v->mem;
  if (!m->mapped) return luaL_argerror(L, 2, "a view returned by queue:map expected, got a plain array");
  if (!m->valid) return luaL_error(L, "queue:unmap: this view was already unmapped (or its buffer released)");
  cbuffer *b = m->owner;
  clua_same_context(L, "queue:unmap", "clEnqueueUnmapMemObject", CL_INVALID_CONTEXT, q->ctx, b->ctx,
                    "the view's buffer", "the queue");
  cl_event *wl;
  cl_uint nw = clua_waitlist(L, 3, "queue:unmap", q->ctx, &wl);
  cl_int st = CL_COMPLETE;
  if (m->mapev) clGetEventInfo(m->mapev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
  if (st > CL_COMPLETE) {  /* a map not done yet (non-blocking, maybe on another queue): the unmap waits for it,
                              as PoCL 3.1 would otherwise free the mapping the map still copies into */
    cl_event *all = lua_newuserdatauv(L, sizeof(cl_event) * (nw + 1), 0);
    if (nw) memcpy(all, wl, sizeof(cl_event) * nw);
    all[nw++] = m->mapev;
    wl = all;
  }
  cl_event ev;
  cl_int err = clEnqueueUnmapMemObject(q->q, b->mem, m->ptr, nw, wl, &ev);
  clua_queue_enqueued(q, 1, err == CL_SUCCESS ? ev : NULL);
  if (err != CL_SUCCESS) return clua_clerror(L, "queue:unmap", "clEnqueueUnmapMemObject", err, NULL);
  if (q->sim) clua_sim_stored(q, b->mem);
  CLUA_RELEASED(CNT_MAP);
  if (m->mapq) {
    clReleaseCommandQueue(m->mapq);
    m->mapq = NULL;
    CLUA_RELEASED(CNT_QUEUE);
  }
  for (hostmem **pp = &b->maps; *pp; pp = &(*pp)->next)
    if (*pp == m) {
      *pp = m->next;
      m->next = NULL;
      m->valid = 0;
      hostmem_unref(m);
      break;
    }
  clua_push_event(L, ev);
  return 1;
}

/***
Migrates buffers to the queue's device, or to the host
(`clEnqueueMigrateMemObjects`): in a context of several devices, where a
buffer lives is the driver's choice until a command uses it, so a copy
between devices measures nothing unless its source was first placed on the
right one.
@function queue:migrate
@tparam cl.buffer|{cl.buffer,...} buffers one buffer or a list (1 to 64) of the queue's context
@tab[opt] opts
@bool[opt=false] opts.host to the host instead of the queue's device
@bool[opt=false] opts.undefined the contents need not move (`CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED`)
@tparam[opt] {cl.event,...} opts.wait events to wait for
@treturn cl.event the command's event
@raise `queue:migrate: buffers[2] must be a cl.buffer, got number`
@usage q1:migrate(src)                 -- src on q1's device
local e = q2:migrate(src)               -- then to q2's: a timed device-to-device move
*/
static int q_migrate(lua_State *L) {
  cqueue *q = check_queue(L);
  static const char *const valid[] = {"host", "undefined", "wait", NULL};
  clua_check_options(L, 3, valid);
  cl_mem mems[64];
  int n = 0;
  if (luaL_testudata(L, 2, T_BUFFER)) {
    mems[n++] = check_buffer(L, q, 2, "queue:migrate", "clEnqueueMigrateMemObjects")->mem;
  } else {
    if (!lua_istable(L, 2))
      luaL_argerror(L, 2, lua_pushfstring(L, "a cl.buffer or a list of them expected, got %s", luaL_typename(L, 2)));
    lua_Integer len = luaL_len(L, 2);
    if (len < 1 || len > 64) luaL_argerror(L, 2, lua_pushfstring(L, "a list of 1 to 64 buffers expected, got %I", len));
    for (lua_Integer i = 1; i <= len; i++) {
      lua_geti(L, 2, i);
      if (!luaL_testudata(L, -1, T_BUFFER))
        luaL_error(L, "queue:migrate: buffers[%I] must be a cl.buffer, got %s", i, luaL_typename(L, -1));
      mems[n++] = check_buffer(L, q, lua_gettop(L), "queue:migrate", "clEnqueueMigrateMemObjects")->mem;
      lua_pop(L, 1);
    }
  }
  cl_mem_migration_flags f = 0;
  if (clua_field_bool(L, 3, "host", 0)) f |= CL_MIGRATE_MEM_OBJECT_HOST;
  if (clua_field_bool(L, 3, "undefined", 0)) f |= CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED;
  cl_event *wl;
  cl_uint nw = clua_waitlist(L, 3, "queue:migrate", q->ctx, &wl);
  cl_event ev;
  cl_int err = clEnqueueMigrateMemObjects(q->q, (cl_uint)n, mems, f, nw, wl, &ev);
  clua_queue_enqueued(q, 1, err == CL_SUCCESS ? ev : NULL);
  if (err != CL_SUCCESS) return clua_clerror(L, "queue:migrate", "clEnqueueMigrateMemObjects", err, NULL);
  clua_push_event(L, ev);
  return 1;
}

static int marker_or_barrier(lua_State *L, int barrier) {
  const char *method = barrier ? "queue:barrier" : "queue:marker";
  cqueue *q = check_queue(L);
  cl_event *wl = NULL;
  cl_uint nw = 0;
  if (!lua_isnoneornil(L, 2)) {
    lua_newtable(L);
    lua_pushvalue(L, 2);
    lua_setfield(L, -2, "wait");
    nw = clua_waitlist(L, lua_gettop(L), method, q->ctx, &wl);
  }
  cl_event ev;
  cl_int err = barrier ? clEnqueueBarrierWithWaitList(q->q, nw, wl, &ev) : clEnqueueMarkerWithWaitList(q->q, nw, wl, &ev);
  clua_queue_enqueued(q, 1, err == CL_SUCCESS ? ev : NULL);
  if (err != CL_SUCCESS) return clua_clerror(L, method, barrier ? "clEnqueueBarrierWithWaitList" : "clEnqueueMarkerWithWaitList", err, NULL);
  clua_push_event(L, ev);
  return 1;
}
/***
A marker (`clEnqueueMarkerWithWaitList`): an event that completes when the
listed events (default: every command before it) are done.
@function queue:marker
@tparam[opt] {cl.event,...} wait events
@treturn cl.event the marker's event
*/
static int q_marker(lua_State *L) { return marker_or_barrier(L, 0); }
/***
A barrier (`clEnqueueBarrierWithWaitList`): later commands wait for the
listed events (default: every command before it).
@function queue:barrier
@tparam[opt] {cl.event,...} wait events
@treturn cl.event the barrier's event
*/
static int q_barrier(lua_State *L) { return marker_or_barrier(L, 1); }

/* Methods come first, straight from the methods table (upvalue 1): q:launch
   is the hot path, and a method checks its queue when called. */
/***
The queue's context.
@field context
*/
/***
The queue's device.
@field device
*/
/***
The number of non-blocking transfers still holding a host array.
@field pending
*/

/***
Launches a kernel over an NDRange (`clEnqueueNDRangeKernel`; implemented in
launch.c). Every argument of the kernel must be set (`kernel:args`).
@function queue:launch
@tparam cl.kernel kernel the kernel
@tparam int|{int,...} global the global size: a number or a list of 1-3 numbers
@tparam[opt] int|{int,...} local the work-group size, of the same dimensions;
nil lets the driver choose
@tab[opt] opts options
@tparam[opt] int|{int,...} opts.offset the global offset
@tparam[opt] {cl.event,...} opts.wait events to wait for
@bool[opt=true] opts.event false asks OpenCL for no event (an event costs
the driver time: about 8 us a launch on an H100) and returns nothing
@treturn cl.event the launch's event (unless `opts.event` is false)
@raise `queue:launch: clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE (local size 1024 exceeds the kernel's maximum 256 on DEVICE)`;
`queue:launch: argument 0 (float* o) of kernel 'copy' is not set`;
`queue:launch: global size has 2 dimensions, local size 1`
@usage local e = q:launch(k, n, 256)
print(e.duration, "ns")
*/
/***
Makes a launch ready once and returns a function that makes it (implemented
in launch.c): `q:launcher(k, global, local, opts)` checks once what
`q:launch` checks at each call and cannot change between launches (the
queue, the kernel, their context, the sizes and the options); each call of
the function checks what can (the queue or the kernel released, every
argument of the kernel set and not released) and enqueues the launch with
the kernel's arguments as they are then. For loops of many launches: no
method lookup, argument parsing or options table per launch (about 300
instructions a launch without an event where `q:launch` takes some 1170;
docs/notes/launch.md).
@function queue:launcher
@tparam cl.kernel kernel the kernel
@tparam int|{int,...} global the global size: a number or a list of 1-3 numbers
@tparam[opt] int|{int,...} local the work-group size, of the same dimensions;
nil lets the driver choose
@tab[opt] opts options
@tparam[opt] int|{int,...} opts.offset the global offset
@bool[opt=true] opts.event false: each launch asks OpenCL for no event and
returns nothing
@treturn function `go()`, which launches and returns the launch's
`cl.event` (unless `opts.event` is false); it takes no arguments
@raise `queue:launcher: global size 1 is 0`; `queue:launcher: option 'wait' is
queue:launch's: ...` (a launcher has no wait list); from `go()`:
`launcher: argument 2 (float a) of kernel 'axpy' is not set`,
`launcher: attempt to use a released cl.queue`
@usage local go = q:launcher(k, n, 256, {event = false})
for _ = 1, 10000 do go() end
q:finish()
*/
/* The class metatable's __index (a queue has it only while ctx:queue makes
   it; then own_metatable's table serves). */
static int q_index(lua_State *L) {
  lua_pushvalue(L, 2);
  if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) return 1;
  cqueue *q = clua_check_queue(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "context")) lua_getiuservalue(L, 1, 1);
  else if (!strcmp(k, "device")) clua_push_device(L, q->dev);
  else if (!strcmp(k, "pending")) lua_pushinteger(L, q->npend);
  else lua_pushnil(L);
  return 1;
}

static int q_tostring(lua_State *L) {
  cqueue *q = clua_test_queue(L, 1);
  if (!q) q = luaL_checkudata(L, 1, T_QUEUE);  /* raises */
  if (q->released) {
    lua_pushstring(L, "cl.queue (released)");
    return 1;
  }
  char name[256];
  cl_command_queue_properties p = 0;
  clGetCommandQueueInfo(q->q, CL_QUEUE_PROPERTIES, sizeof p, &p, NULL);
  lua_pushfstring(L, "cl.queue: %s%s%s (%p)", clua_device_name(q->dev, name, sizeof name),
                  (p & CL_QUEUE_PROFILING_ENABLE) ? ", profiling" : "",
                  (p & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) ? ", out of order" : "", (void *)q->q);
  return 1;
}

void clua_open_queue(lua_State *L) {
  static const luaL_Reg methods[] = {
    {"write", q_write}, {"read", q_read}, {"copy", q_copy}, {"fill", q_fill},
    {"write_rect", q_write_rect}, {"read_rect", q_read_rect}, {"copy_rect", q_copy_rect},
    {"map", q_map}, {"unmap", q_unmap},
    {"marker", q_marker}, {"barrier", q_barrier}, {"migrate", q_migrate}, {"finish", q_finish}, {"flush", q_flush},
    {"release", q_release}, {NULL, NULL}};
  static const luaL_Reg meta[] = {
    {"__index", q_index}, {"__gc", q_release}, {"__close", q_release}, {"__tostring", q_tostring}, {NULL, NULL}};
  clua_newtype(L, T_QUEUE, methods, meta);
  luaL_getmetatable(L, T_QUEUE);
  lua_getfield(L, -1, "methods");
  lua_pushcclosure(L, q_index, 1);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  static const luaL_Reg cmethods[] = {{"queue", ctx_queue}, {NULL, NULL}};
  clua_add_methods(L, T_CONTEXT, cmethods);
}
