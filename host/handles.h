/* For C code loaded into clua (a Lua C module, as bench/launch_inproc.c):
   the OpenCL handles behind a cl.queue and a cl.kernel, without clua's
   private structs. The handles stay clua's (never released by the caller).
   Each raises as the type's methods do ("cl.queue expected, got ...",
   "attempt to use a released cl.kernel"). The clua program exports them
   (-Wl,-E), as it does Lua's API. */
#ifndef CLUA_HANDLES_H
#define CLUA_HANDLES_H

#include <lua.h>

#include "opencl.h"

cl_command_queue clua_queue_handle(lua_State *L, int idx);  /* queue.c */
cl_kernel clua_kernel_handle(lua_State *L, int idx);        /* kernel.c */

#endif
