/* A fatal signal inside the OpenCL driver (fatal.c): clua_fatal_note, at each
   launch on a CPU device, makes the message it prints (the kernel, the script
   line of the launch, the clua check command) when the launch's place
   differs from the last one's, and installs the handler at the first;
   clua_fatal_forget, at a kernel's release, makes the next launch note its
   place anew; clua_keep_fatal puts the handler back where a driver may have
   taken the signals (after device discovery and builds, as
   clua_keep_sigint). */
#ifndef CLUA_FATAL_H
#define CLUA_FATAL_H

#include <lua.h>

#include "opencl.h"

void clua_fatal_note(lua_State *L, cl_kernel k);
void clua_fatal_forget(cl_kernel k);
void clua_keep_fatal(void);

#endif
