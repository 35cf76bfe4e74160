/* What a fatal signal inside the OpenCL driver says. A kernel that reads or
   writes far out of bounds on a CPU device (PoCL) ends the process with
   SIGSEGV in one of the driver's worker threads: alone, that is a bare
   "Segmentation fault". Each launch on a CPU device's queue notes, before it
   is enqueued (PoCL may run the kernel before clEnqueueNDRangeKernel
   returns), where it came from; when that place (the Lua function and line
   that called queue:launch or a launcher, and the kernel) differs from the
   last launch's, the message is made then, into a static buffer, since a
   signal handler may call only async-signal-safe functions (write,
   sigaction, raise). A launch from the same place as the last costs a
   lua_getinfo and three comparisons (some 400 instructions beside PoCL's
   3000 for the enqueue); a GPU's queue notes nothing, as a GPU's kernel
   faults on the GPU, which the driver reports as an error.

   The handler prints the message for a fault (or an abort) in a thread other
   than the script's (the driver's: clua's own code runs in the script's
   thread) after a launch, then re-raises the signal with its default action,
   so that the process still ends by it (exit status 128 + signal in a shell)
   in the plain and the ASan binary alike: ASan's report of a fault in the
   driver's compiled kernel would say nothing more. Any other signal (in the
   script's thread, sent by another process, or before any launch) goes
   untouched to the handler that was there before ours: LLVM's, which PoCL
   installs while it finds its devices and which hands a fault on to ASan's
   report in the ASan binary, else the default action. */
#define _GNU_SOURCE /* gettid */
#include "fatal.h"
#include "compiler.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const int fatal_sigs[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
static const char *const fatal_names[] = {
  "SIGSEGV (segmentation fault)", "SIGBUS (bus error)", "SIGILL (illegal instruction)",
  "SIGFPE (arithmetic fault: an integer division by zero?)", "SIGABRT (abort)"};
#define NFATAL (sizeof fatal_sigs / sizeof fatal_sigs[0])

static struct sigaction before[NFATAL]; /* the handlers ours replaced */
static int installed;
static pid_t script_tid; /* the thread that launches: the script's */

/* Two buffers: a launch writes the one the handler does not read, then
   switches (ready: the one to print, -1 before any launch). */
static char text[2][2048];
static atomic_int ready = -1;

/* The place of the last launch: its caller, line and kernel. */
static const void *last_fn;
static int last_line;
static cl_kernel last_k;

static atomic_flag speaking = ATOMIC_FLAG_INIT;
static atomic_int spoken;

static void say(const char *s) {
  size_t n = strlen(s);
  while (n > 0) {
    ssize_t w = write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w;
    n -= (size_t)w;
  }
}

static void on_fatal(int sig, siginfo_t *si, void *uc) {
  size_t i = 0;
  while (i < NFATAL && fatal_sigs[i] != sig) i++;
  if (i == NFATAL) return;
  int t = atomic_load(&ready);
  /* a fault (si_code > 0) or an abort() in a thread of the driver; a signal
     another process sent is not the driver's */
  int fault = si && (si->si_code > 0 || (sig == SIGABRT && si->si_pid == getpid()));
  if (t >= 0 && fault && gettid() != script_tid) {
    if (!atomic_flag_test_and_set(&speaking)) { /* one message, from the first thread to fault */
      say("\nclua: ");
      say(fatal_names[i]);
      say(text[t]);
      atomic_store(&spoken, 1);
    } else {
      while (!atomic_load(&spoken)) {
      }
    }
    signal(sig, SIG_DFL);
    raise(sig); /* pending until this returns: then the default action ends the process */
    return;
  }
  sigaction(sig, &before[i], NULL);
  if (before[i].sa_flags & SA_SIGINFO) {
    before[i].sa_sigaction(sig, si, uc);
  } else if (before[i].sa_handler != SIG_DFL && before[i].sa_handler != SIG_IGN) {
    before[i].sa_handler(sig);
  } else {
    signal(sig, SIG_DFL);
    raise(sig);
  }
}

static void install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_fatal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < NFATAL; i++) {
    struct sigaction cur;
    if (sigaction(fatal_sigs[i], NULL, &cur) != 0) continue;
    if ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_fatal) continue;
    if (!installed) before[i] = cur; /* a handler put in since (the driver's) is replaced, not chained */
    sigaction(fatal_sigs[i], &sa, NULL);
  }
  installed = 1;
}

void clua_keep_fatal(void) {
  if (installed) install();
}

/* Appends s to buf (of size len, holding a string), as far as it fits. */
static void append(char *buf, size_t len, const char *s) {
  size_t at = strlen(buf);
  if (at + 1 < len) snprintf(buf + at, len - at, "%s", s);
}

/* Appends " " (unless buf is empty) and a word of a command line, quoted for
   a shell where it needs it; 0 (and "...") when it does not fit. */
static int append_word(char *buf, size_t len, const char *w) {
  char q[1024] = "";
  if (*w && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+=.,/:@%") == strlen(w)) {
    append(q, sizeof q, w);
  } else {
    append(q, sizeof q, "'");
    for (const char *p = w; *p; p++) {
      char c[2] = {*p, 0};
      append(q, sizeof q, *p == '\'' ? "'\\''" : c);
    }
    append(q, sizeof q, "'");
  }
  if (strlen(buf) + strlen(q) + 6 >= len || strlen(q) + 1 >= sizeof q) {
    append(buf, len, " ...");
    return 0;
  }
  if (*buf) append(buf, len, " ");
  append(buf, len, q);
  return 1;
}

/* The message for a launch from a new place: the kernel, the script line
   (the nearest Lua function's: a launch through pcall names pcall's caller)
   and the command that finds the access: clua check, the script and its
   arguments as the global arg holds them. */
static CLUA_COLD void note_place(lua_State *L, cl_kernel k, const void *fn, int line) {
  char kn[128] = "", where[256] = "an unknown line", cmd[1024] = "";
  if (clGetKernelInfo(k, CL_KERNEL_FUNCTION_NAME, sizeof kn, kn, NULL) != CL_SUCCESS) kn[0] = 0;
  kn[sizeof kn - 1] = 0;
  lua_Debug ar;
  for (int level = 1; lua_getstack(L, level, &ar); level++) {
    if (lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
      snprintf(where, sizeof where, "%s:%d", ar.short_src, ar.currentline);
      break;
    }
  }
  if (lua_getglobal(L, "arg") == LUA_TTABLE) {
    for (lua_Integer i = 0; lua_rawgeti(L, -1, i) == LUA_TSTRING; i++) {
      int fits = append_word(cmd, sizeof cmd, lua_tostring(L, -1));
      lua_pop(L, 1);
      if (!fits) {
        lua_pushnil(L);
        break;
      }
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  if (!*cmd) snprintf(cmd, sizeof cmd, "SCRIPT");
  int next = atomic_load(&ready) == 0 ? 1 : 0;
  snprintf(text[next], sizeof text[0],
           " inside the OpenCL driver; the newest kernel launched is '%s', at %s. A kernel that reads or writes "
           "out of bounds ends a process so: run `clua check %s` to find the access\n",
           *kn ? kn : "?", where, cmd);
  if (!installed) {
    script_tid = gettid();
    install();
  }
  last_fn = fn;
  last_line = line;
  last_k = k;
  atomic_store(&ready, next);
}

CLUA_HOT void clua_fatal_note(lua_State *L, cl_kernel k) {
  lua_Debug ar;
  if (!lua_getstack(L, 1, &ar)) return;
  lua_getinfo(L, "fl", &ar);
  const void *fn = lua_topointer(L, -1);
  lua_pop(L, 1);
  /* a C caller (pcall) has no line: its Lua caller is found each time */
  if (fn != last_fn || ar.currentline != last_line || k != last_k || ar.currentline <= 0)
    note_place(L, k, fn, ar.currentline);
}

void clua_fatal_forget(cl_kernel k) {
  if (k == last_k) last_k = NULL;
}
