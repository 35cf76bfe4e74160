/* Deadlines of waits for the device (deadline.c): cl.timeout and
   CLUA_TIMEOUT, what a timed-out wait was stuck on, and giving up. */
#ifndef CLUA_DEADLINE_H
#define CLUA_DEADLINE_H

#include <lua.h>

#include "opencl.h"

/* clua_deadline: the monotonic time (s) a wait starting now ends at, 0 when
   there is no timeout; clua_past: whether it has passed; clua_timed_out
   raises "METHOD: timed out ..." naming the first unfinished command of the
   list, and gives every object up; clua_note_launch records a launch's
   event and kernel for that message. */
double clua_deadline(void);
int clua_past(double deadline);
void clua_timed_out(lua_State *L, const char *method, cl_uint n, const cl_event *list);
void clua_note_launch(cl_event ev, cl_kernel k);
/* A command runs on past its deadline: gives every object up from now on
   (clua_given_up) and ends the process without waiting (clua_abandoned). */
void clua_abandon(void);
/* CLUA_TIMEOUT, read as the module opens; cl.timeout. */
void clua_timeout_init(lua_State *L);
int clua_timeout(lua_State *L);

#endif
