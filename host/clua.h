/* clua: the interface between the interpreter (main.c; module.c for cl.so)
   and the cl module. Process-wide state (^C, objects given up, the install
   root) is in state.h; state.h's first comment draws how the headers of
   host/ depend on each other. */
#ifndef CLUA_H
#define CLUA_H

#include <lua.h>
#include <signal.h>

#define CLUA_VERSION "0.1.0"

/* Errors about the machine rather than the script (no OpenCL platform, a
   driver that does not load, CLUA_DEVICE naming no device) are raised as a
   message also stored in the registry under this key: main.c prints such a
   message alone, on one line, with no traceback. */
#define CLUA_ENV_ERROR "clua.env_error"

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

/* Before the state is closed at the end of a script: with a deadline
   (cl.timeout), waits for the commands of every queue not released yet until
   it passes, and past it gives every object up (clua_abandoned). NVIDIA's
   driver waits for running commands in releases (queues, contexts, and
   others), which closing the state makes, so an endless kernel would hold the
   process there forever. Without a deadline it does nothing. */
void clua_settle_all(void);

/* The clua program's Lua allocator (alloc.c): small blocks kept on lists for
   reuse. clua_alloc_use sets it on a new state (NULL, out of memory: the
   state keeps its own); clua_alloc_end frees what waits, after lua_close. */
typedef struct clua_alloc clua_alloc;
clua_alloc *clua_alloc_use(lua_State *L);
void clua_alloc_end(clua_alloc *a);

/* Blocks kept for reuse (alloc.c, and evpool.c's freed event blocks) are
   poisoned under AddressSanitizer while they wait, so that a use after
   free is still reported. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

/* The code a launch runs through, laid out together: GCC puts CLUA_HOT
   functions in .text.hot, which the linker groups, and CLUA_COLD ones (a
   rare path taken out of a hot function) in .text.unlikely (docs/notes/launch.md,
   sixth part). */
#define CLUA_HOT __attribute__((hot))
#define CLUA_COLD __attribute__((cold, noinline))
#define CLUA_NOINLINE __attribute__((noinline))

/* Opens the cl module (registered in package.preload["cl"] by main.c). */
int luaopen_cl(lua_State *L);

/* cl.so only (module.c, -DCLUA_MODULE): the root from the shared object's
   place, and clua_exit_wait when the state closes. */
void clua_module_open(lua_State *L);

/* The mpi module (mpi.c, built with make MPI=1 and -DCLUA_MPI): main.c puts
   luaopen_mpi in package.preload.mpi. Once MPI is started, clua_mpi_end is
   set, and main.c calls it as the process ends, after the state is closed:
   failed 0 finalizes MPI, another value aborts every rank with it. */
int luaopen_mpi(lua_State *L);
extern void (*clua_mpi_end)(int failed);

/* The REPL's line input (lineedit.c): with readline on a terminal (history,
   completion through clua.complete), else getline. clua_lineedit_read returns
   a malloc'd line without its newline, its length in *len (a line read by
   getline may hold a NUL), or NULL at end of input. */
void clua_lineedit_open(lua_State *L);
char *clua_lineedit_read(const char *prompt, size_t *len);
void clua_lineedit_close(void);

#endif
