/* Host memory (hostmem.c) shared by an array, its slices and pending
   transfers. It is freed when the last holder lets go, so a collected array
   never frees memory the device still reads or writes. Mapped memory belongs
   to its buffer: `valid` drops to 0 at unmap or when the buffer is released. */
#ifndef CLUA_HOSTMEM_H
#define CLUA_HOSTMEM_H

#include <stddef.h>
#include <lua.h>

#include "opencl.h"

struct ctype;

typedef struct hostmem {
  int refs;
  int mapped;            /* 1: ptr is a mapping of `buffer`, not ours to free */
  int mmapped;           /* 1: ptr is our own mmap() (a big array), to munmap() */
  int valid;
  void *ptr;
  size_t size;
  void *owner;           /* mapped: the cbuffer it maps */
  struct hostmem *next;  /* the buffer's list of live mappings */
  cl_event mapev;        /* mapped without blocking: the map's event (retained), which the unmap waits for */
  cl_command_queue mapq; /* mapped: the queue that mapped it (retained), to unmap it when the buffer goes */
  const struct ctype *dropped;  /* the array that made it was released (its type): its slices raise, naming it */
} hostmem;

/* New zeroed memory (raises "cl.array: out of host memory ..."); a mapping's
   memory, which is the buffer's; a holder more; a holder less. */
hostmem *hostmem_new(lua_State *L, size_t size);
hostmem *hostmem_wrap_mapped(lua_State *L, void *ptr, size_t size);
void hostmem_ref(hostmem *m);
void hostmem_unref(hostmem *m);

#endif
