/* Oclgrind, the checking device of `clua check`: what its checks need of a
   queue's commands. Its uninitialised-value check (21.10) replaces a buffer's
   record of defined bytes at each store from the host with one the size of
   that store, counted from the buffer's start: after a fill (one store per
   pattern), a write at an offset or of part of a buffer, a copy, an unmap or
   a store into a sub-buffer, defined bytes read as undefined (and kernels
   that read them are reported for it). On Oclgrind alone, such a command is
   followed by a read and a write of the whole buffer (its parent for a
   sub-buffer), which leave the record whole: every byte of it defined. */
#include "queue.h"
#include "sim.h"

#include <stdlib.h>
#include <string.h>

int clua_sim_device(cl_device_id dev) {
  cl_platform_id p = NULL;
  char name[64] = "";
  if (clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof p, &p, NULL) != CL_SUCCESS || !p) return 0;
  if (clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof name - 1, name, NULL) != CL_SUCCESS) return 0;
  return !strncmp(name, "Oclgrind", 8);
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
