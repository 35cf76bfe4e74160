/* Oclgrind, the checking device (sim.c): clua_sim_device, whether the
   device is its; clua_sim_stored, after a command of q that stored into mem
   from the host (a write, fill, copy, unmap): makes its uninitialised-value
   check count the whole buffer defined; clua_sim_released, at the release of
   a buffer or image; clua_sim_zeros, the contents (zeros, to be freed) of a
   new buffer of `size` bytes made without any on dev, or NULL where it needs
   none (not Oclgrind, or nothing released); clua_sim_any, a queue of
   Oclgrind's was made; clua_sim_waits, of a wait list given to a command;
   clua_sim_gated, whether a user event a command waits for has not ended
   (Oclgrind's clFlush would wait for it for ever). */
#ifndef CLUA_SIM_H
#define CLUA_SIM_H

#include "opencl.h"

struct cqueue_s;

int clua_sim_device(cl_device_id dev);
void clua_sim_stored(struct cqueue_s *q, cl_mem mem);
void clua_sim_released(void);
void *clua_sim_zeros(cl_device_id dev, size_t size);
extern int clua_sim_any;
void clua_sim_waits(cl_uint n, const cl_event *list);
int clua_sim_gated(void);

#endif
