/* Waits for events (wait.c): the wait lists commands take and the wait
   itself, which Ctrl-C and cl.timeout can end. */
#ifndef CLUA_WAIT_H
#define CLUA_WAIT_H

#include <lua.h>

#include "opencl.h"

/* Reads opts.wait (a list of events) into an array left on the Lua stack as
   a userdata; returns the count. Every event must be of context ctx (NULL: of
   one context, the first's). */
cl_uint clua_waitlist(lua_State *L, int t, const char *method, cl_context ctx, cl_event **out);
/* Waits for the events as clWaitForEvents does (returning its result), but
   Ctrl-C ends the wait with an error "METHOD: interrupted", and waiting for
   a user event not completed yet (which nothing could complete) raises. */
cl_int clua_wait_list(lua_State *L, const char *method, cl_uint n, const cl_event *list);
/* Flushes the queues of the events' commands (clFlush), as OpenCL asks
   before polling an event's status or waiting on its callback. */
void clua_flush_events(cl_uint n, const cl_event *list);
/* Whether a queue of a CPU device was ever made (queue.c sets it): until
   then every wait is a GPU's. */
extern int clua_cpu_queue_made;

#endif
