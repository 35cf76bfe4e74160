/* Deadlines of waits for the device: cl.timeout and CLUA_TIMEOUT, what a
   timed-out wait was stuck on, and the end of a process whose device still
   runs a command that OpenCL cannot stop. */

#include "check.h"
#include "deadline.h"
#include "state.h"
#include "clua.h"
#include "compiler.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

static double timeout_s;  /* 0: none */
volatile sig_atomic_t clua_abandoned;

/* The kernels of the newest launches, to name the one a wait is stuck on
   (OpenCL's events do not say which kernel they ran): two stores a launch. */
#define LAUNCHED 64
static struct { cl_event ev; cl_kernel k; } launched[LAUNCHED];
static unsigned nlaunched;
static cl_kernel newest;

CLUA_HOT void clua_note_launch(cl_event ev, cl_kernel k) {
  unsigned at = nlaunched++ % LAUNCHED;
  launched[at].ev = ev;
  launched[at].k = k;
  newest = k;
}

void clua_abandon(void) {
  clua_given_up = 1;
  clua_abandoned = 1;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

double clua_deadline(void) { return timeout_s > 0 ? now_s() + timeout_s : 0; }

int clua_past(double deadline) { return deadline > 0 && now_s() >= deadline; }

/* Pushes the name of a kernel (its handle stays valid while a command of it
   has not ended, even when the script released it). */
static void push_kernel(lua_State *L, cl_kernel k) {
  char name[128] = "";
  if (k && clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL) == CL_SUCCESS && *name)
    lua_pushfstring(L, "kernel '%s'", name);
  else
    lua_pushliteral(L, "a kernel");
}

/* Pushes what the first unfinished event of the list is. */
static void push_stuck(lua_State *L, cl_uint n, const cl_event *list) {
  for (cl_uint i = 0; i < n; i++) {
    cl_int st = CL_COMPLETE;
    cl_command_type t = 0;
    clGetEventInfo(list[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof st, &st, NULL);
    if (st <= CL_COMPLETE) continue;
    clGetEventInfo(list[i], CL_EVENT_COMMAND_TYPE, sizeof t, &t, NULL);
    if (t == CL_COMMAND_NDRANGE_KERNEL || t == CL_COMMAND_TASK) {
      cl_kernel k = NULL;
      for (unsigned j = 0; j < LAUNCHED && j < nlaunched; j++) {  /* newest first */
        unsigned at = (nlaunched - 1 - j) % LAUNCHED;
        if (launched[at].ev == list[i]) {
          k = launched[at].k;
          break;
        }
      }
      push_kernel(L, k);
      return;
    }
    const char *what = t == CL_COMMAND_READ_BUFFER || t == CL_COMMAND_READ_BUFFER_RECT || t == CL_COMMAND_READ_IMAGE
                           ? "a read"
                       : t == CL_COMMAND_WRITE_BUFFER || t == CL_COMMAND_WRITE_BUFFER_RECT || t == CL_COMMAND_WRITE_IMAGE
                           ? "a write"
                       : t == CL_COMMAND_MAP_BUFFER || t == CL_COMMAND_MAP_IMAGE ? "a map"
                       : t == CL_COMMAND_MARKER || t == CL_COMMAND_BARRIER ? "the queue's commands"
                                                                           : "a command";
    if (newest) {
      push_kernel(L, newest);
      lua_pushfstring(L, "%s (the newest launch: %s)", what, lua_tostring(L, -1));
      lua_remove(L, -2);
    } else {
      lua_pushstring(L, what);
    }
    return;
  }
  lua_pushliteral(L, "a command");
}

void clua_timed_out(lua_State *L, const char *method, cl_uint n, const cl_event *list) {
  /* The command runs on: a release could wait for it (NVIDIA's queue and
     context releases do), so every object is given up, and the process ends
     without waiting for it (clua_exit_abandoned). */
  clua_abandon();
  char secs[32];
  snprintf(secs, sizeof secs, "%g", timeout_s);
  push_stuck(L, n, list);
  luaL_error(L,
             "%s: timed out after %s s waiting for %s (OpenCL cannot stop a running command: clua gives its objects "
             "up and the process ends without waiting for it; CLUA_TIMEOUT or a recipe's --timeout sets the limit)",
             method, secs, lua_tostring(L, -1));
}

void clua_exit_abandoned(int status) {
  if (!clua_abandoned) return;
  fflush(NULL);
  fprintf(stderr, "clua: the device is still running a command that timed out, which OpenCL cannot stop: "
                  "the process ends without waiting for it or releasing its objects\n");
  fflush(stderr);
#if defined(__SANITIZE_ADDRESS__)
  __lsan_do_leak_check();  /* _exit skips the check at exit */
#endif
  _exit(status);
}

/* Reads CLUA_TIMEOUT (seconds; 0 or empty: none). */
void clua_timeout_init(lua_State *L) {
  const char *env = getenv("CLUA_TIMEOUT");
  if (!env || !*env) return;
  char *end;
  double s = strtod(env, &end);
  while (*end == ' ') end++;
  if (*end || !(s >= 0) || isinf(s)) {
    lua_pushfstring(L, "CLUA_TIMEOUT='%s' is not a number of seconds (unset it, or set it to e.g. 60 or 0.5)", env);
    clua_env_error(L);
  }
  timeout_s = s;
}

/* cl.timeout([seconds]), documented in cl.c. */
int clua_timeout(lua_State *L) {
  int t = lua_type(L, 1);
  if (t == LUA_TBOOLEAN && !lua_toboolean(L, 1)) {
    timeout_s = 0;
  } else if (t != LUA_TNONE && t != LUA_TNIL) {
    lua_Number s = luaL_checknumber(L, 1);
    if (!(s >= 0) || isinf(s)) luaL_argerror(L, 1, "a number of seconds, 0 or more");
    timeout_s = (double)s;
  }
  if (timeout_s > 0) lua_pushnumber(L, timeout_s);
  else lua_pushnil(L);
  return 1;
}
