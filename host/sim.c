/* Oclgrind, the checking device of `clua check`: what its checks need of a
   queue's commands. Its uninitialised-value check (21.10) replaces a buffer's
   record of defined bytes at each store from the host with one the size of
   that store, counted from the buffer's start: after a fill (one store per
   pattern), a write at an offset or of part of a buffer, a copy, an unmap or
   a store into a sub-buffer, defined bytes read as undefined (and kernels
   that read them are reported for it). On Oclgrind alone, such a command is
   followed by a read and a write of the whole buffer (its parent for a
   sub-buffer), which leave the record whole: every byte of it defined.
   Nor does the check forget a released buffer's record: the next buffer
   Oclgrind puts in its place (it reuses the places of released ones) keeps
   it, of the old size, so that stores past it are lost and the bytes they
   wrote read as undefined. Once a memory object has been released, a buffer
   made without contents on Oclgrind is made from zeros (what Oclgrind fills
   it with anyway), a store from the host that gives it a record of its own
   size; before, a new buffer takes a new place, and a kernel that reads
   bytes nothing wrote is still reported. */
#include "check.h"

#include <stdlib.h>
#include <string.h>

int clua_sim_device(cl_device_id dev) {
  cl_platform_id p = NULL;
  char name[64] = "";
  if (clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof p, &p, NULL) != CL_SUCCESS || !p) return 0;
  if (clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name - 1, name, NULL) != CL_SUCCESS) return 0;
  return !strncmp(name, "Oclgrind", 8);
}

static int released;  /* a memory object was released (on any device) */

void clua_sim_released(void) { released = 1; }

void *clua_sim_zeros(cl_device_id dev, size_t size) {
  return released && clua_sim_device(dev) ? calloc(1, size) : NULL;
}

void clua_sim_stored(cqueue *q, cl_mem mem) {
  cl_mem parent = NULL;
  size_t size = 0;
  if (clGetMemObjectInfo(mem, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL) == CL_SUCCESS && parent)
    mem = parent;
  if (clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, NULL) != CL_SUCCESS || !size) return;
  void *all = malloc(size);
  if (!all) return;
  if (clFinish(q->q) == CL_SUCCESS && clEnqueueReadBuffer(q->q, mem, CL_TRUE, 0, size, all, 0, NULL, NULL) == CL_SUCCESS)
    clEnqueueWriteBuffer(q->q, mem, CL_TRUE, 0, size, all, 0, NULL, NULL);
  free(all);
}
