/* clua: the interface between the cl module (the runtime) and what embeds it:
   the clua program (main.c) and cl.so in a stock interpreter (module.c).

   The other headers of host/ are private, one per concern; each .c file
   includes those whose names it uses, and `make lint` (.ci/hostgraph) fails
   on a cycle of includes or of calls between files.

     opencl.h    the OpenCL headers as clua uses them
     check.h     errors and argument checks, type registration (check.c)
     objects.h   the OpenCL objects' userdata, type names, live counts, and
                 what each type's file offers the others
     hostmem.h   host memory shared by arrays, mappings, transfers (hostmem.c)
     array.h     host arrays and their element types (array.c)
     events.h    events and their pool (event.c, evpool.c)
     wait.h      wait lists and the interruptible wait (wait.c)
     queue.h     queues and their commands once enqueued (queue.c, pending.c)
     deadline.h  deadlines of waits, cl.timeout (deadline.c)
     fatal.h     a fatal signal inside the driver (fatal.c)
     sim.h       Oclgrind, the checking device (sim.c)
     open.h      each type's registration, gathered by cl.c
     state.h     process-wide state: ^C, objects given up (state.c)
     root.h      the install root (root.c)
     version.h, alloc.h (the program's allocator), lineedit.h (the REPL's
     input), mpimod.h (the mpi module), compiler.h (hints, sanitizer marks)
     handles.h   for C code loaded into clua: the handles of a queue and a
                 kernel (bench/launch_inproc.c) */
#ifndef CLUA_H
#define CLUA_H

#include <lua.h>
#include <signal.h>

/* Opens the cl module (registered in package.preload["cl"] by main.c). */
int luaopen_cl(lua_State *L);

/* cl.so only (module.c, -DCLUA_MODULE): the root from the shared object's
   place, and clua_exit_wait when the state closes. */
void clua_module_open(lua_State *L);

/* Errors about the machine rather than the script (no OpenCL platform, a
   driver that does not load, CLUA_DEVICE naming no device) are raised as a
   message also stored in the registry under this key: main.c prints such a
   message alone, on one line, with no traceback. */
#define CLUA_ENV_ERROR "clua.env_error"

/* Before the state is closed at the end of a script: with a deadline
   (cl.timeout), waits for the commands of every queue not released yet until
   it passes, and past it gives every object up (clua_abandoned). NVIDIA's
   driver waits for running commands in releases (queues, contexts, and
   others), which closing the state makes, so an endless kernel would hold the
   process there forever. Without a deadline it does nothing. */
void clua_settle_all(void);

/* Waits for the newest command of every queue released while its commands
   could still run (unless ^C gave them up): main.c calls it at exit, after
   closing the state. A process that ends while PoCL 3.1 still compiles a
   kernel for a launch aborts. */
void clua_exit_wait(void);

/* Set when a wait for the device timed out (cl.timeout, CLUA_TIMEOUT): the
   device may still run that command, which OpenCL cannot stop. Objects are
   given up (clua_given_up), and clua_exit_abandoned(status), called by
   main.c once the state is closed, ends the process with _exit, saying so:
   the driver's own clean-up at exit could wait for the command forever. It
   returns at once when no wait timed out. */
extern volatile sig_atomic_t clua_abandoned;
void clua_exit_abandoned(int status);

#endif
