/* clua's process-wide state (state.c): what main.c's SIGINT handler, the
   interpreter and every file of the cl module share, kept apart from the
   module's registrar (cl.c), as luv keeps lifetimes apart from handle types.
   Needs only <signal.h>. */
#ifndef CLUA_STATE_H
#define CLUA_STATE_H

#include <signal.h>

/* Set by main.c's SIGINT handler: a wait for the device in the cl module
   (queue:finish, event:wait, cl.wait, a blocking transfer) checks it and
   stops with an error "METHOD: interrupted", which the driver cannot. */
extern volatile sig_atomic_t clua_interrupted;

/* Set at the first ^C, and never cleared: from then on OpenCL objects are
   not released but given up to the process's end, which frees them. A
   release can wait for the commands still running (NVIDIA's
   clReleaseCommandQueue waits for a kernel that may run for minutes), and
   the script is ending. */
extern volatile sig_atomic_t clua_given_up;
/* Releases an OpenCL object unless ^C gave them up. */
#define CLUA_RELEASE(call) (clua_given_up ? (void)0 : (void)(call))

/* main.c's SIGINT handler while a script runs, else NULL. An OpenCL driver's
   compiler may take SIGINT over: LLVM installs a handler that resets itself
   to the default on delivery (PoCL does this while it finds its devices),
   and PoCL 3.1 restores the default from a compiler thread of its own; a ^C
   then ends the process with no message and no clean-up. clua_keep_sigint()
   puts the handler back: after device discovery and builds, in every wait
   and in event.status (a Lua loop polling a command). */
extern void (*volatile clua_sigint_handler)(int);
void clua_keep_sigint(void);

/* Set while a wait for a GPU with no deadline sits in the driver's own
   clWaitForEvents or clFinish (event.c, queue.c), which nothing can
   interrupt: a ^C then ends the process at once (main.c), as it would a C
   program. */
extern volatile sig_atomic_t clua_direct_wait;

#endif
