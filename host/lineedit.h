/* The REPL's line input (lineedit.c): with readline on a terminal (history,
   completion through clua.complete), else getline. clua_lineedit_read returns
   a malloc'd line without its newline, its length in *len (a line read by
   getline may hold a NUL), or NULL at end of input. */
#ifndef CLUA_LINEEDIT_H
#define CLUA_LINEEDIT_H

#include <stddef.h>
#include <lua.h>

void clua_lineedit_open(lua_State *L);
char *clua_lineedit_read(const char *prompt, size_t *len);
void clua_lineedit_close(void);

#endif
