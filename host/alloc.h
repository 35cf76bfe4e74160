/* The clua program's Lua allocator (alloc.c): small blocks kept on lists for
   reuse. clua_alloc_use sets it on a new state (NULL, out of memory: the
   state keeps its own); clua_alloc_end frees what waits, after lua_close. */
#ifndef CLUA_ALLOC_H
#define CLUA_ALLOC_H

#include <lua.h>

typedef struct clua_alloc clua_alloc;
clua_alloc *clua_alloc_use(lua_State *L);
void clua_alloc_end(clua_alloc *a);

#endif
