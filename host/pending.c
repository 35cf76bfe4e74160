/* A queue's commands once enqueued, apart from the queue type (queue.c), as
   luv keeps lifetimes (lhandle.c, lreq.c) apart from its handle types: the
   queues not released yet, which clua_settle_all waits for at the end; the
   newest command of each, which settling waits for; the non-blocking
   transfers still using host memory (pending); and the orphans, the commands
   of released queues that had not ended, held until they end and waited for
   at exit (clua_exit_wait). */
#include "objects.h"
#include "hostmem.h"
#include "events.h"
#include "queue.h"
#include "deadline.h"
#include "state.h"
#include "clua.h"
#include "compiler.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <time.h>

/* The queues not released yet, for clua_settle_all. */
static cqueue *live;

void clua_queue_live(cqueue *q) {
  q->live_next = live;
  if (live) live->live_prev = q;
  live = q;
}

static void live_remove(cqueue *q) {
  if (q->live_prev) q->live_prev->live_next = q->live_next;
  else if (live == q) live = q->live_next;
  if (q->live_next) q->live_next->live_prev = q->live_prev;
  q->live_prev = q->live_next = NULL;
}

static int finish_by(cqueue *q, double deadline);

void clua_settle_all(void) {
  double deadline = clua_deadline();
  if (deadline <= 0 || clua_given_up) return;
  for (cqueue *q = live; q; q = q->live_next)
    if (q->busy && !finish_by(q, deadline)) {
      clua_abandon();
      return;
    }
}

/* ---- pending non-blocking transfers ---- */

static void drop_pending(cqueue *q, int i) {
  clReleaseEvent(q->pend[i].ev);
  CLUA_RELEASED(CNT_EVENT);
  if (q->pend[i].mem) hostmem_unref(q->pend[i].mem);
  q->pend[i] = q->pend[--q->npend];
}

void clua_queue_sweep(cqueue *q) {
  for (int i = q->npend - 1; i >= 0; i--) {
    cl_int st = CL_QUEUED;
    clGetEventInfo(q->pend[i].ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    if (st <= CL_COMPLETE) drop_pending(q, i);
  }
}

void clua_queue_hold(lua_State *L, cqueue *q, cl_event ev, hostmem *m) {
  if (q->npend == q->cappend) {
    int cap = q->cappend ? q->cappend * 2 : 16;
    pending *p = realloc(q->pend, sizeof *p * (size_t)cap);
    if (!p) {
      clWaitForEvents(1, &ev);  /* cannot track it: make it safe now */
      luaL_error(L, "queue: out of memory");
    }
    q->pend = p;
    q->cappend = cap;
  }
  clRetainEvent(ev);
  CLUA_CREATED(CNT_EVENT);
  hostmem_ref(m);
  q->pend[q->npend].ev = ev;
  q->pend[q->npend].mem = m;
  q->npend++;
}

void clua_queue_drain(cqueue *q) {
  if (q->npend) {
    cl_event evs[1];
    for (int i = q->npend - 1; i >= 0; i--) {
      evs[0] = q->pend[i].ev;
      clWaitForEvents(1, evs);
      drop_pending(q, i);
    }
  }
}

/* The commands of released queues that had not ended, swept with any
   queue's: their non-blocking transfers, whose host memory is held here until
   they end, and the newest command of each (memory NULL), which the process
   waits for at its end (clua_exit_wait): PoCL 3.1 aborts when a process ends
   while it compiles a kernel for a launch. Nothing else waits for them, so
   releasing a queue whose commands wait on a user event never blocks. */
static cqueue orphans;

/* Moves q's pending entry i to the orphans (i < 0: adds ev, memory NULL);
   returns 0 when there is no memory for it. */
static int orphan(cqueue *q, int i, cl_event ev) {
  if (orphans.npend == orphans.cappend) {
    int cap = orphans.cappend ? orphans.cappend * 2 : 16;
    pending *p = realloc(orphans.pend, sizeof *p * (size_t)cap);
    if (!p) return 0;
    orphans.pend = p;
    orphans.cappend = cap;
  }
  if (i >= 0) {  /* the event and the reference move */
    orphans.pend[orphans.npend++] = q->pend[i];
    q->pend[i] = q->pend[--q->npend];
  } else {
    orphans.pend[orphans.npend].ev = ev;
    orphans.pend[orphans.npend++].mem = NULL;
  }
  return 1;
}

void clua_exit_wait(void) {
  if (clua_given_up) return;
  double deadline = clua_deadline();  /* cl.timeout holds here too: past it, the commands are abandoned */
  for (int i = 0; i < orphans.npend; i++) {
    cl_int st = CL_QUEUED;
    while (!clua_interrupted &&
           clGetEventInfo(orphans.pend[i].ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL) == CL_SUCCESS &&
           st > CL_COMPLETE) {
      if (clua_past(deadline)) {
        clua_abandon();
        return;
      }
      struct timespec ts = {0, 200000};
      nanosleep(&ts, NULL);
    }
  }
}

/* Waits, polling, until the queue's commands are done or the deadline passes
   (0: no deadline, no wait); returns 0 when they still run then. No Lua
   here: it runs in __gc too. */
static int finish_by(cqueue *q, double deadline) {
  if (deadline <= 0) return 1;
  cl_event ev = q->last;
  int own = !ev;
  if (own) {
    if (clEnqueueMarkerWithWaitList(q->q, 0, NULL, &ev) != CL_SUCCESS) return 1;  /* nothing to wait for */
    CLUA_CREATED(CNT_EVENT);
  }
  clFlush(q->q);
  cl_int st = CL_QUEUED;
  while (clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL) == CL_SUCCESS &&
         st > CL_COMPLETE && !clua_interrupted && !clua_past(deadline)) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
  }
  if (own) {
    clReleaseEvent(ev);
    CLUA_RELEASED(CNT_EVENT);
  }
  return st <= CL_COMPLETE;
}

/* Before a queue's method: drops the completed transfers of q and of the
   orphans. */
void clua_queue_sweep_all(cqueue *q) {
  if (q->npend) clua_queue_sweep(q);
  if (orphans.npend) clua_queue_sweep(&orphans);
}

/* At a queue's release, before its handle's: takes it off the live queues,
   waits for its commands under cl.timeout, and hands what may still run (its
   non-blocking transfers and its newest command) to the orphans. */
void clua_queue_orphan(cqueue *q) {
  live_remove(q);
  clFlush(q->q);
  /* NVIDIA's clReleaseCommandQueue waits for the queue's commands, however
     long. With a deadline (cl.timeout) they are waited for here first, and
     past it every object is given up, as after a wait that timed out. */
  if (q->busy && !clua_given_up && !finish_by(q, clua_deadline())) clua_abandon();
  clua_queue_sweep(q);
  for (int i = q->npend - 1; i >= 0; i--)
    if (!orphan(q, i, NULL)) {  /* cannot hold it: wait for it here */
      clWaitForEvents(1, &q->pend[i].ev);
      drop_pending(q, i);
    }
  if (orphans.npend) clua_queue_sweep(&orphans);
  if (q->busy && !clua_given_up) {  /* its newest command, for clua_exit_wait */
    cl_event ev = q->last;
    if (ev && q->last_ev && clRetainEvent(ev) == CL_SUCCESS) CLUA_CREATED(CNT_EVENT);  /* borrowed: now owned */
    if (q->last_ev) q->last_ev->newest_of = NULL;
    q->last_ev = NULL;
    q->last = NULL;  /* moves, counted as it was */
    if (!ev && clEnqueueMarkerWithWaitList(q->q, 0, NULL, &ev) == CL_SUCCESS) {
      CLUA_CREATED(CNT_EVENT);
      clFlush(q->q);  /* clua_exit_wait polls it */
    }
    if (ev && !orphan(q, -1, ev)) {
      clReleaseEvent(ev);
      CLUA_RELEASED(CNT_EVENT);
    }
  }
  clua_queue_enqueued(q, 0, NULL);
  free(q->pend);
  q->pend = NULL;
}

/* ---- the newest command ---- */

/* Lets go of the newest command: a borrowed handle stays its event's alone. */
static void drop_last(cqueue *q) {
  if (!q->last) return;
  if (q->last_ev) {
    q->last_ev->newest_of = NULL;
    q->last_ev = NULL;
  } else {
    clReleaseEvent(q->last);
    CLUA_RELEASED(CNT_EVENT);
  }
  q->last = NULL;
}

CLUA_HOT void clua_queue_launched(cqueue *q, cevent *e) {
  drop_last(q);
  q->busy = 1;
  if (e && !q->ooo) {
    q->last = e->ev;
    q->last_ev = e;
    e->newest_of = q;
  }
}

void clua_queue_enqueued(cqueue *q, int busy, cl_event ev) {
  drop_last(q);
  q->busy = busy;
  if (busy && ev && !q->ooo && clRetainEvent(ev) == CL_SUCCESS) {
    CLUA_CREATED(CNT_EVENT);
    q->last = ev;
  }
}
