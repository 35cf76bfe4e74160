/* Programs: from source or files, built with options and defines; build logs
   with line numbers mapped back to the kernel files. */

/***
Programs: OpenCL C source, built for a context's devices.
@module cl.program
@usage local prog = ctx:program_file("reduction.cl"):build(nil, { WARP_SYNC = 0 })
for _, name in ipairs(prog:kernels()) do print(name) end
*/
#include "check.h"
#include "objects.h"
#include "fatal.h"
#include "open.h"
#include "state.h"
#include "root.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* user values: 1 the context, 2 the list of pieces {name, first, lines},
   3 the last build log, 4 the source */

static int count_lines(const char *s, size_t n) {
  int lines = 0;
  for (size_t i = 0; i < n; i++) lines += s[i] == '\n';
  if (n && s[n - 1] != '\n') lines++;
  return lines;
}

/* Creates the program from the concatenated source on top of the stack and the
   pieces table below it. */
static int make_program(lua_State *L, int ctxidx, const char *method) {
  ccontext *c = clua_check(L, ctxidx, T_CONTEXT);
  size_t len;
  const char *src = lua_tolstring(L, -1, &len);
  cprogram *p = clua_new(L, sizeof *p, T_PROGRAM, 4);
  p->released = 1;
  cl_int err;
  cl_program prog = clCreateProgramWithSource(c->ctx, 1, &src, &len, &err);
  if (err != CL_SUCCESS) return clua_clerror(L, method, "clCreateProgramWithSource", err, NULL);
  p->prog = prog;
  p->released = 0;
  CLUA_CREATED(CNT_PROGRAM);
  lua_pushvalue(L, ctxidx);
  lua_setiuservalue(L, -2, 1);
  lua_pushvalue(L, -3);
  lua_setiuservalue(L, -2, 2);
  lua_pushvalue(L, -2);
  lua_setiuservalue(L, -2, 4);
  return 1;
}

static void add_piece(lua_State *L, int pieces, const char *name, int first, int lines) {
  lua_createtable(L, 0, 3);
  lua_pushstring(L, name);
  lua_setfield(L, -2, "name");
  lua_pushinteger(L, first);
  lua_setfield(L, -2, "first");
  lua_pushinteger(L, lines);
  lua_setfield(L, -2, "lines");
  lua_rawseti(L, pieces, luaL_len(L, pieces) + 1);
}

static int ctx_program(lua_State *L) {
  clua_check(L, 1, T_CONTEXT);
  size_t len;
  const char *src = luaL_checklstring(L, 2, &len);
  const char *name = luaL_optstring(L, 3, "<source>");
  lua_newtable(L);
  add_piece(L, lua_gettop(L), name, 1, count_lines(src, len));
  lua_pushvalue(L, 2);
  return make_program(L, 1, "ctx:program");
}

/* Reads a kernel file: as given, else under clua's kernels/ folder. */
static void push_file(lua_State *L, const char *path, const char **found) {
  FILE *f = fopen(path, "rb");
  if (!f && path[0] != '/' && clua_root()) {
    lua_pushfstring(L, "%s/kernels/%s", clua_root(), path);
    f = fopen(lua_tostring(L, -1), "rb");
    if (f) *found = lua_tostring(L, -1);  /* stays on the stack below the contents */
    else lua_pop(L, 1);
  }
  if (!f) luaL_error(L, "ctx:program_file: cannot open kernel file '%s'%s%s%s", path,
                     clua_root() && path[0] != '/' ? " (also looked in " : "",
                     clua_root() && path[0] != '/' ? clua_root() : "",
                     clua_root() && path[0] != '/' ? "/kernels)" : "");
  if (!*found) {
    lua_pushstring(L, path);
    *found = lua_tostring(L, -1);
  }
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) luaL_addlstring(&b, chunk, n);
  fclose(f);
  luaL_pushresult(&b);
}

static int ctx_program_file(lua_State *L) {
  clua_check(L, 1, T_CONTEXT);
  int nfiles = lua_gettop(L) - 1;
  if (nfiles < 1) luaL_checkstring(L, 2);
  lua_newtable(L);
  int pieces = lua_gettop(L);
  lua_newtable(L);  /* the sources, in order, joined below */
  int srcs = lua_gettop(L), nsrc = 0, line = 1;
  for (int i = 0; i < nfiles; i++) {
    const char *path = luaL_checkstring(L, 2 + i);
    const char *found = NULL;
    push_file(L, path, &found);
    size_t len;
    const char *s = lua_tolstring(L, -1, &len);
    int lines = count_lines(s, len);
    add_piece(L, pieces, found, line, lines);
    line += lines;
    int newline = len && s[len - 1] != '\n';
    lua_rawseti(L, srcs, ++nsrc);
    lua_pop(L, 1);  /* the path */
    if (newline) {
      lua_pushliteral(L, "\n");
      lua_rawseti(L, srcs, ++nsrc);
    }
  }
  luaL_checkstack(L, nsrc, "too many kernel files");
  for (int i = 1; i <= nsrc; i++) lua_rawgeti(L, srcs, i);
  lua_concat(L, nsrc);
  lua_remove(L, srcs);
  return make_program(L, 1, "ctx:program_file");
}

/* ---- build ---- */

/* Compilers write to the process's stderr themselves (PoCL's clang prints
   "1 error generated." twice, straight to the terminal), though clua's
   message already holds the build log. clBuildProgram runs with file
   descriptor 2 sent to a temporary file; *noise gets what was written there
   (malloc'd, NUL-terminated; NULL when nothing was), for the program's log.
   Where no temporary file can be made, the build runs as it is. */
static cl_int build_captured(cl_program prog, const char *opts, char **noise) {
  *noise = NULL;
  fflush(stderr);
  FILE *tmp = tmpfile();
  int saved = tmp ? dup(2) : -1;
  if (saved < 0 || dup2(fileno(tmp), 2) < 0) {
    if (saved >= 0) close(saved);
    if (tmp) fclose(tmp);
    return clBuildProgram(prog, 0, NULL, opts, NULL, NULL);
  }
  cl_int err = clBuildProgram(prog, 0, NULL, opts, NULL, NULL);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  int fd = fileno(tmp);
  off_t n = lseek(fd, 0, SEEK_END);
  if (n > 0 && n < (off_t)1 << 24 && lseek(fd, 0, SEEK_SET) == 0 && (*noise = malloc((size_t)n + 1))) {
    ssize_t got = read(fd, *noise, (size_t)n);
    (*noise)[got > 0 ? got : 0] = 0;
  }
  fclose(tmp);
  return err;
}

/* Appends to the log on top of the stack the lines of noise it does not hold
   yet, each once (PoCL writes its compiler's summary twice); frees noise. */
static void add_noise(lua_State *L, char *noise) {
  if (!noise) return;
  const char *log = lua_tostring(L, -1);
  size_t len = strlen(log);
  char *out = malloc(len + strlen(noise) + 2);
  if (out) {
    memcpy(out, log, len + 1);
    for (char *line = strtok(noise, "\n"); line; line = strtok(NULL, "\n")) {
      if (strstr(out, line)) continue;
      if (len) out[len++] = '\n';
      size_t n = strlen(line);
      memcpy(out + len, line, n + 1);
      len += n;
    }
    lua_pop(L, 1);
    lua_pushstring(L, out);
    free(out);
  }
  free(noise);
}

static void push_log(lua_State *L, cprogram *p, cl_device_id dev) {
  size_t n = 0;
  clGetProgramBuildInfo(p->prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n);
  char *buf = malloc(n + 1);
  if (!buf) luaL_error(L, "out of memory");
  if (clGetProgramBuildInfo(p->prog, dev, CL_PROGRAM_BUILD_LOG, n, buf, NULL) != CL_SUCCESS) n = 0;
  buf[n] = 0;
  while (n && (buf[n - 1] == '\n' || buf[n - 1] == 0 || buf[n - 1] == ' ')) buf[--n] = 0;
  lua_pushstring(L, buf);
  free(buf);
}

/* Rewrites "<source>:12:" (and the like) in the log on top of the stack into
   "file.cl:12:" using the pieces table at `pieces`. */
static void map_log(lua_State *L, int pieces) {
  const char *log = lua_tostring(L, -1);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  const char *p = log;
  while (*p) {
    /* a token at the start of a word, up to ':' and a line number */
    size_t tk = 0;
    if (p == log || p[-1] == ' ' || p[-1] == '\n' || p[-1] == '\t' || p[-1] == '(' || p[-1] == '"') {
      while (p[tk] && p[tk] != ':' && p[tk] != ' ' && p[tk] != '\n' && p[tk] != '\t') tk++;
    }
    int hit = tk && p[tk] == ':' && p[tk + 1] >= '0' && p[tk + 1] <= '9';
    if (hit) {
      /* the names drivers give to a program built from a string */
      hit = (p[0] == '<' && p[tk - 1] == '>') || (tk > 3 && !strncmp(p + tk - 3, ".cl", 3) &&
                                                  (strstr(p, "tempfile") < p + tk && strstr(p, "tempfile")));
      if (!hit && tk == 8 && !strncmp(p, "input.cl", 8)) hit = 1;
    }
    if (!hit) {
      luaL_addchar(&b, *p++);
      continue;
    }
    const char *num = p + tk + 1;
    char *endp;
    long line = strtol(num, &endp, 10);
    lua_Integer n = luaL_len(L, pieces);
    const char *name = NULL;
    long local = line;
    for (lua_Integer i = 1; i <= n && !name; i++) {
      lua_rawgeti(L, pieces, i);
      lua_getfield(L, -1, "first");
      lua_getfield(L, -2, "lines");
      long first = (long)lua_tointeger(L, -2), lines = (long)lua_tointeger(L, -1);
      lua_pop(L, 2);
      if (line >= first && (line < first + lines || i == n)) {
        lua_getfield(L, -1, "name");
        name = lua_tostring(L, -1);  /* stays alive in the pieces table */
        lua_pop(L, 1);
        local = line - first + 1;
      }
      lua_pop(L, 1);
    }
    if (!name) {
      luaL_addchar(&b, *p++);
      continue;
    }
    char tmp[32];
    snprintf(tmp, sizeof tmp, ":%ld", local);
    luaL_addstring(&b, name);
    luaL_addstring(&b, tmp);
    p = endp;
  }
  luaL_pushresult(&b);
  lua_remove(L, -2);
}

/* Pushes the build options: the caller's, the defines, clua's own. */
static void push_options(lua_State *L, int optidx, int defidx, int arginfo) {
  int top = lua_gettop(L);
  if (!lua_isnoneornil(L, optidx)) lua_pushfstring(L, "%s ", luaL_checkstring(L, optidx));
  if (!lua_isnoneornil(L, defidx)) {
    luaL_checktype(L, defidx, LUA_TTABLE);
    lua_pushnil(L);
    while (lua_next(L, defidx)) {
      if (lua_type(L, -2) != LUA_TSTRING) luaL_error(L, "program:build: define names must be strings");
      const char *k = lua_tostring(L, -2);
      int t = lua_type(L, -1);
      if (t == LUA_TBOOLEAN) {
        if (lua_toboolean(L, -1)) lua_pushfstring(L, "-D%s ", k);
        else lua_pushliteral(L, "");
      } else if (t == LUA_TNUMBER || t == LUA_TSTRING) {
        lua_pushfstring(L, "-D%s=%s ", k, luaL_tolstring(L, -1, NULL));
        lua_remove(L, -2);
      } else {
        luaL_error(L, "program:build: define %s must be a number, string or boolean, got %s", k, luaL_typename(L, -1));
      }
      lua_insert(L, -3);  /* the part goes below the key and value */
      lua_pop(L, 1);
    }
  }
  lua_pushstring(L, arginfo ? "-cl-kernel-arg-info" : "");
  const char *root = clua_root();
  if (root && !strchr(root, ' ')) lua_pushfstring(L, " -I %s/kernels", root);
  const char *env = getenv("CLUA_BUILD_OPTIONS");
  if (env && *env) lua_pushfstring(L, " %s", env);
  lua_concat(L, lua_gettop(L) - top);
}

/* NVIDIA's compiler (driver 580) fails with -cl-kernel-arg-info when a kernel
   takes no argument ("ptxas ... Parsing error"). The program is then built
   without the option, and a second program, whose argument-less kernels get
   an unused int parameter, is built with it only to describe the arguments.
   Uses the source (user value 4) and the options string on top of the stack. */
static void build_info_program(lua_State *L, cprogram *p) {
  const char *opts = lua_tostring(L, -1);
  lua_getiuservalue(L, 1, 4);
  static const char *patterns[] = {"(kernel%s+void%s+[%w_]+%s*)%(%s*void%s*%)", "(kernel%s+void%s+[%w_]+%s*)%(%s*%)"};
  for (int i = 0; i < 2; i++) {
    lua_getglobal(L, "string");
    lua_getfield(L, -1, "gsub");
    lua_remove(L, -2);
    lua_insert(L, -2);
    lua_pushstring(L, patterns[i]);
    lua_pushliteral(L, "%1(int clua_unused_)");
    lua_call(L, 3, 1);
  }
  size_t len;
  const char *src = lua_tolstring(L, -1, &len);
  lua_getiuservalue(L, 1, 1);
  ccontext *c = clua_check(L, -1, T_CONTEXT);
  cl_int err;
  cl_program info = clCreateProgramWithSource(c->ctx, 1, &src, &len, &err);
  lua_pop(L, 2);
  if (err != CL_SUCCESS) return;
  CLUA_CREATED(CNT_PROGRAM);
  char *noise;
  cl_int built = build_captured(info, opts, &noise);
  free(noise);
  clua_keep_sigint();
  clua_keep_fatal();
  if (built != CL_SUCCESS) {
    clReleaseProgram(info);
    CLUA_RELEASED(CNT_PROGRAM);
    return;
  }
  if (p->info) {
    clReleaseProgram(p->info);
    CLUA_RELEASED(CNT_PROGRAM);
  }
  p->info = info;
}

static void note_pieces(lua_State *L, cprogram *p);

/* Returns 1 on success; on failure leaves the mapped log on the stack. */
static int do_build(lua_State *L, cprogram *p, cl_int *errp) {
  lua_settop(L, 3);  /* options at 2 and defines at 3 (nil when absent), pieces pushed above */
  const char *argi = getenv("CLUA_KERNEL_ARG_INFO");  /* "0": leave the option out */
  int arginfo = !(argi && !strcmp(argi, "0"));
  push_options(L, 2, 3, arginfo);
  const char *opts = lua_tostring(L, -1);
  lua_getiuservalue(L, 1, 1);
  cl_device_id dev = clua_ctx_device(L, lua_gettop(L));
  lua_pop(L, 1);
  char *noise;
  cl_int err = build_captured(p->prog, opts, &noise);
  if (err == CL_BUILD_PROGRAM_FAILURE && arginfo) {
    push_options(L, 2, 3, 0);
    char *again;
    if (build_captured(p->prog, lua_tostring(L, -1), &again) == CL_SUCCESS) {
      free(noise);
      noise = again;
      err = CL_SUCCESS;
      lua_pop(L, 1);
      build_info_program(L, p);
    } else {
      free(again);
      lua_pop(L, 1);
    }
  }
  clua_keep_sigint();
  clua_keep_fatal();
  *errp = err;
  push_log(L, p, dev);
  add_noise(L, noise);
  lua_getiuservalue(L, 1, 2);
  lua_insert(L, -2);
  map_log(L, lua_gettop(L) - 1);
  lua_remove(L, -2);
  lua_pushvalue(L, -1);
  lua_setiuservalue(L, 1, 3);
  if (err == CL_SUCCESS) {
    const char *show = getenv("CLUA_BUILD_LOG");
    const char *log = lua_tostring(L, -1);
    if (show && !strcmp(show, "1") && *log) fprintf(stderr, "%s\n", log);
    lua_pop(L, 1);
    note_pieces(L, p);
    return 1;
  }
  if (!*lua_tostring(L, -1)) {
    lua_pop(L, 1);
    lua_pushfstring(L, "(the compiler gave no log; options were: %s)", opts);
  }
  return 0;
}

/* Under `clua check` (CLUA_CHECK_MAP names a file): appends, for each
   kernel of the program just built, where each piece of its source came from,
   "KERNEL<TAB>FIRST<TAB>LINES<TAB>FILE" a line, so that the checker can name
   the kernel file's own line of a finding (lua/clua/checker.lua). */
static void note_pieces(lua_State *L, cprogram *p) {
  const char *path = getenv("CLUA_CHECK_MAP");
  if (!path || !*path) return;
  size_t n = 0;
  if (clGetProgramInfo(p->prog, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &n) != CL_SUCCESS) return;
  char *names = malloc(n + 1);
  FILE *f = names ? fopen(path, "a") : NULL;
  if (f && clGetProgramInfo(p->prog, CL_PROGRAM_KERNEL_NAMES, n, names, NULL) == CL_SUCCESS) {
    names[n] = 0;
    lua_getiuservalue(L, 1, 2);
    lua_Integer np = luaL_len(L, -1);
    for (char *k = strtok(names, ";"); k; k = strtok(NULL, ";"))
      for (lua_Integer i = 1; i <= np; i++) {
        lua_rawgeti(L, -1, i);
        lua_getfield(L, -1, "first");
        lua_getfield(L, -2, "lines");
        lua_getfield(L, -3, "name");
        fprintf(f, "%s\t%d\t%d\t%s\n", k, (int)lua_tointeger(L, -3), (int)lua_tointeger(L, -2), lua_tostring(L, -1));
        lua_pop(L, 4);
      }
    lua_pop(L, 1);
  }
  if (f) fclose(f);
  free(names);
}

/***
A program (`cl.program`), made by `context:program` or
`context:program_file`. clua builds with `-cl-kernel-arg-info`, so kernels
know their arguments' types (where the driver cannot build with it, the
argument descriptions come from a twin program built with it).
`tostring(prog)` is `cl.program: NAME (0x...)`.
@type program
*/

/***
Builds the program for the context's devices (`clBuildProgram`).
`CLUA_BUILD_OPTIONS` is appended to the options; a non-empty log after a
successful build goes to stderr only when `CLUA_BUILD_LOG=1`. What the
compiler writes to stderr during the build goes into the log, not the terminal.
@function program:build
@string[opt] options build options (`"-cl-fast-relaxed-math"`)
@tab[opt] defines `{N = 16, USE_X = true}` becomes `-DN=16 -DUSE_X`
@treturn cl.program the program itself (to chain `:kernel`)
@raise `program:build: clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE` and the
compiler's log, its line numbers shown against the kernel's file
@usage local k = ctx:program_file("copy.cl"):build(nil, { N = 16 }):kernel("copy")
*/
static int prog_build(lua_State *L) {
  cprogram *p = clua_check(L, 1, T_PROGRAM);
  cl_int err;
  if (do_build(L, p, &err)) {
    lua_settop(L, 1);
    return 1;
  }
  const char *name = clua_errname(err);
  return luaL_error(L, "program:build: clBuildProgram failed: %s\n%s", name ? name : "error", lua_tostring(L, -1));
}

/***
Builds like `program:build`, returning the failure instead of raising it.
@function program:try_build
@string[opt] options build options
@tab[opt] defines build defines
@treturn[1] boolean true
@return[2] false
@treturn[2] string the build log
*/
static int prog_try_build(lua_State *L) {
  cprogram *p = clua_check(L, 1, T_PROGRAM);
  cl_int err;
  if (do_build(L, p, &err)) {
    lua_pushboolean(L, 1);
    return 1;
  }
  lua_pushboolean(L, 0);
  lua_insert(L, -2);
  return 2;
}

/***
The names of the program's kernels.
@function program:kernels
@treturn {string,...} the names
@raise `program:kernels: clGetProgramInfo failed: ... (build the program first)`
*/
static int prog_kernels(lua_State *L) {
  cprogram *p = clua_check(L, 1, T_PROGRAM);
  size_t n = 0;
  cl_int err = clGetProgramInfo(p->prog, CL_PROGRAM_KERNEL_NAMES, 0, NULL, &n);
  if (err != CL_SUCCESS) return clua_clerror(L, "program:kernels", "clGetProgramInfo", err, "build the program first");
  /* zeroed: a driver may report one byte for no kernels and write none
     (PoCL does for a program without kernels) */
  char *buf = calloc(n + 1, 1);
  if (!buf) return luaL_error(L, "out of memory");
  err = n ? clGetProgramInfo(p->prog, CL_PROGRAM_KERNEL_NAMES, n, buf, NULL) : CL_SUCCESS;
  if (err != CL_SUCCESS) {
    free(buf);
    return clua_clerror(L, "program:kernels", "clGetProgramInfo", err, "the kernels' names");
  }
  lua_newtable(L);
  int k = 0;
  for (char *s = buf; *s;) {
    size_t len = strcspn(s, ";");
    if (len) {
      lua_pushlstring(L, s, len);
      lua_rawseti(L, -2, ++k);
    }
    s += len;
    if (*s) s++;
  }
  free(buf);
  return 1;
}

/***
Releases the program (also `__gc`, `__close`; a second release does nothing);
its kernels keep it alive.
@function program:release
*/
static int prog_release(lua_State *L) {
  cprogram *p = luaL_checkudata(L, 1, T_PROGRAM);
  if (!p->released) {
    p->released = 1;
    CLUA_RELEASE(clReleaseProgram(p->prog));
    CLUA_RELEASED(CNT_PROGRAM);
    if (p->info) {
      CLUA_RELEASE(clReleaseProgram(p->info));
      CLUA_RELEASED(CNT_PROGRAM);
    }
    p->info = NULL;
  }
  return 0;
}

/***
The last build log (a string; nil before any build).
@field log
*/
/***
The context.
@field context
*/
/***
The file name build logs show (the path, or the name given to `context:program`).
@field name
*/

/***
A kernel of the built program (`clCreateKernel`; implemented in kernel.c).
@function program:kernel
@string name the kernel's name
@treturn cl.kernel the kernel (it keeps the program alive)
@raise `program:kernel: clCreateKernel failed: CL_INVALID_KERNEL_NAME (no kernel 'x' in the program; it has: a, b)`;
`... (build the program first (program:build()))`
*/
static int prog_index(lua_State *L) {
  if (clua_index_method(L)) return 1;
  clua_check(L, 1, T_PROGRAM);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "log")) lua_getiuservalue(L, 1, 3);
  else if (!strcmp(k, "context")) lua_getiuservalue(L, 1, 1);
  else if (!strcmp(k, "name")) {
    lua_getiuservalue(L, 1, 2);
    lua_rawgeti(L, -1, 1);
    lua_getfield(L, -1, "name");
  } else {
    luaL_getmetafield(L, 1, "methods");
    lua_getfield(L, -1, k);
  }
  return 1;
}

static int prog_tostring(lua_State *L) {
  cprogram *p = luaL_checkudata(L, 1, T_PROGRAM);
  if (p->released) lua_pushstring(L, "cl.program (released)");
  else {
    lua_getiuservalue(L, 1, 2);
    lua_rawgeti(L, -1, 1);
    lua_getfield(L, -1, "name");
    lua_pushfstring(L, "cl.program: %s (%p)", lua_tostring(L, -1), (void *)p->prog);
  }
  return 1;
}

void clua_open_program(lua_State *L) {
  static const luaL_Reg methods[] = {
    {"build", prog_build}, {"try_build", prog_try_build}, {"kernels", prog_kernels}, {"release", prog_release}, {NULL, NULL}};
  static const luaL_Reg meta[] = {
    {"__index", prog_index}, {"__gc", prog_release}, {"__close", prog_release}, {"__tostring", prog_tostring}, {NULL, NULL}};
  clua_newtype(L, T_PROGRAM, methods, meta);
  static const luaL_Reg cmethods[] = {{"program", ctx_program}, {"program_file", ctx_program_file}, {NULL, NULL}};
  clua_add_methods(L, T_CONTEXT, cmethods);
}
