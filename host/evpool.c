/* Events' lifetimes: handles held in C, released once their Lua values are
   collected, without a finalizer per event.

   Every enqueue returns a cl.event, so a loop of launches makes one event a
   launch. With a __gc each, the collector moved every one to its list of
   objects to finalize and called its __gc through a protected call: on PoCL
   about 900 instructions a launch, a quarter of the driver's whole enqueue
   (docs/launch.md). Here an event's userdata (a ceventref) carries no
   finalizer; it points to a cevent in a pool of this Lua state, and a table
   with weak values maps each pool slot to its userdata. Once per collection
   cycle a sentinel (an unreferenced table with a __gc, made anew each cycle)
   sweeps the pool: a slot whose userdata the collector has cleared from the
   weak table has its handle released (clua_event_drop: exactly once, as
   e:release() does) and is free again. At the state's end the pool's own
   finalizer releases what is left.

   User events keep a finalizer of their own (a metatable of the same name
   with __gc): one dropped while commands wait for it is failed at once, and
   at the state's end before the queues those commands are in are released
   (NVIDIA's clReleaseCommandQueue waits for them).

   A userdata that outlives its slot (an event reached only from an object
   being finalized: weak values drop such objects before their finalizers
   run) finds the slot's generation changed and reads as released. */
#include "check.h"
#include "clua.h"

#include <stdlib.h>

#define CHUNK 256 /* cevents per block: blocks never move, so a cevent's address is stable */

struct evpool {
  cevent **chunks;
  int nchunks;
  int hi;   /* slots handed out so far */
  int free; /* the first free slot below hi, -1 when none */
};

static char pool_key, weak_key, user_key, sentinel_key;

static cevent *slot(evpool *p, int i) { return &p->chunks[i / CHUNK][i % CHUNK]; }

void clua_event_drop(cevent *e) {
  if (e->released) return;
  e->released = 1;
  /* a user event dropped while commands wait on it would hold them forever */
  if (e->user) {
    cl_int st = CL_COMPLETE;
    clGetEventInfo(e->ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    if (st > CL_COMPLETE) clSetUserEventStatus(e->ev, -1);
  }
  if (e->newest_of) { /* its queue's newest command: the handle goes to the queue, which releases it */
    e->newest_of->last_ev = NULL;
    e->newest_of = NULL;
  } else {
    clReleaseEvent(e->ev);
    CLUA_RELEASED(CNT_EVENT);
  }
}

static void put_back(evpool *p, cevent *e) {
  e->used = 0;
  e->gen++;
  e->next = p->free;
  p->free = e->slot;
}

/* A free slot; NULL when memory ran out. */
static cevent *take(evpool *p) {
  int i = p->free;
  if (i >= 0) {
    p->free = slot(p, i)->next;
  } else {
    if (p->hi == p->nchunks * CHUNK) {
      cevent **c = realloc(p->chunks, sizeof *c * (size_t)(p->nchunks + 1));
      if (!c) return NULL;
      p->chunks = c;
      if (!(c[p->nchunks] = calloc(CHUNK, sizeof **c))) return NULL;
      p->nchunks++;
    }
    i = p->hi++;
  }
  cevent *e = slot(p, i);
  e->slot = i;
  e->used = 1;
  return e;
}

cevent *clua_event_new(lua_State *L, evpool *p, int meta, int weak, cl_event ev) {
  ceventref *r = lua_newuserdatauv(L, sizeof *r, 0); /* may run a collection, and a sweep */
  r->e = NULL;
  lua_pushvalue(L, meta);
  lua_setmetatable(L, -2);
  cevent *e = take(p);
  if (!e) {
    clReleaseEvent(ev);
    luaL_error(L, "cl.event: out of memory");
  }
  e->released = 0;
  e->ev = ev;
  e->user = 0;
  e->newest_of = NULL;
  r->e = e;
  r->gen = e->gen;
  CLUA_CREATED(CNT_EVENT);
  lua_pushvalue(L, -1);
  lua_rawseti(L, weak, (lua_Integer)e->slot + 1); /* no collection step in a raw set */
  return e;
}

static evpool *pool_of(lua_State *L) {
  lua_rawgetp(L, LUA_REGISTRYINDEX, &pool_key);
  evpool *p = lua_touserdata(L, -1);
  lua_pop(L, 1);
  return p;
}

cevent *clua_push_event(lua_State *L, cl_event ev) {
  if (!ev) {
    lua_pushnil(L);
    return NULL;
  }
  evpool *p = pool_of(L);
  luaL_getmetatable(L, T_EVENT);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &weak_key);
  int top = lua_gettop(L);
  cevent *e = clua_event_new(L, p, top - 1, top, ev);
  lua_replace(L, top - 1);
  lua_settop(L, top - 1);
  return e;
}

/* A user event: the same as any, but released by its own finalizer. */
static int user_gc(lua_State *L) {
  ceventref *r = lua_touserdata(L, 1);
  evpool *p = pool_of(L);
  if (r && r->e && p && p->chunks && r->e->gen == r->gen) { /* at the state's end the pool may have gone first */
    clua_event_drop(r->e);
    put_back(p, r->e);
  }
  return 0;
}

cevent *clua_push_user_event(lua_State *L, cl_event ev) {
  cevent *e = clua_push_event(L, ev);
  e->user = 1;
  lua_rawgetp(L, LUA_REGISTRYINDEX, &weak_key);
  lua_pushnil(L);
  lua_rawseti(L, -2, (lua_Integer)e->slot + 1); /* the sweep leaves it to user_gc */
  lua_pop(L, 1);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &user_key);
  lua_setmetatable(L, -2);
  return e;
}

static cevent released_event = {.released = 1};

cevent *clua_test_event(lua_State *L, int idx) {
  ceventref *r = lua_touserdata(L, idx);
  if (!r || !lua_getmetatable(L, idx)) return NULL;
  luaL_getmetatable(L, T_EVENT);
  int is = lua_rawequal(L, -1, -2);
  if (!is) {
    lua_pop(L, 1);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &user_key);
    is = lua_rawequal(L, -1, -2);
  }
  lua_pop(L, 2);
  if (!is) return NULL;
  return r->e && r->e->gen == r->gen ? r->e : &released_event;
}

cevent *clua_check_event(lua_State *L, int idx) {
  cevent *e = clua_test_event(L, idx);
  if (!e) return clua_check(L, idx, T_EVENT); /* raises: "cl.event expected, got ..." */
  if (e->released) {
    lua_pushliteral(L, "attempt to use a released cl.event");
    if (idx > 0) luaL_argerror(L, idx, lua_tostring(L, -1));
    lua_error(L);
  }
  return e;
}

/* The slots whose userdata the collector has cleared from the weak table. */
static void sweep(lua_State *L, evpool *p, int weak) {
  for (int i = 0; i < p->hi; i++) {
    cevent *e = slot(p, i);
    if (!e->used || e->user) continue;
    if (lua_rawgeti(L, weak, (lua_Integer)i + 1) == LUA_TNIL) {
      clua_event_drop(e);
      put_back(p, e);
    }
    lua_pop(L, 1);
  }
}

/* A new sentinel: unreferenced, so the next cycle finalizes it. */
static void arm(lua_State *L) {
  lua_newtable(L);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &sentinel_key);
  lua_setmetatable(L, -2);
  lua_pop(L, 1);
}

/* The sentinel's __gc: sweeps, and leaves a sentinel for the next cycle (at
   the state's end, Lua marks no new object for finalization). */
static int sentinel_gc(lua_State *L) {
  evpool *p = pool_of(L);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &weak_key);
  if (p && lua_istable(L, -1)) sweep(L, p, lua_gettop(L));
  lua_pop(L, 1);
  arm(L);
  return 0;
}

/* The pool's __gc, at the state's end: every handle still held, then the
   pool's memory. */
static int pool_gc(lua_State *L) {
  evpool *p = lua_touserdata(L, 1);
  for (int i = 0; i < p->hi; i++) {
    cevent *e = slot(p, i);
    if (e->used) clua_event_drop(e);
  }
  for (int i = 0; i < p->nchunks; i++) free(p->chunks[i]);
  free(p->chunks);
  p->chunks = NULL;
  p->nchunks = p->hi = 0;
  p->free = -1;
  return 0;
}

/* Copies cl.event's metatable into t (at the top), less its identity. */
static void copy_event_meta(lua_State *L) {
  luaL_getmetatable(L, T_EVENT);
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, -5);
  }
  lua_pop(L, 1);
  lua_pushcfunction(L, user_gc);
  lua_setfield(L, -2, "__gc");
}

/* Once per Lua state: the module may be opened again (busted clears
   package.loaded between spec files), and its events must stay in one pool. */
void clua_open_evpool(lua_State *L) {
  if (lua_rawgetp(L, LUA_REGISTRYINDEX, &pool_key) != LUA_TNIL) {
    lua_pop(L, 1);
    lua_rawgetp(L, LUA_REGISTRYINDEX, &user_key);
    copy_event_meta(L);  /* the methods of this opening */
    lua_pop(L, 1);
    return;
  }
  lua_pop(L, 1);
  evpool *p = lua_newuserdatauv(L, sizeof *p, 0);
  p->chunks = NULL;
  p->nchunks = p->hi = 0;
  p->free = -1;
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, pool_gc);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &pool_key);

  lua_newtable(L);
  lua_createtable(L, 0, 1);
  lua_pushliteral(L, "v");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &weak_key);

  /* user events: a copy of cl.event's metatable, with a __gc */
  lua_createtable(L, 0, 8);
  copy_event_meta(L);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &user_key);

  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, sentinel_gc);
  lua_setfield(L, -2, "__gc");
  lua_rawsetp(L, LUA_REGISTRYINDEX, &sentinel_key);
  arm(L);
}

/* For q:launch, which holds them as upvalues. */
void clua_push_evpool(lua_State *L) {
  lua_pushlightuserdata(L, pool_of(L));
  lua_rawgetp(L, LUA_REGISTRYINDEX, &weak_key);
}
