/* The clua program's Lua allocator: small blocks kept for reuse.

   Lua asks its allocator for every object. With the C library's realloc and
   free alone (lauxlib's l_alloc), a loop that makes one small object an
   iteration (an event a launch) pays glibc's general paths at each: the
   collector frees thousands of blocks at once, more than glibc's per-thread
   cache holds, so most go through _int_free and come back through
   _int_malloc, about 300 instructions a block on the enqueuing thread
   (docs/notes/launch.md). Here blocks of up to MAXSMALL bytes, once freed, wait on
   a list per 16-byte size class and are handed out again in a few
   instructions; everything else goes to realloc and free as before.

   A block is filed by its usable size (malloc_usable_size), so a block in
   class c holds at least (c + 1) * 16 bytes whatever made it, blocks from
   the state's own l_alloc included. At most MAXCACHED bytes wait on the
   lists; past that, frees go to the C library. Under AddressSanitizer a
   waiting block is poisoned, so a use after free is still reported. */
#include "alloc.h"
#include "compiler.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#define GRAIN 16
#define MAXSMALL 128                /* the largest size served from the lists */
#define NCLASS (MAXSMALL / GRAIN)   /* class c: blocks of (c + 1) * GRAIN bytes */
#define MAXCACHED (64u << 20)       /* bytes waiting on the lists, at most */

struct clua_alloc {
  void *free[NCLASS];
  size_t cached;
};

/* The class that serves a request of n (1..MAXSMALL) bytes. */
static int class_for(size_t n) { return (int)((n - 1) / GRAIN); }

/* A freed block back onto its list, or to the C library. */
static void release(clua_alloc *a, void *p) {
  size_t have = malloc_usable_size(p);
  if (have < GRAIN || a->cached + have > MAXCACHED) {
    free(p);
    return;
  }
  int c = (int)(have / GRAIN) - 1;
  if (c >= NCLASS) {
    free(p);
    return;
  }
  *(void **)p = a->free[c];
  a->free[c] = p;
  a->cached += (size_t)(c + 1) * GRAIN;
  POISON(p, (size_t)(c + 1) * GRAIN);
}

/* A block of at least n (1..MAXSMALL) bytes: a waiting one, else a new one
   of its class's whole size. */
static void *take(clua_alloc *a, size_t n) {
  int c = class_for(n);
  void *p = a->free[c];
  if (p) {
    UNPOISON(p, (size_t)(c + 1) * GRAIN);
    a->free[c] = *(void **)p;
    a->cached -= (size_t)(c + 1) * GRAIN;
    return p;
  }
  return malloc((size_t)(c + 1) * GRAIN);
}

/* lua_Alloc: osize is the block's size when p is not NULL (a kind of
   object otherwise); nsize 0 frees. */
static CLUA_HOT void *clua_allocf(void *ud, void *p, size_t osize, size_t nsize) {
  clua_alloc *a = ud;
  if (nsize == 0) {
    if (p) release(a, p);
    return NULL;
  }
  if (!p) return nsize <= MAXSMALL ? take(a, nsize) : malloc(nsize);
  if (nsize <= MAXSMALL) {
    if (osize <= MAXSMALL && nsize <= malloc_usable_size(p)) return p; /* it fits as it is */
    void *q = take(a, nsize);
    if (!q) return nsize <= osize ? p : NULL; /* a shrink may keep its block */
    memcpy(q, p, osize < nsize ? osize : nsize);
    release(a, p);
    return q;
  }
  if (osize <= MAXSMALL) { /* small to large: the small block may wait on a list */
    void *q = malloc(nsize);
    if (!q) return NULL;
    memcpy(q, p, osize);
    release(a, p);
    return q;
  }
  return realloc(p, nsize);
}

clua_alloc *clua_alloc_use(lua_State *L) {
  clua_alloc *a = calloc(1, sizeof *a);
  if (a) lua_setallocf(L, clua_allocf, a); /* else the state keeps l_alloc */
  return a;
}

void clua_alloc_end(clua_alloc *a) {
  if (!a) return;
  for (int c = 0; c < NCLASS; c++)
    for (void *p = a->free[c]; p;) {
      UNPOISON(p, (size_t)(c + 1) * GRAIN);
      void *next = *(void **)p;
      free(p);
      p = next;
    }
  free(a);
}
