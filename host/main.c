/* clua: the interpreter front-end.

   The command line is lua5.4's (`clua [options] [script [args]]`), so that
   `busted --lua=build/clua` and every Lua habit work unchanged.  On top of
   that: the `cl` module is preloaded, clua's Lua library (lua/) is put at the
   front of package.path from the binary's own location, `-v` names clua's
   version too, and `--devices` lists the OpenCL platforms and devices. */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>

#include "state.h"
#include "root.h"
#include "clua.h"
#include "version.h"
#include "alloc.h"
#include "lineedit.h"
#include "mpimod.h"

#define PROMPT1 "> "
#define PROMPT2 ">> "
#define EOF_MARK "<eof>"

/* What the options asked for (bits of the value collect_args returns). */
enum {
  OPT_ERROR = 1,   /* a bad option: print usage and fail */
  OPT_I = 2,       /* -i */
  OPT_V = 4,       /* -v */
  OPT_E = 8,       /* -e (at least one) */
  OPT_NOENV = 16,  /* -E */
  OPT_DEVICES = 32, /* --devices */
  OPT_HELP = 64     /* --help */
};

static const char *progname = "clua";
static lua_State *active_state = NULL; /* the state running a pcall, for SIGINT */

/* ---------------------------------------------------------------- messages */

static void message(const char *who, const char *msg) {
  if (who)
    fprintf(stderr, "%s: ", who);
  fprintf(stderr, "%s\n", msg ? msg : "(error object is not a string)");
  fflush(stderr);
}

/* Prints the error message on top of the stack (if status is an error). */
static int report(lua_State *L, int status) {
  if (status != LUA_OK) {
    message(progname, lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  return status;
}

static void print_usage(const char *bad) {
  if (bad[1] == 'e' || bad[1] == 'l')
    fprintf(stderr, "%s: '%s' needs argument\n", progname, bad);
  else
    fprintf(stderr, "%s: unrecognized option '%s'\n", progname, bad);
  fprintf(stderr,
          "usage: %s [options] [script [args]]\n"
          "       clua NAME [options]  (an experiment: clua list names them)\n"
          "Available options are:\n"
          "  -e stat    execute string 'stat'\n"
          "  -i         enter interactive mode after executing 'script'\n"
          "  -l mod     require library 'mod' into global 'mod'\n"
          "  -l g=mod   require library 'mod' into global 'g'\n"
          "  -v         show version information\n"
          "  -E         ignore environment variables\n"
          "  -W         turn warnings on\n"
          "  --devices  list the OpenCL platforms and devices\n"
          "  --help     the subcommands and options (clua help NAME: an experiment's)\n"
          "  --         stop handling options\n"
          "  -          stop handling options and execute stdin\n",
          progname);
  fflush(stderr);
}

static void print_version(void) {
  printf("clua %s  %s\n", CLUA_VERSION, LUA_COPYRIGHT);
  fflush(stdout);
}

/* ------------------------------------------------------------ calling Lua */

/* Message handler: turns the error object into a string with a traceback. */
static int msghandler(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  lua_getfield(L, LUA_REGISTRYINDEX, CLUA_ENV_ERROR);
  if (msg != NULL && lua_rawequal(L, 1, -1))
    return 1; /* about the machine, not the script: no traceback (clua.h) */
  lua_pop(L, 1);
  if (msg == NULL) {
    if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
      return 1; /* the object describes itself: no traceback */
    msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  }
  luaL_traceback(L, L, msg, 1);
  return 1;
}

/* SIGINT while Lua runs: stop at the next hook with an error, as lua.c does. */
static void interrupted(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_sethook(L, NULL, 0, 0);
  clua_interrupted = 0;
  luaL_error(L, "interrupted!");
}

/* Inside the cl module, a wait for the device (which runs no Lua, so no hook)
   sees clua_interrupted instead, and raises "METHOD: interrupted". A second
   ^C kills the process; a SIGINT within 0.25 s of the first is the same ^C
   delivered twice (timeout(1) signals the process and then its group). */
static volatile double first_sigint;

static void on_sigint(int sig) {
  int mask = LUA_MASKCALL | LUA_MASKRET | LUA_MASKLINE | LUA_MASKCOUNT;
  struct timespec ts;
  double now;
  if (clua_direct_wait) { /* inside clWaitForEvents or clFinish, which nothing stops */
    static const char msg[] = "\nclua: interrupted while waiting for the device: the command runs on, "
                              "the process ends (set cl.timeout or CLUA_TIMEOUT for waits that a ^C stops)\n";
    ssize_t w = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)w;
    _exit(130);
  }
  clock_gettime(CLOCK_MONOTONIC, &ts);
  now = (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
  if (first_sigint > 0) {
    if (now - first_sigint > 0.25) {
      clua_sigint_handler = NULL;
      signal(sig, SIG_DFL);
      raise(sig);
    }
    return;
  }
  first_sigint = now;
  clua_interrupted = 1;
  clua_given_up = 1; /* no release of OpenCL objects from now on (state.h) */
  if (active_state)
    lua_sethook(active_state, interrupted, mask, 1);
}

static void set_sigint(void (*handler)(int)) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sigemptyset(&sa.sa_mask);
  clua_sigint_handler = handler == on_sigint ? handler : NULL;
  sigaction(SIGINT, &sa, NULL);
}

static clua_alloc *alloc; /* the state's allocator: freed once the state is closed */

/* The end of the state, from os.exit and from main: ^C from here on ends the
   process at once; with cl.timeout, the commands still running are waited
   for until it passes (clua_settle_all); the state is closed, which releases
   every OpenCL object and fails user events nothing completed; the commands
   of released queues are waited for (clua_exit_wait): PoCL 3.1 aborts when a
   process ends while it compiles a kernel for a launch. Where a wait timed
   out, the process ends there with status abandoned (clua_exit_abandoned);
   else MPI ends (clua_mpi_end) and status is returned, to exit with. */
/* A write to the standard output that failed (a full disk, a descriptor the
   caller closed): the script's output is lost, so the run fails with a
   message, not status 0. */
static int check_stdout(int status) {
  errno = 0;
  int flushed = fflush(stdout) == 0;
  int err = errno;
  if (flushed && !ferror(stdout))
    return status;
  const char *why = err ? strerror(err) : NULL;
  if (why == NULL) { /* print flushes at once: the failed write's errno is gone by now */
    int fl = fcntl(STDOUT_FILENO, F_GETFL);
    why = (fl == -1 || (fl & O_ACCMODE) == O_RDONLY) ? "it is closed" : "a write to it failed (a full disk?)";
  }
  fprintf(stderr, "%s: cannot write the standard output: %s\n", progname, why);
  return status == EXIT_SUCCESS ? EXIT_FAILURE : status;
}

static int close_state(lua_State *L, int status, int abandoned) {
  set_sigint(SIG_DFL);
  active_state = NULL;
  clua_settle_all();
  lua_close(L);
  status = check_stdout(status);
  clua_alloc_end(alloc);
  clua_exit_wait();
  clua_exit_abandoned(abandoned);
#ifdef CLUA_MPI
  clua_mpi_end(status);
#endif
  return status;
}

/* os.exit([code [, close]]): as Lua's, but the state is always closed
   (close_state). */
static int os_exit(lua_State *L) {
  int status;
  if (lua_isboolean(L, 1))
    status = lua_toboolean(L, 1) ? EXIT_SUCCESS : EXIT_FAILURE;
  else
    status = (int)luaL_optinteger(L, 1, EXIT_SUCCESS);
  exit(close_state(L, status, status));
  return 0;
}

/* Calls the function below its nargs arguments with the message handler. */
static int docall(lua_State *L, int nargs, int nresults) {
  int base = lua_gettop(L) - nargs;
  int status;
  lua_pushcfunction(L, msghandler);
  lua_insert(L, base);
  active_state = L;
  clua_interrupted = 0;
  first_sigint = 0;
  set_sigint(on_sigint);
  status = lua_pcall(L, nargs, nresults, base);
  set_sigint(SIG_DFL);
  active_state = NULL;
  lua_remove(L, base);
  return status;
}

static int dochunk(lua_State *L, int status) {
  if (status == LUA_OK)
    status = docall(L, 0, 0);
  return report(L, status);
}

static int dofile(lua_State *L, const char *name) {
  return dochunk(L, luaL_loadfile(L, name));
}

static int dostring(lua_State *L, const char *s, const char *chunkname) {
  return dochunk(L, luaL_loadbuffer(L, s, strlen(s), chunkname));
}

/* -l [g=]mod: g = require(mod); g defaults to mod. */
static int dolibrary(lua_State *L, const char *spec) {
  const char *eq = strchr(spec, '=');
  const char *mod = eq ? eq + 1 : spec;
  int status;
  if (eq)
    lua_pushlstring(L, spec, (size_t)(eq - spec));
  else
    lua_pushstring(L, spec);
  lua_getglobal(L, "require");
  lua_pushstring(L, mod);
  status = docall(L, 1, 1);
  if (status == LUA_OK) {
    lua_setglobal(L, lua_tostring(L, -2));
    lua_pop(L, 1); /* the global's name */
    return LUA_OK;
  }
  lua_remove(L, -2); /* the global's name, leaving the message */
  return report(L, status);
}

/* LUA_INIT_5_4, else LUA_INIT: a chunk, or @file. */
static int handle_luainit(lua_State *L) {
  const char *name = "=LUA_INIT_" LUA_VERSION_MAJOR "_" LUA_VERSION_MINOR;
  const char *init = getenv(name + 1);
  if (init == NULL) {
    name = "=LUA_INIT";
    init = getenv(name + 1);
  }
  if (init == NULL)
    return LUA_OK;
  if (init[0] == '@')
    return dofile(L, init + 1);
  return dostring(L, init, name);
}

/* Runs the script argv[0] with argv[1..] as its arguments. */
/* A script argument that is one word (no '/', no '.') and names no file is
   a subcommand: an experiment or tool of clua's recipes/ (`clua stride`),
   `list` or `help`, run by clua.commands.run(word, args...). */
static int is_subcommand(const char *fname) {
  return fname[0] != '\0' && fname[0] != '-' && strpbrk(fname, "/.") == NULL &&
         access(fname, F_OK) != 0;
}

/* Pushes clua.commands.run and the word: the chunk and its first argument. */
static int load_subcommand(lua_State *L, const char *word) {
  int status;
  lua_getglobal(L, "require");
  lua_pushliteral(L, "clua.commands");
  status = docall(L, 1, 1);
  if (status != LUA_OK)
    return status;
  lua_getfield(L, -1, "run");
  lua_remove(L, -2);
  lua_pushstring(L, word);
  return LUA_OK;
}

static int handle_script(lua_State *L, char **argv) {
  const char *fname = argv[0];
  int status, n = 0, sub = 0;
  if (strcmp(fname, "-") == 0 && strcmp(argv[-1], "--") != 0)
    fname = NULL; /* stdin */
  if (fname != NULL && is_subcommand(fname)) {
    status = load_subcommand(L, fname);
    sub = 1;
  } else {
    status = luaL_loadfile(L, fname);
  }
  if (status == LUA_OK) {
    int i;
    while (argv[n + 1] != NULL)
      n++;
    luaL_checkstack(L, n + 3, "too many arguments to script");
    for (i = 1; i <= n; i++)
      lua_pushstring(L, argv[i]);
    status = docall(L, n + sub, LUA_MULTRET);
  }
  return report(L, status);
}

/* --devices: every platform and device with its indices, like `clinfo -l`. */
static const char devices_lua[] =
  "local cl = require 'cl'\n"
  "local platforms = cl.platforms()\n"
  "if #platforms == 0 then cl.device() end -- raises, saying why there is none\n"
  "for i, p in ipairs(platforms) do\n"
  "  local pi = p.index or i - 1\n"
  "  print(('Platform #%d: %s'):format(pi, p.name))\n"
  "  local devices = p:devices()\n"
  "  for j, d in ipairs(devices) do\n"
  "    print((' %s-- Device #%d: %s (%s, %d:%d)'):format(j == #devices and '`' or '+',\n"
  "      j - 1, d.name, d.info.type, pi, j - 1))\n"
  "  end\n"
  "end\n";

/* Its errors (no driver, no platform) are about the machine, not about a
   script: reported without a traceback. */
static int list_devices(lua_State *L) {
  int status = luaL_loadbuffer(L, devices_lua, sizeof devices_lua - 1, "=(--devices)");
  if (status == LUA_OK)
    status = lua_pcall(L, 0, 0, 0);
  return report(L, status);
}

/* ------------------------------------------------------------ options */

/* Scans the options; *script is the index of the script (0 when none). */
static int collect_args(char **argv, int *script) {
  int opts = 0, i;
  *script = 0;
  for (i = 1; argv[i] != NULL; i++) {
    const char *a = argv[i];
    if (a[0] != '-') { /* the script */
      *script = i;
      return opts;
    }
    switch (a[1]) {
    case '\0': /* '-': the script is stdin */
      *script = i;
      return opts;
    case '-':
      if (a[2] == '\0') { /* '--': the next one is the script */
        *script = argv[i + 1] != NULL ? i + 1 : 0;
        return opts;
      }
      if (strcmp(a, "--help") == 0) {
        opts |= OPT_HELP;
        break;
      }
      if (strcmp(a, "--devices") == 0) {
        opts |= OPT_DEVICES;
        break;
      }
      *script = i;
      return OPT_ERROR;
    case 'E':
    case 'W':
    case 'i':
    case 'v':
      if (a[2] != '\0') {
        *script = i;
        return OPT_ERROR;
      }
      if (a[1] == 'E')
        opts |= OPT_NOENV;
      else if (a[1] == 'i')
        opts |= OPT_I | OPT_V; /* -i implies -v */
      else if (a[1] == 'v')
        opts |= OPT_V;
      break;
    case 'e':
    case 'l':
      if (a[1] == 'e')
        opts |= OPT_E;
      if (a[2] == '\0') { /* the argument is the next word */
        if (argv[i + 1] == NULL || argv[i + 1][0] == '-') {
          *script = i;
          return OPT_ERROR;
        }
        i++;
      }
      break;
    default:
      *script = i;
      return OPT_ERROR;
    }
  }
  return opts;
}

/* Runs -e, -l and -W in order, over argv[1..limit-1]. Returns 0 on error. */
static int run_args(lua_State *L, char **argv, int limit) {
  int i;
  for (i = 1; i < limit; i++) {
    const char *a = argv[i];
    if (a[0] != '-' || a[1] == '-')
      continue; /* --devices and --help (the long options), handled later */
    if (a[1] == 'W') {
      lua_warning(L, "@on", 0);
    } else if (a[1] == 'e' || a[1] == 'l') {
      const char *extra = a[2] != '\0' ? a + 2 : argv[++i];
      int status = a[1] == 'e' ? dostring(L, extra, "=(command line)")
                               : dolibrary(L, extra);
      if (status != LUA_OK)
        return 0;
    }
  }
  return 1;
}

/* arg[0] is the script (or the interpreter when there is none), the
   interpreter and options have negative indices, the script's arguments
   positive ones. */
static void create_arg_table(lua_State *L, char **argv, int argc, int script) {
  int i;
  lua_createtable(L, argc - script - 1 > 0 ? argc - script - 1 : 0, script + 1);
  for (i = 0; i < argc; i++) {
    lua_pushstring(L, argv[i]);
    lua_rawseti(L, -2, (lua_Integer)i - script);
  }
  lua_setglobal(L, "arg");
}

/* ------------------------------------------------------------ clua's root */

/* The folders that may hold lua/clua, from the binary's folder: its parent
   (build/clua), its grandparent (build/asan/clua), or ../share/clua
   (PREFIX/bin/clua). */
static const char *const root_tries[] = {"..", "../..", "../share/clua", NULL};

#ifndef CLUA_MPI
/* require "mpi" in a clua built without it. */
static int no_mpi(lua_State *L) {
  return luaL_error(L, "mpi: this clua was built without MPI: build it with make MPI=1 "
                       "(Debian's libopenmpi-dev) and run it under mpirun");
}
#endif

/* package.preload.cl and .mpi, root/lua first in package.path, and the
   global cl (docs/cl.md: in every mode, -e, -, a script, -i). */
static void open_clua(lua_State *L, const char *root) {
  luaL_getsubtable(L, LUA_REGISTRYINDEX, LUA_PRELOAD_TABLE);
  lua_pushcfunction(L, luaopen_cl);
  lua_setfield(L, -2, "cl");
#ifdef CLUA_MPI
  lua_pushcfunction(L, luaopen_mpi);
#else
  lua_pushcfunction(L, no_mpi);
#endif
  lua_setfield(L, -2, "mpi");
  lua_pop(L, 1);
  if (root != NULL) {
    lua_getglobal(L, "package");
    lua_getfield(L, -1, "path");
    lua_pushfstring(L, "%s/lua/?.lua;%s/lua/?/init.lua;%s", root, root,
                    lua_tostring(L, -1));
    lua_setfield(L, -3, "path");
    lua_pop(L, 2);
  }
  lua_getglobal(L, "require");
  lua_pushliteral(L, "cl");
  lua_call(L, 1, 1); /* opening the module makes no OpenCL call */
  lua_setglobal(L, "cl");
}

/* ------------------------------------------------------------ the REPL */

/* Pushes the prompt (_PROMPT/_PROMPT2 or the default) and returns it. */
static const char *get_prompt(lua_State *L, int firstline) {
  if (lua_getglobal(L, firstline ? "_PROMPT" : "_PROMPT2") == LUA_TNIL) {
    lua_pop(L, 1);
    return lua_pushstring(L, firstline ? PROMPT1 : PROMPT2);
  }
  luaL_tolstring(L, -1, NULL);
  lua_remove(L, -2);
  return lua_tostring(L, -1);
}

/* Reads a line (any length) and pushes it, without its newline. 0 at EOF. */
static int push_line(lua_State *L, int firstline) {
  size_t len = 0;
  char *line = clua_lineedit_read(get_prompt(L, firstline), &len);
  lua_pop(L, 1); /* the prompt */
  if (line == NULL)
    return 0;
  if (firstline && line[0] == '=') /* "=expr": lua 5.1's habit */
    lua_pushfstring(L, "return %s", line + 1);
  else
    lua_pushlstring(L, line, len);
  free(line);
  return 1;
}

/* Tries the line as "return line;" so that expressions print their value. */
static int add_return(lua_State *L) {
  const char *line = lua_tostring(L, -1);
  const char *retline = lua_pushfstring(L, "return %s;", line);
  int status = luaL_loadbuffer(L, retline, strlen(retline), "=stdin");
  if (status == LUA_OK)
    lua_remove(L, -2); /* the modified line */
  else
    lua_pop(L, 2); /* the error and the modified line */
  return status;
}

/* A syntax error at <eof> means the chunk is not finished yet. */
static int incomplete(lua_State *L, int status) {
  if (status == LUA_ERRSYNTAX) {
    size_t len;
    const char *msg = lua_tolstring(L, -1, &len);
    size_t mark = sizeof EOF_MARK - 1;
    return msg != NULL && len >= mark && strcmp(msg + len - mark, EOF_MARK) == 0;
  }
  return 0;
}

/* Reads more lines until the chunk compiles or fails for a real reason. */
static int multiline(lua_State *L) {
  for (;;) {
    size_t len;
    const char *line = lua_tolstring(L, 1, &len);
    int status = luaL_loadbuffer(L, line, len, "=stdin");
    if (!incomplete(L, status) || !push_line(L, 0))
      return status; /* the chunk or the error is on top */
    lua_remove(L, -2); /* the "<eof>" error */
    lua_pushliteral(L, "\n");
    lua_insert(L, -2);
    lua_concat(L, 3);
  }
}

/* Leaves a compiled chunk (or an error) on the stack; -1 at end of input. */
static int load_line(lua_State *L) {
  int status;
  lua_settop(L, 0);
  if (!push_line(L, 1))
    return -1;
  if ((status = add_return(L)) != LUA_OK)
    status = multiline(L);
  lua_remove(L, 1); /* the line */
  return status;
}

/* Prints whatever the chunk returned, through the global print. */
static void print_results(lua_State *L) {
  int n = lua_gettop(L);
  if (n == 0)
    return;
  luaL_checkstack(L, LUA_MINSTACK, "too many results to print");
  lua_getglobal(L, "print");
  lua_insert(L, 1);
  if (lua_pcall(L, n, 0, 0) != LUA_OK)
    message(progname, lua_pushfstring(L, "error calling 'print' (%s)",
                                      lua_tostring(L, -1)));
}

static void repl(lua_State *L) {
  const char *saved = progname;
  int status;
  progname = NULL; /* messages in the REPL carry no program name */
  lua_settop(L, 0);
  clua_lineedit_open(L);
  while ((status = load_line(L)) != -1) {
    if (status == LUA_OK)
      status = docall(L, 0, LUA_MULTRET);
    if (status == LUA_OK)
      print_results(L);
    else
      report(L, status);
  }
  clua_lineedit_close();
  lua_settop(L, 0);
  fputs("\n", stdout);
  fflush(stdout);
  progname = saved;
}

/* ------------------------------------------------------------ main */

/* Everything runs protected in here: (argc, argv) in, a boolean out. */
static int pmain(lua_State *L) {
  int argc = (int)lua_tointeger(L, 1);
  char **argv = (char **)lua_touserdata(L, 2);
  int script;
  int opts = collect_args(argv, &script);
  int limit = script > 0 ? script : argc; /* the first word that is no option */

  luaL_checkversion(L);
  if (opts & OPT_ERROR) {
    print_usage(argv[script]);
    return 0;
  }
  if (opts & OPT_V)
    print_version();
  if (opts & OPT_NOENV) { /* tells the package library to ignore LUA_PATH etc. */
    lua_pushboolean(L, 1);
    lua_setfield(L, LUA_REGISTRYINDEX, "LUA_NOENV");
  }
  luaL_openlibs(L);
  lua_getglobal(L, "os");
  lua_pushcfunction(L, os_exit);
  lua_setfield(L, -2, "exit");
  lua_pop(L, 1);
  open_clua(L, clua_root());
  create_arg_table(L, argv, argc, script);
  lua_gc(L, LUA_GCRESTART);
  lua_gc(L, LUA_GCGEN, 0, 0);
  if (!(opts & OPT_NOENV) && handle_luainit(L) != LUA_OK)
    return 0;
  if (!run_args(L, argv, limit))
    return 0;
  if ((opts & OPT_HELP) && dostring(L, "io.write(require('clua.commands').usage())", "=(--help)") != LUA_OK)
    return 0;
  if ((opts & OPT_DEVICES) && list_devices(L) != LUA_OK)
    return 0;
  if (script > 0 && handle_script(L, argv + script) != LUA_OK)
    return 0;
  if (opts & OPT_I) {
    repl(L);
  } else if (script == 0 && !(opts & (OPT_E | OPT_V | OPT_DEVICES | OPT_HELP))) {
    if (isatty(STDIN_FILENO)) {
      print_version();
      repl(L);
    } else if (dofile(L, NULL) != LUA_OK) {
      return 0;
    }
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* Flushes stdio before any exit-time check that ends the process without
   exit()'s own flush (LeakSanitizer reporting a leak after os.exit), so a
   script's buffered output is never lost. Registered after the sanitizer's
   handler, so it runs before it. */
static void flush_all(void) {
  fflush(NULL);
}

int main(int argc, char **argv) {
  lua_State *L;
  int status, ok;

  atexit(flush_all);
  /* A standard descriptor the caller closed (`clua x.lua >&-`) is held by
     /dev/null, read-only: no file the script opens takes its number, and a
     write to it fails (EBADF), which close_state reports. */
  for (int fd = 0; fd <= 2; fd++)
    if (fcntl(fd, F_GETFD) == -1 && errno == EBADF && open("/dev/null", O_RDONLY) != fd)
      return EXIT_FAILURE;
  if (argv[0] != NULL && argv[0][0] != '\0')
    progname = argv[0];
  clua_find_root("/proc/self/exe", "lua/clua", root_tries);
  L = luaL_newstate();
  if (L == NULL) {
    message(progname, "cannot create state: not enough memory");
    return EXIT_FAILURE;
  }
  alloc = clua_alloc_use(L);
  lua_gc(L, LUA_GCSTOP); /* no collections while the libraries open */
  lua_pushcfunction(L, pmain);
  lua_pushinteger(L, argc);
  lua_pushlightuserdata(L, argv);
  status = lua_pcall(L, 2, 1, 0);
  ok = lua_toboolean(L, -1);
  report(L, status);
  status = (ok && status == LUA_OK) ? EXIT_SUCCESS : EXIT_FAILURE;
  return close_state(L, status, EXIT_FAILURE); /* a wait timed out: the script failed */
}
