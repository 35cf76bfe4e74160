/* Events (event.c, the cl.event type; evpool.c, their lifetimes). An
   event's state lives in a pool in C, not in its userdata (a ceventref), so
   that the event needs no finalizer: it is released when Lua frees its
   userdata's memory. */
#ifndef CLUA_EVENTS_H
#define CLUA_EVENTS_H

#include <lua.h>

#include "opencl.h"

typedef struct cevent_s {
  int released;
  cl_event ev;
  int user;
  struct cqueue_s *newest_of; /* the queue whose newest command this is: at release, the handle goes to the queue */
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
   the last one, so that those dropped are released now. */
void clua_events_settled(lua_State *L, evpool *p);
/* The pool, once per state: from clua_open_event, once cl.event's
   metatable is made. */
void clua_open_evpool(lua_State *L);

#endif
