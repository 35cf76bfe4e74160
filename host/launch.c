/* Launches: queue:launch, the hot path of every experiment, and what it
   checks (work sizes, the kernel's arguments, the geometry, the options);
   queue:launcher, the same launch checked once and made many times. */
#include "check.h"
#include "objects.h"
#include "events.h"
#include "wait.h"
#include "queue.h"
#include "deadline.h"
#include "fatal.h"
#include "open.h"
#include "compiler.h"

#include <string.h>

/* A work size: a number or a list of 1 to 3. Errors name argument idx, or,
   for an option (opt: idx is the option's value on the stack), the option. */
static void size_error(lua_State *L, const char *who, int idx, int opt, const char *msg) {
  if (opt) luaL_error(L, "%s: option 'offset': %s", who, msg);
  luaL_argerror(L, idx, msg);
}

/* Any work size but work_size's usual case. */
static CLUA_NOINLINE cl_uint work_size_any(lua_State *L, const char *who, int idx, size_t out[3], const char *what,
                                            int opt) {
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
    if (opt)
      size_error(L, who, idx, opt,
                 lua_pushfstring(L, "an integer or a list of 1 to 3 integers expected, got %s", luaL_typename(L, idx)));
    luaL_typeerror(L, idx, "number or list of 1 to 3 numbers");
  }
  lua_Integer n = luaL_len(L, idx);
  if (n < 1 || n > 3)
    size_error(L, who, idx, opt, lua_pushfstring(L, "%s must have 1 to 3 dimensions, got %I", what, n));
  for (lua_Integer i = 0; i < n; i++) {
    lua_geti(L, idx, i + 1);
    int ok;
    lua_Integer v = lua_tointegerx(L, -1, &ok);
    if (!ok || v < 0)
      size_error(L, who, idx, opt, lua_pushfstring(L, "%s[%I] must be a non-negative integer", what, i + 1));
    out[i] = (size_t)v;
    lua_pop(L, 1);
  }
  return (cl_uint)n;
}

/* The usual case, a non-negative integer, inline in q:launch in two calls. */
static inline cl_uint work_size(lua_State *L, const char *who, int idx, size_t out[3], const char *what, int opt) {
  lua_Integer v;
  if (!opt && lua_isinteger(L, idx) && (v = lua_tointeger(L, idx)) >= 0) {
    out[0] = (size_t)v;
    return 1;
  }
  return work_size_any(L, who, idx, out, what, opt);
}

/* q:launch is the hot path: it is a closure holding the event metatable
   and the option names (upvalues 1 to 4, see clua_open_launch), and its
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
   launch runs through fewer instructions and cache lines (docs/notes/launch.md,
   sixth part): the cold ones (CLUA_COLD) are laid out apart. Each names in
   its messages the call it serves (who): "queue:launch", "queue:launcher",
   or "launcher", a launcher's launch. */

/* A kernel's arguments not set, or its local memory not checked yet. */
static CLUA_COLD void launch_kernel_checks(lua_State *L, const char *who, cqueue *q, ckernel *k) {
  char kn[128], dn[128];
  if (k->unset) {
    for (cl_uint i = 0; i < k->nargs; i++)
      if (!k->argset[i])
        luaL_error(L, "%s: %s of kernel '%s' is not set", who, clua_kernel_argdesc(L, k, i),
                   clua_kernel_name(k, kn, sizeof kn));
  }
  if (k->localcheck) {  /* past the device's local memory, PoCL 3.1 aborts (an assertion) instead of failing */
    cl_ulong used = 0, have = 0;
    clGetKernelWorkGroupInfo(k->k, q->dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof used, &used, NULL);
    clGetDeviceInfo(q->dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof have, &have, NULL);
    if (have && used > have)
      clua_clerror(L, who, "clEnqueueNDRangeKernel", CL_OUT_OF_RESOURCES,
                   "kernel '%s' needs %I bytes of local memory, %s has %I", clua_kernel_name(k, kn, sizeof kn),
                   (lua_Integer)used, clua_device_name(q->dev, dn, sizeof dn), (lua_Integer)have);
    k->localcheck = 0;
  }
}

/* An argument whose object was released explicitly: its handle is gone. The
   kernel's userdata is at kidx. */
static CLUA_COLD void launch_released_arg(lua_State *L, const char *who, int kidx, ckernel *k, cl_uint i) {
  char kn[128];
  lua_getiuservalue(L, kidx, 2);
  lua_rawgeti(L, -1, (lua_Integer)i + 1);
  luaL_error(L, "%s: %s of kernel '%s' is a released %s", who, clua_kernel_argdesc(L, k, i),
             clua_kernel_name(k, kn, sizeof kn),
             luaL_getmetafield(L, -1, "__name") == LUA_TSTRING ? lua_tostring(L, -1) : "object");
}

/* The geometry beyond one dimension of a size below 2^32 and no local size:
   sizes of 0, 2^32 work-groups or more, a local size and its limits. */
static CLUA_NOINLINE void launch_geometry(lua_State *L, const char *who, cqueue *q, ckernel *k, cl_uint dims,
                                          const size_t g[3], const size_t l[3], int haslocal) {
  char dn[128];
  size_t total = 1;
  for (cl_uint i = 0; i < dims; i++) {
    if (g[i] == 0) luaL_error(L, "%s: global size %d is 0", who, (int)i + 1);
    /* 2^32 work-groups or more in a dimension: PoCL 3.1 aborts or traps, and no
       GPU runs that many (without a local size: even with the largest one) */
    if (g[i] > 0xFFFFFFFFu) {
      size_t most = haslocal ? l[i] : 0;
      if (!haslocal) clGetDeviceInfo(q->dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof most, &most, NULL);
      if (most && g[i] / most > 0xFFFFFFFFu)
        clua_clerror(L, who, "clEnqueueNDRangeKernel", CL_INVALID_GLOBAL_WORK_SIZE,
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
    if (err != CL_SUCCESS) clua_clerror(L, who, "clGetKernelWorkGroupInfo", err, NULL);
    clGetDeviceInfo(q->dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof dmax, &dmax, NULL);
    k->wgdev = q->dev;
    k->wgsize = wg;
    k->wgdevmax = dmax ? dmax : wg;
  }
  for (cl_uint i = 0; i < dims; i++)
    if (l[i] == 0) luaL_error(L, "%s: local size %d is 0", who, (int)i + 1);
  if (total > k->wgdevmax)
    clua_clerror(L, who, "clEnqueueNDRangeKernel", CL_INVALID_WORK_GROUP_SIZE,
                 "local size %I exceeds the device's maximum %I on %s", (lua_Integer)total, (lua_Integer)k->wgdevmax,
                 clua_device_name(q->dev, dn, sizeof dn));
  for (cl_uint i = 0; i < dims; i++)
    if (g[i] % l[i])
      clua_clerror(L, who, "clEnqueueNDRangeKernel", CL_INVALID_WORK_GROUP_SIZE,
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
static CLUA_COLD int launch_failed(lua_State *L, const char *who, cqueue *q, ckernel *k, cl_int err, cl_uint dims,
                                   const size_t l[3], int haslocal) {
  char kn[128], dn[128];
  clua_queue_enqueued(q, 1, NULL);
  size_t total = 1, req[3] = {0, 0, 0};
  for (cl_uint i = 0; i < dims; i++) total *= l[i];
  if (err == CL_INVALID_WORK_GROUP_SIZE &&
      clGetKernelWorkGroupInfo(k->k, q->dev, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof req, req, NULL) == CL_SUCCESS &&
      req[0] && (!haslocal || req[0] != l[0] || (dims > 1 && req[1] != l[1]) || (dims > 2 && req[2] != l[2])))
    return clua_clerror(L, who, "clEnqueueNDRangeKernel", err,
                        "kernel '%s' declares reqd_work_group_size(%I, %I, %I); launch it with that local size",
                        clua_kernel_name(k, kn, sizeof kn), (lua_Integer)req[0], (lua_Integer)req[1],
                        (lua_Integer)req[2]);
  if ((err == CL_INVALID_WORK_GROUP_SIZE || err == CL_OUT_OF_RESOURCES) && haslocal && total > k->wgsize)
    return clua_clerror(L, who, "clEnqueueNDRangeKernel", err, "local size %I exceeds the kernel's maximum %I on %s",
                        (lua_Integer)total, (lua_Integer)k->wgsize, clua_device_name(q->dev, dn, sizeof dn));
  if (err == CL_INVALID_WORK_ITEM_SIZE)
    return clua_clerror(L, who, "clEnqueueNDRangeKernel", err,
                        "a local size exceeds the device's max work-item size on %s",
                        clua_device_name(q->dev, dn, sizeof dn));
  if (err == CL_INVALID_KERNEL_ARGS)
    return clua_clerror(L, who, "clEnqueueNDRangeKernel", err, "an argument of '%s' is not set or not valid",
                        clua_kernel_name(k, kn, sizeof kn));
  return clua_clerror(L, who, "clEnqueueNDRangeKernel", err, "kernel '%s'", clua_kernel_name(k, kn, sizeof kn));
}

/* What both launches read the same way. The global size at 3 and the local
   size at 4 (nil or absent: none; top is the stack's top): the dimensions. */
static inline cl_uint launch_sizes(lua_State *L, const char *who, int top, size_t g[3], size_t l[3], int *haslocal) {
  cl_uint dims = work_size(L, who, 3, g, "global size", 0);
  *haslocal = top >= 4 && !lua_isnil(L, 4);
  if (*haslocal) {
    cl_uint ld = work_size(L, who, 4, l, "local size", 0);
    if (ld != dims) luaL_error(L, "%s: global size has %d dimensions, local size %d", who, (int)dims, (int)ld);
  }
  return dims;
}

/* The options' offset (the table at 5), of dims dimensions: 0 when absent. */
static int launch_offset(lua_State *L, const char *who, size_t off[3], cl_uint dims) {
  if (lua_getfield(L, 5, "offset") == LUA_TNIL) {
    lua_pop(L, 1);
    return 0;
  }
  cl_uint od = work_size(L, who, lua_gettop(L), off, "offset", 1);
  if (od != dims) luaL_error(L, "%s: offset has %d dimensions, global size %d", who, (int)od, (int)dims);
  lua_pop(L, 1);
  return 1;
}

/* After the driver took a launch: the note for a stuck wait, the queue's
   newest command, and the launch's event if asked for, made with the event
   metatable at upvalue 1 and the queue's pool (clua_push_event without
   looking either up); returns the number of results. */
static inline int launch_made(lua_State *L, cqueue *q, ckernel *k, int want_event, cl_event ev) {
  clua_note_launch(want_event ? ev : NULL, k->k);
  if (!want_event) {
    clua_queue_launched(q, NULL);
    return 0;
  }
  cevent *e = clua_event_new(L, q->pool, lua_upvalueindex(1), ev);
  clua_queue_launched(q, e);  /* the queue borrows the event's handle: no retain/release pair per launch */
  return 1;
}

static CLUA_HOT int clua_queue_launch(lua_State *L) {
  cqueue *q = clua_check_queue(L, 1);
  if (q->npend) clua_queue_sweep(q);
  ckernel *k = launch_kernel(L, 2);
  if (k->ctx != q->ctx)
    clua_same_context(L, "queue:launch", "clEnqueueNDRangeKernel", CL_INVALID_CONTEXT, q->ctx, k->ctx, "the kernel",
                      "the queue");
  size_t g[3] = {1, 1, 1}, l[3] = {1, 1, 1}, off[3] = {0, 0, 0};
  int top = lua_gettop(L);  /* q:launch(k, n) asks no more of the stack */
  int haslocal;
  cl_uint dims = launch_sizes(L, "queue:launch", top, g, l, &haslocal);
  int want_event = 1, has_offset = 0, has_wait = 0;
  if (top >= 5 && !lua_isnil(L, 5)) want_event = launch_options(L, &has_offset, &has_wait);
  if (k->unset || k->localcheck) launch_kernel_checks(L, "queue:launch", q, k);
  for (cl_uint i = 0; i < k->nargs; i++)  /* an explicitly released object's handle is gone */
    if (k->argbuf[i] && *(int *)k->argbuf[i]) launch_released_arg(L, "queue:launch", 2, k, i);
  if (haslocal || dims > 1 || g[0] - 1 >= 0xFFFFFFFFu) launch_geometry(L, "queue:launch", q, k, dims, g, l, haslocal);
  cl_event *wl = NULL;
  cl_uint nw = 0;
  if (has_offset) launch_offset(L, "queue:launch", off, dims);
  if (has_wait) nw = clua_waitlist(L, 5, "queue:launch", q->ctx, &wl);
  if (q->cpu) clua_fatal_note(L, k->k);  /* before: the kernel may fault before clEnqueueNDRangeKernel returns */
  cl_event ev;
  cl_int err = clEnqueueNDRangeKernel(q->q, k->k, dims, has_offset ? off : NULL, g, haslocal ? l : NULL, nw, wl,
                                      want_event ? &ev : NULL);
  if (err != CL_SUCCESS) return launch_failed(L, "queue:launch", q, k, err, dims, l, haslocal);
  return launch_made(L, q, k, want_event, ev);
}

/* ---- launchers: a launch made ready once, run many times ----

   q:launcher(k, global, local, opts) checks what q:launch checks at every
   call and does not change from one launch to the next (queue, kernel, the
   same context, sizes, geometry, options) once, and returns a function that
   makes the launch. The function is a closure holding the event metatable
   (upvalue 1) and a clauncher (upvalue 2), whose user values keep the
   queue and the kernel alive. A call checks what can change: the queue or
   the kernel released, the kernel's arguments (set, released, local
   memory); then it enqueues as q:launch does. No Lua method lookup, no
   arguments, no options table: some 300 instructions a launch without an
   event where q:launch takes 1170 (docs/notes/launch.md, eighth part). */
typedef struct {
  cqueue *q;
  ckernel *k;
  cl_uint dims;
  int haslocal, has_offset, want_event;
  size_t g[3], l[3], off[3];
} clauncher;

/* A call that cannot launch: arguments given, or its queue or kernel released. */
static CLUA_COLD int launcher_refused(lua_State *L, const clauncher *p) {
  if (lua_gettop(L) > 0)
    return luaL_error(L, "launcher: takes no arguments (its kernel, sizes and options are those given to "
                         "queue:launcher; queue:launch takes others)");
  return luaL_error(L, "launcher: attempt to use a released %s", p->q->released ? T_QUEUE : T_KERNEL);
}

static CLUA_HOT int launcher_call(lua_State *L) {
  const clauncher *p = lua_touserdata(L, lua_upvalueindex(2));
  cqueue *q = p->q;
  ckernel *k = p->k;
  if (lua_gettop(L) > 0 || q->released || k->released) return launcher_refused(L, p);
  if (q->npend) clua_queue_sweep(q);
  if (k->unset || k->localcheck) launch_kernel_checks(L, "launcher", q, k);
  for (cl_uint i = 0; i < k->nargs; i++)
    if (k->argbuf[i] && *(int *)k->argbuf[i]) {
      lua_getiuservalue(L, lua_upvalueindex(2), 2);
      launch_released_arg(L, "launcher", lua_gettop(L), k, i);
    }
  if (q->cpu) clua_fatal_note(L, k->k);
  cl_event ev;
  cl_int err = clEnqueueNDRangeKernel(q->q, k->k, p->dims, p->has_offset ? p->off : NULL, p->g,
                                      p->haslocal ? p->l : NULL, 0, NULL, p->want_event ? &ev : NULL);
  if (err != CL_SUCCESS) return launch_failed(L, "launcher", q, k, err, p->dims, p->l, p->haslocal);
  return launch_made(L, q, k, p->want_event, ev);
}

static int q_launcher(lua_State *L) {
  const char *who = "queue:launcher";
  cqueue *q = clua_check_queue(L, 1);
  ckernel *k = launch_kernel(L, 2);
  if (k->ctx != q->ctx)
    clua_same_context(L, who, "clEnqueueNDRangeKernel", CL_INVALID_CONTEXT, q->ctx, k->ctx, "the kernel", "the queue");
  lua_settop(L, 5);
  clauncher c = {q, k, 0, 0, 0, 1, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}};
  c.dims = launch_sizes(L, who, 5, c.g, c.l, &c.haslocal);
  if (!lua_isnil(L, 5)) {
    luaL_checktype(L, 5, LUA_TTABLE);
    if (lua_getfield(L, 5, "wait") != LUA_TNIL)
      luaL_error(L, "%s: option 'wait' is queue:launch's: a launcher's launches wait for nothing but the "
                    "queue's order", who);
    lua_pop(L, 1);
    static const char *const valid[] = {"offset", "event", NULL};
    clua_check_options(L, 5, valid);
    c.want_event = clua_field_bool(L, 5, "event", 1);
    c.has_offset = launch_offset(L, who, c.off, c.dims);
  }
  launch_geometry(L, who, q, k, c.dims, c.g, c.l, c.haslocal);
  clauncher *p = lua_newuserdatauv(L, sizeof *p, 2);
  *p = c;
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  lua_pushvalue(L, 2);
  lua_setiuservalue(L, -2, 2);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, -2);
  lua_pushcclosure(L, launcher_call, 2);
  return 1;
}

void clua_open_launch(lua_State *L) {
  luaL_getmetatable(L, T_QUEUE);  /* q:launch, with what it makes its event with */
  lua_getfield(L, -1, "methods");
  luaL_getmetatable(L, T_EVENT);
  lua_pushliteral(L, "event");
  lua_pushliteral(L, "offset");
  lua_pushliteral(L, "wait");
  lua_pushcclosure(L, clua_queue_launch, 4);
  lua_setfield(L, -2, "launch");
  luaL_getmetatable(L, T_EVENT);
  lua_pushcclosure(L, q_launcher, 1);
  lua_setfield(L, -2, "launcher");
  lua_pop(L, 2);
}
