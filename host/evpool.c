/* Events' lifetimes: handles held in C, released when the memory of their
   Lua values is freed, without a finalizer or a weak table per event.

   Every enqueue returns a cl.event, so a loop of launches makes one event a
   launch. With a __gc each, the collector moved every one to its list of
   objects to finalize and called its __gc through a protected call: on PoCL
   about 900 instructions a launch, a quarter of the driver's whole enqueue
   (docs/notes/launch.md). A table with weak values, swept once a cycle, cost 150
   more and touched every slot and every userdata again each cycle.

   Here an event's userdata (a ceventref: its slot, a mark) carries no
   finalizer; it points to a cevent in a pool of this Lua state (blocks of
   256 that never move), and the cevent points back to it. The state's
   allocator is wrapped (lua_setallocf): when Lua frees a block of an event
   userdata's size, and the block holds the mark and a slot whose cevent
   points back to that very block, the block is that event's userdata and the
   collector has found it dead: its handle is released (clua_event_drop:
   exactly once, as e:release() does) and the slot is free again. No other
   block can pass the test: a cevent points to its userdata only while that
   userdata's memory is allocated, and no other object shares that address
   meanwhile. An event is released when the collector frees it, after every
   finalizer that could still reach it has run.

   At the state's end the pool's own finalizer releases what is left and puts
   the state's allocator back (Lua frees the pool's memory itself after it).

   User events keep a finalizer of their own (a metatable of the same name
   with __gc): one dropped while commands wait for it is failed at once, and
   at the state's end before the queues those commands are in are released
   (NVIDIA's clReleaseCommandQueue waits for them). A user event's userdata
   that outlives its finalizer (reached from another object being finalized)
   finds the slot's generation changed and reads as released. */
#include "check.h"
#include "objects.h"
#include "events.h"
#include "queue.h"
#include "compiler.h"

#include <stdlib.h>

#define CHUNK 256 /* cevents per block: blocks never move, so a cevent's address is stable */

#define EVENT_MARK 0x746e7665u /* "evnt" */

#define KEEP_MAX 65536 /* freed blocks of an event's size kept for the next events */

/* The allocator around the state's own: malloc'd, since it may outlive the
   pool where another library wrapped the allocator after this one. */
typedef struct evhook {
  lua_Alloc base; /* the allocator wrapped */
  void *base_ud;
  evpool *pool;   /* NULL once the pool has gone */
  void *newest;   /* the newest userdata's block and its size, until udsize is known */
  size_t newest_size;
  size_t udsize;  /* the block size of an event's userdata (0: none is) */
  size_t udoff;   /* where its ceventref starts in the block */
  void *kept;     /* freed blocks of udsize bytes, a list through their first word */
  int nkept;
} evhook;

struct evpool {
  cevent **chunks;
  int nchunks;
  int hi;   /* slots handed out so far */
  int free; /* the first free slot below hi, -1 when none */
  int made; /* events made since the last step of clua_events_settled */
  evhook *hook;
};

static char pool_key, user_key;

static cevent *slot(evpool *p, int i) { return &p->chunks[i / CHUNK][i % CHUNK]; }

CLUA_HOT void clua_event_drop(cevent *e) {
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
  e->ref = NULL;
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

/* A block Lua frees, of an event userdata's size: if it is an event's
   userdata (the mark, a slot in range, and that slot pointing back to it),
   the event is released and its slot freed. A user event's slot was freed
   by its finalizer before. */
static void reclaim(evpool *p, ceventref *r) {
  if (r->mark != EVENT_MARK || r->slot < 0 || r->slot >= p->hi) return;
  cevent *e = slot(p, r->slot);
  if (!e->used || e->ref != r) return;
  clua_event_drop(e);
  put_back(p, e);
}

/* A launch makes an event's block and the collector frees one: blocks of
   that size wait on a list of the hook's own and are handed out again in a
   few instructions, not through the allocator wrapped (glibc's malloc, or
   the clua program's size classes behind malloc_usable_size: some 100
   instructions a launch). Every block on the list came from that allocator
   with at least udsize bytes, and goes back to it at the pool's end. */
static CLUA_HOT void *hook_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  evhook *h = ud;
  if (ptr && nsize == 0 && osize == h->udsize && h->pool) {
    reclaim(h->pool, (ceventref *)((char *)ptr + h->udoff));
    if (h->nkept < KEEP_MAX) {
      *(void **)ptr = h->kept;
      h->kept = ptr;
      h->nkept++;
      POISON(ptr, osize);
      return NULL;
    }
  } else if (!ptr && nsize == h->udsize && h->kept) { /* osize: the kind of object, any of this size */
    void *b = h->kept;
    UNPOISON(b, nsize);
    h->kept = *(void **)b;
    h->nkept--;
    return b;
  }
  void *b = h->base(h->base_ud, ptr, osize, nsize);
  if (!ptr && osize == LUA_TUSERDATA && !h->udsize) { /* a new userdata (osize is the kind of object) */
    h->newest = b;
    h->newest_size = nsize;
  }
  return b;
}

CLUA_HOT cevent *clua_event_new(lua_State *L, evpool *p, int meta, cl_event ev) {
  ceventref *r = lua_newuserdatauv(L, sizeof *r, 0); /* may run a collection */
  r->e = NULL;
  r->mark = 0;
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
  e->ref = r;
  r->e = e;
  r->gen = e->gen;
  r->slot = e->slot;
  r->mark = EVENT_MARK;
  p->made++;
  CLUA_CREATED(CNT_EVENT);
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
  cevent *e = clua_event_new(L, p, lua_gettop(L), ev);
  lua_replace(L, -2);
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

/* After q:finish(), once SETTLE_AFTER events or more were made since the last
   time: one step of the collector (a young collection in Lua's generational
   mode), so that the events the program dropped since the collector's last
   cycle are released now, while it waits anyway, not in the middle of its
   next loop of enqueues. On PoCL the release of a loop's last event, its
   command ended, takes about 1 ms after 10000 launches (0.07 ms after 1000:
   the block it frees makes glibc consolidate the small blocks the loop's
   ended commands left): left to the collector, it fell in the next loop
   (docs/notes/launch.md). From a
   finalizer (q:finish() in a __gc) lua_gc does nothing (Lua 5.4.4). */
#define SETTLE_AFTER 256

void clua_events_settled(lua_State *L, evpool *p) {
  if (!p || p->made < SETTLE_AFTER) return;
  p->made = 0;
  lua_gc(L, LUA_GCSTEP, 0);
}

/* The pool's __gc, at the state's end: every handle still held, the
   state's allocator put back, then the pool's memory. */
static int pool_gc(lua_State *L) {
  evpool *p = lua_touserdata(L, 1);
  for (int i = 0; i < p->hi; i++) {
    cevent *e = slot(p, i);
    if (e->used) clua_event_drop(e);
  }
  evhook *h = p->hook;
  while (h && h->kept) { /* the blocks kept, back to the allocator they came from */
    void *b = h->kept;
    UNPOISON(b, h->udsize);
    h->kept = *(void **)b;
    h->base(h->base_ud, b, h->udsize, 0);
  }
  if (h) h->nkept = 0;
  void *ud;
  if (h && lua_getallocf(L, &ud) == hook_alloc && ud == h) {
    lua_setallocf(L, h->base, h->base_ud);
    free(h);
  } else if (h) {
    h->pool = NULL; /* wrapped again since: it stays, passing everything on */
  }
  p->hook = NULL;
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
  p->made = 0;
  p->hook = malloc(sizeof *p->hook);
  if (p->hook) { /* else events are released at the state's end only */
    evhook *h = p->hook;
    h->base = lua_getallocf(L, &h->base_ud);
    h->pool = p;
    h->newest = NULL;
    h->newest_size = 0;
    h->udsize = h->udoff = 0;
    h->kept = NULL;
    h->nkept = 0;
    lua_setallocf(L, hook_alloc, h);
    /* Where a ceventref lies in its block: a probe made with the collector
       stopped, so that no finalizer makes another userdata meanwhile. */
    int running = lua_gc(L, LUA_GCISRUNNING);
    lua_gc(L, LUA_GCSTOP);
    ceventref *probe = lua_newuserdatauv(L, sizeof *probe, 0);
    probe->mark = 0;
    if (h->newest && (char *)probe > (char *)h->newest &&
        (char *)probe + sizeof *probe == (char *)h->newest + h->newest_size) {
      h->udoff = (size_t)((char *)probe - (char *)h->newest);
      h->udsize = h->newest_size;
    }
    lua_pop(L, 1);
    if (running) lua_gc(L, LUA_GCRESTART);
  }
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, pool_gc);
  lua_setfield(L, -2, "__gc");
  lua_setmetatable(L, -2);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &pool_key);

  /* user events: a copy of cl.event's metatable, with a __gc */
  lua_createtable(L, 0, 8);
  copy_event_meta(L);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &user_key);
}

/* For a new queue, which keeps it for q:launch and q:finish. */
evpool *clua_evpool(lua_State *L) { return pool_of(L); }
