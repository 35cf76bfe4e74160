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

static int released;  /* a memory object was released (on any device) */

void clua_sim_released(void) { released = 1; }

void *clua_sim_zeros(cl_device_id dev, size_t size) {
  return released && clua_sim_device(dev) ? calloc(1, size) : NULL;
}

/* The user events a command waits for (clua_sim_waits), retained until they
   end. Oclgrind runs a queue's commands at clFlush as at clFinish, and waits
   there for a user event that only this thread could complete: while one of
   them has not ended, queue:flush and the record's mending do not flush. */
static cl_event *gates;
static int ngates, capgates;
int clua_sim_any;

void clua_sim_waits(cl_uint n, const cl_event *list) {
  for (cl_uint i = 0; i < n; i++) {
    cl_command_type t = 0;
    cl_int st = CL_COMPLETE;
    if (clGetEventInfo(list[i], CL_EVENT_COMMAND_TYPE, sizeof t, &t, NULL) != CL_SUCCESS || t != CL_COMMAND_USER)
      continue;
    if (clGetEventInfo(list[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL) != CL_SUCCESS ||
        st <= CL_COMPLETE)
      continue;
    if (ngates == capgates) {
      int cap = capgates ? 2 * capgates : 8;
      cl_event *more = realloc(gates, sizeof *more * (size_t)cap);
      if (!more) return;
      gates = more;
      capgates = cap;
    }
    if (clRetainEvent(list[i]) == CL_SUCCESS) gates[ngates++] = list[i];
  }
}

int clua_sim_gated(void) {
  int open = 0;
  for (int i = 0; i < ngates; i++) {
    cl_int st = CL_COMPLETE;
    clGetEventInfo(gates[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    if (st > CL_COMPLETE) {
      gates[open++] = gates[i];
    } else {
      clReleaseEvent(gates[i]);
    }
  }
  ngates = open;
  return open > 0;
}

static void CL_CALLBACK free_when_done(cl_event ev, cl_int status, void *p) {
  (void)status;
  free(p);
  clReleaseEvent(ev);
}

void clua_sim_stored(cqueue *q, cl_mem mem) {
  cl_mem parent = NULL;
  size_t size = 0;
  if (clGetMemObjectInfo(mem, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL) == CL_SUCCESS && parent)
    mem = parent;
  if (clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof size, &size, NULL) != CL_SUCCESS || !size) return;
  void *all = malloc(size);
  if (!all) return;
  if (clua_sim_gated()) {  /* after the store, when the queue runs: the memory is freed at the write's end */
    cl_event ev = NULL;
    if (clEnqueueReadBuffer(q->q, mem, CL_FALSE, 0, size, all, 0, NULL, NULL) == CL_SUCCESS &&
        clEnqueueWriteBuffer(q->q, mem, CL_FALSE, 0, size, all, 0, NULL, &ev) == CL_SUCCESS &&
        clSetEventCallback(ev, CL_COMPLETE, free_when_done, all) == CL_SUCCESS)
      return;
    if (ev) clWaitForEvents(1, &ev), clReleaseEvent(ev);  /* not reached on Oclgrind */
  } else if (clFinish(q->q) == CL_SUCCESS &&
             clEnqueueReadBuffer(q->q, mem, CL_TRUE, 0, size, all, 0, NULL, NULL) == CL_SUCCESS) {
    clEnqueueWriteBuffer(q->q, mem, CL_TRUE, 0, size, all, 0, NULL, NULL);
  }
  free(all);
}
