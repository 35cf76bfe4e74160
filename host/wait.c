/* Waits for events: the wait lists commands take (opts.wait, read from Lua
   values into handles) and the wait itself, which Ctrl-C and cl.timeout can
   end where the driver's clWaitForEvents cannot. Events themselves live in
   event.c (the cl.event type) and evpool.c (their lifetimes). */
#include "check.h"
#include "events.h"
#include "wait.h"
#include "deadline.h"
#include "state.h"
#include "sim.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

/* Interruptible waits: the events' completion callbacks wake a condition
   variable that the waiting thread checks every 50 ms, and clua_interrupted
   and the deadline (cl.timeout) with it. Lua runs in one thread, so there is one wait at a time; the
   callbacks of an abandoned (interrupted) wait find a newer generation and
   do nothing. */
static pthread_mutex_t wait_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wait_cv = PTHREAD_COND_INITIALIZER;
static uintptr_t wait_gen;
static cl_uint wait_left;

static void CL_CALLBACK wait_done(cl_event ev, cl_int status, void *gen) {
  (void)ev;
  (void)status;
  pthread_mutex_lock(&wait_mu);
  if ((uintptr_t)gen == wait_gen && wait_left && --wait_left == 0) pthread_cond_signal(&wait_cv);
  pthread_mutex_unlock(&wait_mu);
}

/* How many of the events have not ended; *failed: whether one ended in error. */
static cl_uint not_done(const cl_event *list, cl_uint n, int *failed) {
  cl_uint left = 0;
  *failed = 0;
  for (cl_uint i = 0; i < n; i++) {
    cl_int st = CL_COMPLETE;
    clGetEventInfo(list[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    left += st > CL_COMPLETE;
    *failed |= st < 0;
  }
  return left;
}

/* What clWaitForEvents returns for events that have all ended, without the
   call (a round trip's last driver call, on the H100 a microsecond). */
#define ENDED(failed) ((failed) ? CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST : CL_SUCCESS)

/* Whether the queue's device is a CPU: the last queue asked about is kept
   (a round trip asked the driver three times per wait). */
static int on_cpu(cl_event ev) {
  static cl_command_queue known;
  static int cpu = 1;
  if (!clua_cpu_queue_made) return 0;  /* no CPU device's queue in this process: no driver call */
  cl_command_queue cq = NULL;
  if (clGetEventInfo(ev, CL_EVENT_COMMAND_QUEUE, sizeof cq, &cq, NULL) != CL_SUCCESS || !cq) return 1;
  if (cq != known) {
    cl_device_id dev = NULL;
    cl_device_type type = CL_DEVICE_TYPE_CPU;
    if (clGetCommandQueueInfo(cq, CL_QUEUE_DEVICE, sizeof dev, &dev, NULL) == CL_SUCCESS)
      clGetDeviceInfo(dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    known = cq;
    cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
  }
  return cpu;
}

int clua_cpu_queue_made;

void clua_flush_events(cl_uint n, const cl_event *list) {
  cl_command_queue last = NULL;
  for (cl_uint i = 0; i < n; i++) {
    cl_command_queue cq = NULL;  /* NULL for a user event */
    if (clGetEventInfo(list[i], CL_EVENT_COMMAND_QUEUE, sizeof cq, &cq, NULL) == CL_SUCCESS && cq && cq != last) {
      clFlush(cq);
      last = cq;
    }
  }
}

cl_int clua_wait_list(lua_State *L, const char *method, cl_uint n, const cl_event *list) {
  /* One pass: each event's status, and for one not ended its type (two
     driver calls at most: a round trip's wait on the H100 made four) */
  int failed = 0;
  cl_uint left = 0;
  for (cl_uint i = 0; i < n; i++) {
    cl_int st = CL_COMPLETE;
    clGetEventInfo(list[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    failed |= st < 0;
    if (st <= CL_COMPLETE) continue;
    left++;
    cl_command_type t = 0;
    clGetEventInfo(list[i], CL_EVENT_COMMAND_TYPE, sizeof t, &t, NULL);
    if (t == CL_COMMAND_USER)
      luaL_error(L, "%s: event %d is a user event not completed yet: the wait would never end (complete it first)",
                 method, (int)i + 1);
  }
  if (!left) return ENDED(failed);
  /* On a GPU with no deadline: the driver's own blocking wait, as a C
     program's. Polling the event's status (or registering callbacks, which
     NVIDIA's driver serves the same way) slowed the kernel being waited for:
     uncoalesced copies on an H100 timed 2-6% slower by their own events than
     the same kernels waited for with clWaitForEvents (docs/notes/compare.md). A ^C
     cannot stop that wait: during it, main.c's handler ends the process at
     once, saying so (clua_direct_wait). */
  double deadline = clua_deadline();
  if (deadline <= 0 && !on_cpu(list[0])) {
    clua_direct_wait = 1;
    cl_int err = clWaitForEvents(n, list);
    clua_direct_wait = 0;
    return err;
  }
  /* OpenCL promises that a polled or called-back command progresses only once
     its queue was flushed (Oclgrind runs nothing before): one clFlush, cheap
     on a queue already flushed. */
  clua_flush_events(n, list);
  /* With a deadline the wait must end on time and on ^C: callbacks and a
     condition variable. On a GPU a moment of polling answers short commands
     sooner than a wake-up; on a CPU device it would take a core from the
     command itself. */
  if (!on_cpu(list[0])) {
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
      if (!not_done(list, n, &failed)) return ENDED(failed);
      clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((now.tv_sec - t0.tv_sec) * 1000000000L + (now.tv_nsec - t0.tv_nsec) < 200000);
  }
  pthread_mutex_lock(&wait_mu);
  uintptr_t gen = ++wait_gen;
  wait_left = n;
  pthread_mutex_unlock(&wait_mu);
  for (cl_uint i = 0; i < n; i++)
    if (clSetEventCallback(list[i], CL_COMPLETE, wait_done, (void *)gen) != CL_SUCCESS) wait_done(list[i], 0, (void *)gen);
  int ended = !not_done(list, n, &failed);  /* ran at the flush (Oclgrind does), or before a callback was set */
  pthread_mutex_lock(&wait_mu);
  if (ended) wait_left = 0;
  int late = 0;
  while (wait_left && !clua_interrupted && !(late = clua_past(deadline))) {
    clua_keep_sigint();
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 50000000;
    if (ts.tv_nsec >= 1000000000) {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000;
    }
    if (pthread_cond_timedwait(&wait_cv, &wait_mu, &ts) && wait_left) {
      /* every 50 ms, the status too: Oclgrind 21.10 never calls back for an
         event that had ended when the callback was set */
      pthread_mutex_unlock(&wait_mu);
      ended = !not_done(list, n, &failed);
      pthread_mutex_lock(&wait_mu);
      if (ended) wait_left = 0;
    }
  }
  int done = wait_left == 0;
  wait_gen++;
  pthread_mutex_unlock(&wait_mu);
  if (!done && late) clua_timed_out(L, method, n, list);  /* raises */
  if (!done) {  /* the commands go on; the script ends, and its objects are released on the way out */
    clua_interrupted = 0;
    lua_sethook(L, NULL, 0, 0);  /* main.c's hook for the same ^C */
    luaL_error(L, "%s: interrupted", method);
  }
  return clWaitForEvents(n, list);
}


/* The event on top of the stack, for wait[i] of method. An event that already
   ended with an error is refused: a command waiting for it would never run on
   some drivers (PoCL leaves it queued forever). */
static cl_event wait_event(lua_State *L, const char *method, lua_Integer i, cl_context *ctx) {
  cevent *e = clua_test_event(L, -1);
  if (!e) luaL_error(L, "%s: wait[%I] must be a cl.event, got %s", method, i, luaL_typename(L, -1));
  if (e->released) luaL_error(L, "%s: wait[%I] is a released cl.event", method, i);
  /* OpenCL asks drivers to refuse these (CL_INVALID_CONTEXT); not all do */
  cl_context c = NULL;
  clGetEventInfo(e->ev, CL_EVENT_CONTEXT, sizeof c, &c, NULL);
  if (!*ctx) *ctx = c;
  else if (c != *ctx)
    luaL_error(L, "%s: wait[%I] is an event of another context (CL_INVALID_CONTEXT): %s", method, i,
               strcmp(method, "cl.wait") ? "a command waits only for events of its queue's context"
                                         : "the events waited for together must be of one context");
  cl_int st = CL_COMPLETE;
  if (strcmp(method, "cl.wait"))  /* cl.wait itself reports how the events ended */
    clGetEventInfo(e->ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
  if (st < 0) {
    const char *name = clua_errname(st);
    luaL_error(L, "%s: wait[%I] ended with an error (status %d%s%s): a command waiting for it would never run", method,
               i, (int)st, name ? ", " : "", name ? name : "");
  }
  return e->ev;
}


cl_uint clua_waitlist(lua_State *L, int t, const char *method, cl_context ctx, cl_event **out) {
  *out = NULL;
  if (lua_isnoneornil(L, t)) { lua_pushnil(L); return 0; }
  int tt = lua_getfield(L, t, "wait");
  if (tt == LUA_TNIL) return 0;  /* leaves nil */
  if (tt == LUA_TUSERDATA && clua_test_event(L, -1)) {
    cl_event *list = lua_newuserdatauv(L, sizeof(cl_event), 0);
    lua_pushvalue(L, -2);
    list[0] = wait_event(L, method, 1, &ctx);
    lua_pop(L, 1);
    lua_remove(L, -2);
    *out = list;
    if (clua_sim_any) clua_sim_waits(1, list);
    return 1;
  }
  if (tt != LUA_TTABLE) luaL_error(L, "%s: option 'wait' must be an event or a list of events, got %s", method, luaL_typename(L, -1));
  lua_Integer n = luaL_len(L, -1);
  if (n <= 0) { lua_pop(L, 1); lua_pushnil(L); return 0; }
  if (n > 65536) luaL_error(L, "%s: option 'wait' lists %I events, more than 65536", method, n);
  cl_event *list = lua_newuserdatauv(L, sizeof(cl_event) * (size_t)n, 0);
  for (lua_Integer i = 1; i <= n; i++) {
    lua_geti(L, -2, i);
    list[i - 1] = wait_event(L, method, i, &ctx);
    lua_pop(L, 1);
  }
  lua_remove(L, -2);
  *out = list;
  if (clua_sim_any) clua_sim_waits((cl_uint)n, list);
  return (cl_uint)n;
}
