/* Host arrays (array.c): typed memory on the host, for the queue, buffer,
   image and kernel code. */
#ifndef CLUA_ARRAY_H
#define CLUA_ARRAY_H

#include <stddef.h>
#include <lua.h>

#include "hostmem.h"

/* Array element types. */
typedef struct ctype {
  const char *name;
  int size;      /* bytes of one scalar */
  int lanes;     /* 1, 2 or 4 */
  char kind;     /* 'i' signed, 'u' unsigned, 'f' floating, 'h' half bits */
} ctype;
extern const ctype clua_types[];
const ctype *clua_find_type(const char *name);

typedef struct {
  int released;
  hostmem *mem;
  size_t offset;        /* bytes into mem */
  size_t n;             /* scalar elements */
  const ctype *type;
  int owner;            /* made by cl.array: releasing it ends its slices too */
} carray;

carray *clua_checkarray(lua_State *L, int idx);
void *clua_array_ptr(lua_State *L, carray *a);  /* raises if invalid */
size_t clua_array_bytes(const carray *a);
/* Stores the Lua number at idx as one scalar of type t at dst. Returns NULL,
   or (pushed) why the value does not fit. */
const char *clua_store(lua_State *L, const ctype *t, int idx, void *dst);
carray *clua_push_view(lua_State *L, hostmem *m, const ctype *t, size_t n);

#endif
