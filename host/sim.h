/* Oclgrind, the checking device (sim.c): clua_sim_device, whether the
   device is its; clua_sim_stored, after a command of q that stored into mem
   from the host (a write, fill, copy, unmap): makes its uninitialised-value
   check count the whole buffer defined. */
#ifndef CLUA_SIM_H
#define CLUA_SIM_H

#include "opencl.h"

struct cqueue_s;

int clua_sim_device(cl_device_id dev);
void clua_sim_stored(struct cqueue_s *q, cl_mem mem);

#endif
