/* Command queues (queue.c) and what their commands hold once enqueued
   (pending.c), for the files that enqueue: launch.c, image.c, sim.c. */
#ifndef CLUA_QUEUE_H
#define CLUA_QUEUE_H

#include <lua.h>

#include "opencl.h"

struct hostmem;
struct cevent_s;
struct evpool;

/* A non-blocking transfer still using host memory. */
typedef struct pending { cl_event ev; struct hostmem *mem; } pending;

/* The first word of a queue's userdata after `released` (a kernel's has its
   own, objects.h): q:launch knows its queue by size and mark. */
#define CLUA_MARK_QUEUE 0x65757571u  /* "queu" */
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

/* A queue has a metatable of its own (queue.c): it is known by its
   userdata's size and mark. test: the queue at idx or NULL; check: raises
   as clua_check does ("cl.queue expected, got ...", "attempt to use a
   released cl.queue"). */
cqueue *clua_test_queue(lua_State *L, int idx);
cqueue *clua_check_queue(lua_State *L, int idx);
/* Before a blocking command: waits (interruptibly) for what it would wait
   for inside the driver: the queue's earlier commands and the wait list. */
void clua_queue_settle(lua_State *L, cqueue *q, const char *method, cl_uint nw, const cl_event *wl);

/* pending.c. clua_queue_live: a new queue joins the queues not released yet
   (clua_settle_all, clua.h). */
void clua_queue_live(cqueue *q);
/* After an enqueue: busy (the command may still run) and its event (NULL when
   it failed or made none). */
void clua_queue_enqueued(cqueue *q, int busy, cl_event ev);
/* After a launch: as clua_queue_enqueued, but the queue borrows the handle of
   the launch's event e (NULL: a launch without event) instead of retaining it. */
void clua_queue_launched(cqueue *q, struct cevent_s *e);
/* A non-blocking transfer's event ev (retained) and its host memory m
   (referenced), held until it completes; raises when out of memory. */
void clua_queue_hold(lua_State *L, cqueue *q, cl_event ev, struct hostmem *m);
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

#endif
