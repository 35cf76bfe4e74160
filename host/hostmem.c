/* _DEFAULT_SOURCE: MAP_ANONYMOUS for mmap() of big arrays */
#define _DEFAULT_SOURCE
/* Host memory shared by an array, its slices, the mappings of a buffer and
   pending transfers: freed when the last holder lets go. */
#include "objects.h"
#include "hostmem.h"

#include <lauxlib.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>

/* ---- host memory ---- */

hostmem *hostmem_new(lua_State *L, size_t size) {
  hostmem *m = calloc(1, sizeof *m);
  void *p = NULL;
  /* 4 KiB alignment: what pageable transfers and use_host_ptr like best. From
     16 MiB, pages straight from mmap(): zero already, and touched only when
     used (zeroing 4.5 GiB page by page took 39 s in a VM) */
  if (m && size >= ((size_t)16 << 20)) {
    p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) p = NULL;
    else m->mmapped = 1;
  } else if (m && posix_memalign(&p, 4096, size ? size : 1) != 0) {
    p = NULL;
  }
  if (!m || !p) {
    free(m);
    luaL_error(L, "cl.array: out of host memory allocating %I bytes", (lua_Integer)size);
  }
  if (!m->mmapped) memset(p, 0, size);
  m->refs = 1;
  m->valid = 1;
  m->ptr = p;
  m->size = size;
  CLUA_CREATED(CNT_HOSTMEM);
  return m;
}

hostmem *hostmem_wrap_mapped(lua_State *L, void *ptr, size_t size) {
  hostmem *m = calloc(1, sizeof *m);
  if (!m) luaL_error(L, "out of host memory");
  m->refs = 1;
  m->mapped = 1;
  m->valid = 1;
  m->ptr = ptr;
  m->size = size;
  CLUA_CREATED(CNT_HOSTMEM);
  return m;
}

void hostmem_ref(hostmem *m) { m->refs++; }

void hostmem_unref(hostmem *m) {
  if (--m->refs > 0) return;
  if (m->mmapped) munmap(m->ptr, m->size);
  else if (!m->mapped) free(m->ptr);
  if (m->mapev) {
    clReleaseEvent(m->mapev);
    CLUA_RELEASED(CNT_EVENT);
  }
  free(m);
  CLUA_RELEASED(CNT_HOSTMEM);
}
