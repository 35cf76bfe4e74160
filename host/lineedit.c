/* clua: the REPL's line input.

   On a terminal the REPL reads lines through GNU readline, as lua5.4 -i does:
   line editing, history kept in ~/.clua_history (CLUA_HISTORY names another
   file), and tab completion of globals, of `cl.` functions and of the methods
   of the object before a `:` (`q:la<TAB>` gives `q:launch`), whose
   candidates come from clua's Lua library (clua.complete). The library is
   loaded at run time (dlopen of libreadline.so.8, as Lua 5.4.7's lua.c can),
   so that the binary needs neither readline to build nor to run: where it is
   missing, or stdin is not a terminal, lines are read with getline. */

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lua.h>
#include <lauxlib.h>

#include "lineedit.h"

#define HISTORY_LINES 1000

/* The readline library's calls and variables that clua uses. */
typedef char *(*rl_generator)(const char *, int);
typedef char **(*rl_completer)(const char *, int, int);
static struct {
  char *(*readline)(const char *);
  void (*add_history)(const char *);
  int (*read_history)(const char *);
  int (*append_history)(int, const char *);
  int (*write_history)(const char *);
  int (*history_truncate_file)(const char *, int);
  char **(*completion_matches)(const char *, rl_generator);
  rl_completer *attempted_completion_function;
  const char **readline_name;
  const char **basic_word_break_characters;
  const char **completer_word_break_characters;
  int *completion_append_character;
  int *attempted_completion_over;
} rl;

static int active;              /* readline is loaded and stdin is a terminal */
static char *history_path;      /* malloc'd, or NULL: no history file */
static lua_State *complete_L;   /* the state whose globals complete */
static int candidates_ref = LUA_NOREF; /* the last list of candidates */

/* Loads readline; 0 when it (or one of its calls) is missing. */
static int load_readline(void) {
  static const char *names[] = { "libreadline.so.8", "libreadline.so", NULL };
  void *lib = NULL;
  for (int i = 0; lib == NULL && names[i] != NULL; i++)
    lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
  if (lib == NULL)
    return 0;
#define SYM(field, name) (*(void **)&rl.field = dlsym(lib, name))
  SYM(readline, "readline");
  SYM(add_history, "add_history");
  SYM(read_history, "read_history");
  SYM(append_history, "append_history");
  SYM(write_history, "write_history");
  SYM(history_truncate_file, "history_truncate_file");
  SYM(completion_matches, "rl_completion_matches");
  SYM(attempted_completion_function, "rl_attempted_completion_function");
  SYM(readline_name, "rl_readline_name");
  SYM(basic_word_break_characters, "rl_basic_word_break_characters");
  SYM(completer_word_break_characters, "rl_completer_word_break_characters");
  SYM(completion_append_character, "rl_completion_append_character");
  SYM(attempted_completion_over, "rl_attempted_completion_over");
#undef SYM
  if (rl.readline == NULL || rl.add_history == NULL) {
    dlclose(lib);
    return 0;
  }
  return 1; /* the library stays loaded until the process ends */
}

/* readline's generator: the state-th candidate for text, malloc'd (readline
   frees it), from the list clua.complete made when state was 0. */
static char *next_candidate(const char *text, int state) {
  lua_State *L = complete_L;
  const char *s;
  char *copy = NULL;
  if (state == 0) {
    luaL_unref(L, LUA_REGISTRYINDEX, candidates_ref);
    candidates_ref = LUA_NOREF;
    lua_getglobal(L, "require");
    lua_pushliteral(L, "clua.complete");
    if (lua_pcall(L, 1, 1, 0) != LUA_OK || !lua_istable(L, -1)) {
      lua_pop(L, 1); /* no library: nothing to complete */
      return NULL;
    }
    lua_getfield(L, -1, "candidates");
    lua_remove(L, -2);
    lua_pushstring(L, text);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK || !lua_istable(L, -1)) {
      lua_pop(L, 1);
      return NULL;
    }
    candidates_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  }
  if (candidates_ref == LUA_NOREF)
    return NULL;
  lua_rawgeti(L, LUA_REGISTRYINDEX, candidates_ref);
  lua_rawgeti(L, -1, state + 1);
  s = lua_tostring(L, -1);
  if (s != NULL)
    copy = strdup(s);
  lua_pop(L, 2);
  return copy;
}

static char **attempt_completion(const char *text, int start, int end) {
  (void)start;
  (void)end;
  if (rl.attempted_completion_over != NULL)
    *rl.attempted_completion_over = 1; /* never file names */
  if (rl.completion_append_character != NULL)
    *rl.completion_append_character = '\0'; /* readline resets it before each */
  return rl.completion_matches(text, next_candidate);
}

/* ~/.clua_history, or $CLUA_HISTORY ("" for none); malloc'd or NULL. */
static char *find_history_path(void) {
  const char *env = getenv("CLUA_HISTORY"), *home = getenv("HOME");
  char *path;
  if (env != NULL)
    return env[0] != '\0' ? strdup(env) : NULL;
  if (home == NULL || home[0] == '\0')
    return NULL;
  path = malloc(strlen(home) + sizeof "/.clua_history");
  if (path != NULL)
    sprintf(path, "%s/.clua_history", home);
  return path;
}

void clua_lineedit_open(lua_State *L) {
  if (active || !isatty(STDIN_FILENO) || !load_readline())
    return;
  active = 1;
  complete_L = L;
  if (rl.readline_name != NULL)
    *rl.readline_name = "clua";
  if (rl.completion_matches != NULL && rl.attempted_completion_function != NULL) {
    /* '.' and ':' stay inside a word: "q:la" is completed as a whole */
    static const char breaks[] = " \t\n\"\\'`@$><=;|&{(,+-*/%^~#[]})";
    if (rl.basic_word_break_characters != NULL)
      *rl.basic_word_break_characters = breaks;
    if (rl.completer_word_break_characters != NULL)
      *rl.completer_word_break_characters = breaks;
    *rl.attempted_completion_function = attempt_completion;
  }
  history_path = find_history_path();
  if (history_path != NULL && rl.read_history != NULL && rl.read_history(history_path) != 0 &&
      rl.write_history != NULL)
    rl.write_history(history_path); /* creates it, so that lines can be appended */
}

char *clua_lineedit_read(const char *prompt, size_t *len) {
  char *line = NULL;
  size_t cap = 0;
  ssize_t got;
  if (active) {
    line = rl.readline(prompt);
    if (line != NULL)
      *len = strlen(line);
    if (line != NULL && line[0] != '\0') {
      rl.add_history(line);
      if (history_path != NULL && rl.append_history != NULL)
        rl.append_history(1, history_path);
    }
    return line;
  }
  fputs(prompt, stdout);
  fflush(stdout);
  got = getline(&line, &cap, stdin);
  if (got < 0) {
    free(line);
    return NULL;
  }
  if (got > 0 && line[got - 1] == '\n')
    line[--got] = '\0';
  *len = (size_t)got;
  return line;
}

void clua_lineedit_close(void) {
  if (active && history_path != NULL && rl.history_truncate_file != NULL)
    rl.history_truncate_file(history_path, HISTORY_LINES);
  if (complete_L != NULL)
    luaL_unref(complete_L, LUA_REGISTRYINDEX, candidates_ref);
  candidates_ref = LUA_NOREF;
  complete_L = NULL;
  free(history_path);
  history_path = NULL;
  active = 0;
}
