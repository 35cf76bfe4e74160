/* Host arrays: typed, bounds-checked, 0-based; fill, ramp, random, compare,
   sum/min/max in C; slices and views over mapped buffers share memory. */

/***
Host arrays: typed memory on the host, prepared and checked at C speed.
Types: `char uchar short ushort int uint long ulong half float double` and
the vectors `float2 float4 double2 int2 int4 uint2 uint4 uchar4` (`cl.types`).
@module cl.array
*/
#include "check.h"
#include "objects.h"
#include "hostmem.h"
#include "array.h"
#include "open.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

const ctype clua_types[] = {
  {"char", 1, 1, 'i'},   {"uchar", 1, 1, 'u'},  {"short", 2, 1, 'i'},  {"ushort", 2, 1, 'u'},
  {"int", 4, 1, 'i'},    {"uint", 4, 1, 'u'},   {"long", 8, 1, 'i'},   {"ulong", 8, 1, 'u'},
  {"half", 2, 1, 'h'},   {"float", 4, 1, 'f'},  {"double", 8, 1, 'f'},
  {"float2", 4, 2, 'f'}, {"float4", 4, 4, 'f'}, {"double2", 8, 2, 'f'},
  {"int2", 4, 2, 'i'},   {"int4", 4, 4, 'i'},   {"uint2", 4, 2, 'u'},  {"uint4", 4, 4, 'u'},
  {"uchar4", 1, 4, 'u'}, {NULL, 0, 0, 0}};

const ctype *clua_find_type(const char *name) {
  for (const ctype *t = clua_types; t->name; t++)
    if (!strcmp(t->name, name)) return t;
  return NULL;
}

static const ctype *check_type(lua_State *L, int idx) {
  const char *name = luaL_checkstring(L, idx);
  const ctype *t = clua_find_type(name);
  if (!t) {
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (const ctype *u = clua_types; u->name; u++) {
      if (u != clua_types) luaL_addstring(&b, ", ");
      luaL_addstring(&b, u->name);
    }
    luaL_pushresult(&b);
    luaL_argerror(L, idx, lua_pushfstring(L, "unknown array type '%s' (expected one of %s)", name, lua_tostring(L, -1)));
  }
  return t;
}

size_t clua_array_bytes(const carray *a) { return a->n * (size_t)a->type->size; }

#define UNMAPPED "attempt to use a view of an unmapped or released buffer"

/* Pushes why a live slice cannot be used: the array it slices was released. */
static const char *push_dropped(lua_State *L, const hostmem *m) {
  const ctype *t = m->dropped;
  return lua_pushfstring(L, "attempt to use a slice of a released cl.array (%s, %I elements)", t->name,
                         (lua_Integer)(m->size / (size_t)t->size / (size_t)t->lanes));
}

void *clua_array_ptr(lua_State *L, carray *a) {
  if (a->released) luaL_error(L, "attempt to use a released cl.array");
  if (a->mem->dropped) luaL_error(L, "cl.array: %s", push_dropped(L, a->mem));  /* a[i], a[i] = v */
  if (!a->mem->valid) luaL_error(L, "cl.array: " UNMAPPED);
  return (char *)a->mem->ptr + a->offset;
}

carray *clua_checkarray(lua_State *L, int idx) {
  carray *a = clua_check(L, idx, T_ARRAY);
  if (a->mem->dropped) luaL_argerror(L, idx, push_dropped(L, a->mem));  /* names the call */
  if (!a->mem->valid) luaL_argerror(L, idx, UNMAPPED);
  return a;
}

static carray *push_array(lua_State *L, hostmem *m, size_t offset, const ctype *t, size_t n) {
  carray *a = clua_new(L, sizeof *a, T_ARRAY, 1);
  hostmem_ref(m);
  a->mem = m;
  a->offset = offset;
  a->type = t;
  a->n = n;
  return a;
}

carray *clua_push_view(lua_State *L, hostmem *m, const ctype *t, size_t n) {
  return push_array(L, m, 0, t, n);
}

int clua_array(lua_State *L) {
  const ctype *t = check_type(L, 1);
  size_t n = clua_checksize(L, 2, "length");
  if (n > SIZE_MAX / 16 / (size_t)t->lanes) luaL_argerror(L, 2, "length too large");
  size_t scalars = n * (size_t)t->lanes;
  carray *a = clua_new(L, sizeof *a, T_ARRAY, 1);
  a->released = 1;
  a->mem = hostmem_new(L, scalars * (size_t)t->size);
  a->released = 0;
  a->type = t;
  a->n = scalars;
  a->owner = 1;
  return 1;
}

/* ---- element access ---- */

/* Elements are loaded and stored through memcpy (one move once compiled): a
   view mapped at any byte offset may be misaligned for its type. */
#define LOAD(T, p) (memcpy(&ld.T, (p), sizeof ld.T), ld.T)
#define STORE(T, p, v) do { st.T = (v); memcpy((p), &st.T, sizeof st.T); } while (0)
typedef union { float f; double d; int8_t i8; int16_t i16; int32_t i32; int64_t i64;
                uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64; } scalar_bits;

static double get_num(const carray *a, const void *base, size_t i) {
  const char *p = (const char *)base + i * (size_t)a->type->size;
  scalar_bits ld;
  switch (a->type->kind) {
    case 'f': return a->type->size == 4 ? LOAD(f, p) : LOAD(d, p);
    case 'i':
      switch (a->type->size) {
        case 1: return LOAD(i8, p);
        case 2: return LOAD(i16, p);
        case 4: return LOAD(i32, p);
        default: return (double)LOAD(i64, p);
      }
    default:
      switch (a->type->size) {
        case 1: return LOAD(u8, p);
        case 2: return LOAD(u16, p);
        case 4: return LOAD(u32, p);
        default: return (double)LOAD(u64, p);
      }
  }
}

static int64_t get_i64(const void *base, size_t i) {
  scalar_bits ld;
  return LOAD(i64, (const char *)base + i * 8);
}

static void push_elem(lua_State *L, const carray *a, const void *base, size_t i) {
  if (a->type->kind == 'f') lua_pushnumber(L, get_num(a, base, i));
  else if (a->type->size == 8) lua_pushinteger(L, get_i64(base, i));  /* ulong wraps past 2^63 */
  else lua_pushinteger(L, (lua_Integer)get_num(a, base, i));
}

/* Stores v (already checked to fit) into element i. */
static void put_num(const carray *a, void *base, size_t i, double v, lua_Integer iv, int isint) {
  char *p = (char *)base + i * (size_t)a->type->size;
  scalar_bits st;
  if (a->type->kind == 'f') {
    if (a->type->size == 4) STORE(f, p, (float)v);
    else STORE(d, p, v);
    return;
  }
  if (!isint) iv = (lua_Integer)v;
  switch (a->type->size) {
    case 1: STORE(u8, p, (uint8_t)iv); break;
    case 2: STORE(u16, p, (uint16_t)iv); break;
    case 4: STORE(u32, p, (uint32_t)iv); break;
    default: STORE(i64, p, iv); break;
  }
}

/* Reads the Lua value at idx for an element of a. Returns NULL, or a message
   (pushed) saying why it does not fit. */
static const char *get_value(lua_State *L, const carray *a, int idx, double *v, lua_Integer *iv, int *isint) {
  if (lua_type(L, idx) != LUA_TNUMBER)
    return lua_pushfstring(L, "a number expected for a %s value, got %s", a->type->name, luaL_typename(L, idx));
  *v = lua_tonumber(L, idx);
  *isint = lua_isinteger(L, idx);
  if (*isint) *iv = lua_tointeger(L, idx);
  if (a->type->kind == 'f') return NULL;
  if (!*isint) {
    if (*v != floor(*v) || !(*v >= -9.2233720368547758e18 && *v < 9.2233720368547758e18))
      return lua_pushfstring(L, "%s values are integers, got %s", a->type->name, lua_tostring(L, idx));
    *iv = (lua_Integer)*v;
    *isint = 1;
  }
  if (a->type->size < 8) {
    int bits = 8 * a->type->size;
    lua_Integer lo = a->type->kind == 'i' ? -((lua_Integer)1 << (bits - 1)) : 0;
    lua_Integer hi = a->type->kind == 'i' ? ((lua_Integer)1 << (bits - 1)) - 1 : ((lua_Integer)1 << bits) - 1;
    if (*iv < lo || *iv > hi) return lua_pushfstring(L, "%I does not fit a %s (%I to %I)", *iv, a->type->name, lo, hi);
  }
  return NULL;
}

static void check_value(lua_State *L, const char *method, const carray *a, int idx, double *v, lua_Integer *iv,
                        int *isint) {
  const char *why = get_value(L, a, idx, v, iv, isint);
  if (why) luaL_error(L, "%s: %s", method, why);
}

const char *clua_store(lua_State *L, const ctype *t, int idx, void *dst) {
  carray tmp = {0, NULL, 0, 1, t, 0};
  double v;
  lua_Integer iv = 0;
  int isint;
  const char *why = get_value(L, &tmp, idx, &v, &iv, &isint);
  if (!why) put_num(&tmp, dst, 0, v, iv, isint);
  return why;
}

static size_t check_index(lua_State *L, const carray *a, int idx) {
  int isnum;
  lua_Integer i = lua_tointegerx(L, idx, &isnum);
  if (!isnum) luaL_error(L, "cl.array: index must be an integer, got %s", luaL_typename(L, idx));
  if (i < 0 || (size_t)i >= a->n)
    luaL_error(L, "cl.array: index %I out of range (a %s array of %I elements, indices 0 to %I)", i,
               a->type->name, (lua_Integer)a->n, (lua_Integer)a->n - 1);
  return (size_t)i;
}

/***
A typed host array (`cl.array`), made by `cl.array(type, n)`, `queue:map`
(a view over mapped memory) or `array:slice`. Elements are 0-based and
bounds-checked: `a[i]`, `a[i] = x` (a value that does not fit the type, 300
in a `uchar` or 1.5 in an `int`, raises); `#a` is the number of scalar
elements. Vector arrays are flat: `cl.array("float4", n)` holds 4n floats,
`a[i]` is float number i and `#a` is 4n. `half` is stored as `ushort` bits.
`tostring(a)` is `cl.array: N TYPE {v0, v1, ...}`: the first values (8 scalars,
whole vectors as `{x, y}`), then `… (K more)` when there are more.
@type array
@usage local a = cl.array("float", 4):ramp(1)   -- 1, 2, 3, 4
print(a[0], #a, a:sum())
*/

/***
The type's name (`"float"`, `"float4"`, ...).
@field type
*/
/***
The number of elements of the type (of vectors, for a vector type).
@field n
*/
/***
Bytes.
@field size
*/
/***
Bytes of one scalar element.
@field elem_size
*/
/***
Scalars per element: 1, or 2 and 4 for vector types.
@field lanes
*/
/***
False once the array (or the buffer a view maps) was released or unmapped.
@field valid
*/
static int arr_index(lua_State *L) {
  carray *a = luaL_checkudata(L, 1, T_ARRAY);
  if (lua_type(L, 2) == LUA_TSTRING) {
    const char *k = lua_tostring(L, 2);
    if (!strcmp(k, "type")) lua_pushstring(L, a->type->name);
    else if (!strcmp(k, "n")) lua_pushinteger(L, (lua_Integer)(a->n / (size_t)a->type->lanes));
    else if (!strcmp(k, "size")) lua_pushinteger(L, (lua_Integer)clua_array_bytes(a));
    else if (!strcmp(k, "elem_size")) lua_pushinteger(L, a->type->size);
    else if (!strcmp(k, "lanes")) lua_pushinteger(L, a->type->lanes);
    else if (!strcmp(k, "valid")) lua_pushboolean(L, !a->released && !a->mem->dropped && a->mem->valid);
    else {
      luaL_getmetafield(L, 1, "methods");
      lua_getfield(L, -1, k);
    }
    return 1;
  }
  void *base = clua_array_ptr(L, a);
  push_elem(L, a, base, check_index(L, a, 2));
  return 1;
}

static int arr_newindex(lua_State *L) {
  carray *a = luaL_checkudata(L, 1, T_ARRAY);
  void *base = clua_array_ptr(L, a);
  size_t i = check_index(L, a, 2);
  double v;
  lua_Integer iv = 0;
  int isint;
  check_value(L, "cl.array", a, 3, &v, &iv, &isint);
  put_num(a, base, i, v, iv, isint);
  return 0;
}

static int arr_len(lua_State *L) {
  carray *a = luaL_checkudata(L, 1, T_ARRAY);
  lua_pushinteger(L, (lua_Integer)a->n);
  return 1;
}

/***
Sets every element to one value.
@function array:fill
@number x the value (it must fit the type)
@treturn cl.array the array itself
*/
static int arr_fill(lua_State *L) {
  carray *a = clua_checkarray(L, 1);
  void *base = clua_array_ptr(L, a);
  double v;
  lua_Integer iv = 0;
  int isint;
  check_value(L, "array:fill", a, 2, &v, &iv, &isint);
  for (size_t i = 0; i < a->n; i++) put_num(a, base, i, v, iv, isint);
  lua_settop(L, 1);
  return 1;
}

/***
`a[i] = start + i * step` for every element.
@function array:ramp
@number[opt=0] start
@number[opt=1] step
@treturn cl.array the array itself
*/
static int arr_ramp(lua_State *L) {
  carray *a = clua_checkarray(L, 1);
  void *base = clua_array_ptr(L, a);
  double start = luaL_optnumber(L, 2, 0), step = luaL_optnumber(L, 3, 1);
  if (a->type->kind == 'f') {
    for (size_t i = 0; i < a->n; i++) put_num(a, base, i, start + (double)i * step, 0, 0);
  } else {
    lua_Integer s = (lua_Integer)start, d = (lua_Integer)step;
    if ((double)s != start || (double)d != step) luaL_error(L, "array:ramp: integer arrays take an integer start and step");
    for (size_t i = 0; i < a->n; i++)  /* wraps around like Lua integers: unsigned, no signed overflow */
      put_num(a, base, i, 0, (lua_Integer)((uint64_t)s + (uint64_t)i * (uint64_t)d), 1);
  }
  lua_settop(L, 1);
  return 1;
}

/* splitmix64: fast, reproducible from a seed, good enough for test data */
static uint64_t next_rand(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/***
Reproducible pseudo-random values: uniform in `[lo, hi)` for float types,
integers in `[lo, hi]` for integer types.
@function array:random
@int seed the seed (the same seed gives the same values everywhere)
@number[opt=0] lo
@number[opt] hi default 1 for float types, 1000000 for 4- and 8-byte
integers, 100 (signed) or 200 (unsigned) for smaller ones
@treturn cl.array the array itself
@raise `array:random: hi (H) is below lo (L)`
*/
static int arr_random(lua_State *L) {
  carray *a = clua_checkarray(L, 1);
  void *base = clua_array_ptr(L, a);
  uint64_t seed = (uint64_t)luaL_checkinteger(L, 2);
  if (a->type->kind == 'f') {
    double lo = luaL_optnumber(L, 3, 0), hi = luaL_optnumber(L, 4, 1);
    for (size_t i = 0; i < a->n; i++) {
      double u = (double)(next_rand(&seed) >> 11) * 0x1.0p-53;
      put_num(a, base, i, lo + (hi - lo) * u, 0, 0);
    }
  } else {
    lua_Integer lo = luaL_optinteger(L, 3, 0);
    lua_Integer hi = luaL_optinteger(L, 4, a->type->size >= 4 ? 1000000 : (a->type->kind == 'i' ? 100 : 200));
    if (hi < lo) luaL_error(L, "array:random: hi (%I) is below lo (%I)", hi, lo);
    lua_pushinteger(L, lo);
    double d;
    lua_Integer iv;
    int isint;
    check_value(L, "array:random", a, -1, &d, &iv, &isint);
    lua_pushinteger(L, hi);
    check_value(L, "array:random", a, -1, &d, &iv, &isint);
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
    for (size_t i = 0; i < a->n; i++) {
      uint64_t r = next_rand(&seed);
      put_num(a, base, i, 0, (lua_Integer)((uint64_t)lo + (span ? r % span : r)), 1);
    }
  }
  lua_settop(L, 1);
  return 1;
}

/***
Copies another array of the same type and length into this one.
@function array:copy
@tparam cl.array src the source
@treturn cl.array the array itself
*/
static int arr_copy(lua_State *L) {
  carray *a = clua_checkarray(L, 1);
  carray *b = clua_checkarray(L, 2);
  if (a->type->size != b->type->size || a->type->kind != b->type->kind || a->n != b->n)
    luaL_error(L, "array:copy: source is %I %s elements, destination %I %s elements; they must match",
               (lua_Integer)b->n, b->type->name, (lua_Integer)a->n, a->type->name);
  memmove(clua_array_ptr(L, a), clua_array_ptr(L, b), clua_array_bytes(a));
  lua_settop(L, 1);
  return 1;
}

/***
A view of `n` elements from `first`, sharing this array's memory; it keeps
the array alive, and raises once the array is released.
@function array:slice
@int first 0-based
@int n elements
@treturn cl.array the view
*/
static int arr_slice(lua_State *L) {
  carray *a = clua_checkarray(L, 1);
  size_t first = clua_checksize(L, 2, "first");
  size_t n = clua_checksize(L, 3, "count");
  if (first > a->n || n > a->n - first)
    luaL_error(L, "array:slice: %I elements from %I run past the end of an array of %I", (lua_Integer)n,
               (lua_Integer)first, (lua_Integer)a->n);
  push_array(L, a->mem, a->offset + first * (size_t)a->type->size, a->type, n);
  /* a view's buffer, or the array that made the memory, stays alive with its
     slices: only an explicit release of that array ends them */
  if (lua_getiuservalue(L, 1, 1) == LUA_TNIL && a->owner) {
    lua_pop(L, 1);
    lua_pushvalue(L, 1);
  }
  lua_setiuservalue(L, -2, 1);
  return 1;
}

/* dst:gather(src, first, stride): dst[i] = src[first + i*stride]. */
/***
`a[i] = src[first + i * stride]` for every element of this array (same type; bounds-checked).
@function array:gather
@tparam cl.array src the source
@int first 0-based
@int[opt=1] stride
@treturn cl.array the array itself
*/
static int arr_gather(lua_State *L) {
  carray *d = clua_checkarray(L, 1);
  carray *s = clua_checkarray(L, 2);
  size_t first = clua_checksize(L, 3, "first");
  size_t stride = clua_optsize(L, 4, 1, "stride");
  if (d->type->size != s->type->size || d->type->kind != s->type->kind)
    luaL_error(L, "array:gather: source is %s, destination %s; they must match", s->type->name, d->type->name);
  if (d->n && (first >= s->n || stride * (d->n - 1) > s->n - 1 - first || (stride && (d->n - 1) > SIZE_MAX / stride)))
    luaL_error(L, "array:gather: %I elements from %I by %I run past the end of the source (%I elements)",
               (lua_Integer)d->n, (lua_Integer)first, (lua_Integer)stride, (lua_Integer)s->n);
  size_t es = (size_t)d->type->size;
  char *dp = clua_array_ptr(L, d);
  const char *sp = (const char *)clua_array_ptr(L, s) + first * es;
  for (size_t i = 0; i < d->n; i++) memcpy(dp + i * es, sp + i * stride * es, es);
  lua_settop(L, 1);
  return 1;
}

/* dst:transpose(src, rows, cols): src is rows x cols, row-major; dst becomes
   its cols x rows transpose. */
/***
This array becomes the `cols x rows` transpose of the row-major `rows x cols` array `src`.
@function array:transpose
@tparam cl.array src the source (not sharing memory with this array)
@int rows
@int cols
@treturn cl.array the array itself
@raise `array:transpose: R x C elements do not fit the arrays (N and M elements)`
*/
static int arr_transpose(lua_State *L) {
  carray *d = clua_checkarray(L, 1);
  carray *s = clua_checkarray(L, 2);
  size_t rows = clua_checksize(L, 3, "rows"), cols = clua_checksize(L, 4, "cols");
  if (d->type->size != s->type->size || d->type->kind != s->type->kind)
    luaL_error(L, "array:transpose: source is %s, destination %s; they must match", s->type->name, d->type->name);
  if (cols && rows > SIZE_MAX / cols) luaL_error(L, "array:transpose: rows x cols overflows");
  if (rows * cols > s->n || rows * cols > d->n)
    luaL_error(L, "array:transpose: %I x %I elements do not fit the arrays (%I and %I elements)", (lua_Integer)rows,
               (lua_Integer)cols, (lua_Integer)s->n, (lua_Integer)d->n);
  if (d->mem == s->mem) luaL_error(L, "array:transpose: source and destination share memory");
  if (rows == 0 || cols == 0) {  /* nothing to move (and no loop over 2^63 empty rows) */
    lua_settop(L, 1);
    return 1;
  }
  size_t es = (size_t)d->type->size;
  char *dp = clua_array_ptr(L, d);
  const char *sp = clua_array_ptr(L, s);
  for (size_t r = 0; r < rows; r++)
    for (size_t c = 0; c < cols; c++) memcpy(dp + (c * rows + r) * es, sp + (r * cols + c) * es, es);
  lua_settop(L, 1);
  return 1;
}

/***
Compares with a reference element by element, in C. Floats pass when
`|a - r| <= tol * max(1, |r|)`; NaN matches only NaN; integers compare exactly
unless `tol` is given.
@function array:compare
@tparam cl.array ref the reference (same length; any type)
@number[opt] tol default 0 for integers, 1e-5 when either array is floating point
@treturn boolean ok
@treturn number the largest absolute difference
@treturn number the largest relative difference
@treturn ?int the first bad index (nil when ok)
@treturn int the number of bad elements
@raise `array:compare: lengths differ (N and M elements)`
*/
static int arr_compare(lua_State *L) {
  carray *a = clua_checkarray(L, 1);
  carray *r = clua_checkarray(L, 2);
  if (a->n != r->n)
    luaL_error(L, "array:compare: lengths differ (%I and %I elements)", (lua_Integer)a->n, (lua_Integer)r->n);
  int isfloat = a->type->kind == 'f' || r->type->kind == 'f';
  double tol = luaL_optnumber(L, 3, isfloat ? 1e-5 : 0);
  const void *pa = clua_array_ptr(L, a), *pr = clua_array_ptr(L, r);
  double maxabs = 0, maxrel = 0;
  size_t bad = SIZE_MAX;
  size_t nbad = 0;
  /* Arrays of one type, bit for bit the same (a device's exact copy): every
     difference is 0 (identical NaNs match, an infinity's x - y is NaN, which
     raises neither maximum), so the loop below would find what this finds at
     memcmp's speed. */
  if (a->type == r->type && memcmp(pa, pr, clua_array_bytes(a)) == 0) {
    lua_pushboolean(L, 1);
    lua_pushnumber(L, 0);
    lua_pushnumber(L, 0);
    lua_pushnil(L);
    lua_pushinteger(L, 0);
    return 5;
  }
  int exact64 = !isfloat && a->type->size == 8 && r->type->size == 8;
  for (size_t i = 0; i < a->n; i++) {
    double x = get_num(a, pa, i), y = get_num(r, pr, i);
    double d = fabs(x - y);
    int wrong;
    if (exact64) {
      int64_t xi = get_i64(pa, i), yi = get_i64(pr, i);
      wrong = tol == 0 ? xi != yi : d > tol;
    } else if (isnan(x) || isnan(y)) {
      wrong = !(isnan(x) && isnan(y));
      if (wrong) d = INFINITY;
    } else {
      wrong = isfloat ? d > tol * fmax(1.0, fabs(y)) : d > tol;
    }
    if (d > maxabs) maxabs = d;
    double rel = y != 0 ? d / fabs(y) : d;
    if (rel > maxrel) maxrel = rel;
    if (wrong) {
      if (bad == SIZE_MAX) bad = i;
      nbad++;
    }
  }
  lua_pushboolean(L, bad == SIZE_MAX);
  lua_pushnumber(L, maxabs);
  lua_pushnumber(L, maxrel);
  if (bad == SIZE_MAX) lua_pushnil(L);
  else lua_pushinteger(L, (lua_Integer)bad);
  lua_pushinteger(L, (lua_Integer)nbad);
  return 5;
}

/***
The sum of the elements, computed in C: an integer for integer types of up
to 4 bytes, else a compensated (Kahan) double sum.
@function array:sum
@treturn number the sum
*/
static int arr_sum(lua_State *L) {
  carray *a = clua_checkarray(L, 1);
  const void *p = clua_array_ptr(L, a);
  if (a->type->kind != 'f' && a->type->size < 8) {
    uint64_t s = 0;  /* wraps around like Lua integers (past 2^63: more than 2^31 elements of 2^32) */
    for (size_t i = 0; i < a->n; i++) s += (uint64_t)(lua_Integer)get_num(a, p, i);
    lua_pushinteger(L, (lua_Integer)s);
    return 1;
  }
  double s = 0, c = 0;  /* Kahan: the reference for float reductions */
  for (size_t i = 0; i < a->n; i++) {
    double y = get_num(a, p, i) - c, t = s + y;
    c = (t - s) - y;
    s = t;
  }
  lua_pushnumber(L, s);
  return 1;
}

static int minmax(lua_State *L, int wantmax) {
  carray *a = clua_checkarray(L, 1);
  if (a->n == 0) return 0;
  const void *p = clua_array_ptr(L, a);
  size_t best = 0;
  double bv = get_num(a, p, 0);
  for (size_t i = 1; i < a->n; i++) {
    double v = get_num(a, p, i);
    if (wantmax ? v > bv : v < bv) {
      bv = v;
      best = i;
    }
  }
  push_elem(L, a, p, best);
  lua_pushinteger(L, (lua_Integer)best);
  return 2;
}
/***
The smallest element and its index.
@function array:min
@treturn number the value
@treturn int its 0-based index
*/
static int arr_min(lua_State *L) { return minmax(L, 0); }
/***
The largest element and its index.
@function array:max
@treturn number the value
@treturn int its 0-based index
*/
static int arr_max(lua_State *L) { return minmax(L, 1); }

/***
The elements as a Lua list (element i of the array is `t[i + 1]`).
@function array:totable
@int[opt=0] first 0-based
@int[opt] n elements (default to the end)
@treturn {number,...} the list
*/
static int arr_totable(lua_State *L) {
  carray *a = clua_checkarray(L, 1);
  size_t first = clua_optsize(L, 2, 0, "first");
  size_t n = clua_optsize(L, 3, first <= a->n ? a->n - first : 0, "count");
  if (first > a->n || n > a->n - first)
    luaL_error(L, "array:totable: %I elements from %I run past the end of an array of %I", (lua_Integer)n,
               (lua_Integer)first, (lua_Integer)a->n);
  if (n > INT32_MAX) luaL_error(L, "array:totable: too many elements");
  lua_createtable(L, (int)n, 0);
  const void *p = clua_array_ptr(L, a);
  for (size_t i = 0; i < n; i++) {
    push_elem(L, a, p, first + i);
    lua_rawseti(L, -2, (lua_Integer)i + 1);
  }
  return 1;
}

/***
Frees the memory (also `__close`, and `__gc` once no slice holds the array);
its slices raise from then on, naming it. A transfer still running keeps the
memory until it ends. A second release does nothing.
@function array:release
*/
static int arr_release(lua_State *L) {
  carray *a = luaL_checkudata(L, 1, T_ARRAY);
  if (!a->released) {
    a->released = 1;
    if (a->owner) a->mem->dropped = a->type;  /* its slices end with it; transfers in flight keep the memory */
    hostmem_unref(a->mem);
    a->mem = NULL;
  }
  return 0;
}

/* Adds scalar i to b as the REPL shows it: a float in its own precision
   (0.1f as 0.1), an integer as itself (a ulong past 2^63 unsigned). */
static void add_scalar(luaL_Buffer *b, const carray *a, const void *base, size_t i) {
  char s[48];
  double v = get_num(a, base, i);
  if (a->type->kind == 'f' && isnan(v)) snprintf(s, sizeof s, "nan");  /* not -nan: the sign of a NaN says nothing */
  else if (a->type->kind == 'f') snprintf(s, sizeof s, a->type->size == 4 ? "%.7g" : "%.14g", v);
  else if (a->type->size == 8 && a->type->kind == 'u') snprintf(s, sizeof s, "%llu", (unsigned long long)get_i64(base, i));
  else if (a->type->size == 8) snprintf(s, sizeof s, "%lld", (long long)get_i64(base, i));
  else snprintf(s, sizeof s, "%.0f", v);
  luaL_addstring(b, s);
}

#define SHOWN 8  /* scalars tostring shows at most (whole vectors, at least one) */

/* `cl.array: 4 float {1, 2, 3, 4}`; a long array ends `… (N more)`, a vector
   type shows its elements as `{x, y}`; the first few values only, whatever the
   size. Memory that may be gone (released, unmapped) is never read. */
static int arr_tostring(lua_State *L) {
  carray *a = luaL_checkudata(L, 1, T_ARRAY);
  if (a->released) lua_pushfstring(L, "cl.array: %s (released)", a->type->name);
  else if (a->mem->dropped) lua_pushfstring(L, "cl.array: %s (a slice of a released array)", a->type->name);
  else if (a->mem->mapped && !a->mem->valid)
    lua_pushfstring(L, "cl.array: %I %s, unmapped view (no values)", (lua_Integer)(a->n / (size_t)a->type->lanes),
                    a->type->name);
  else {
    size_t lanes = (size_t)a->type->lanes, n = a->n / lanes;
    size_t shown = SHOWN / lanes < n ? SHOWN / lanes : n;
    const void *base = (const char *)a->mem->ptr + a->offset;
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    lua_pushfstring(L, "cl.array: %I %s%s {", (lua_Integer)n, a->type->name, a->mem->mapped ? ", mapped view" : "");
    luaL_addvalue(&b);
    for (size_t e = 0; e < shown; e++) {
      if (e) luaL_addstring(&b, ", ");
      if (lanes > 1) luaL_addchar(&b, '{');
      for (size_t k = 0; k < lanes; k++) {
        if (k) luaL_addstring(&b, ", ");
        add_scalar(&b, a, base, e * lanes + k);
      }
      if (lanes > 1) luaL_addchar(&b, '}');
    }
    if (shown < n) {
      lua_pushfstring(L, "%s\xe2\x80\xa6 (%I more)", shown ? ", " : "", (lua_Integer)(n - shown));
      luaL_addvalue(&b);
    }
    luaL_addchar(&b, '}');
    luaL_pushresult(&b);
  }
  return 1;
}

void clua_open_array(lua_State *L) {
  static const luaL_Reg methods[] = {
    {"fill", arr_fill}, {"ramp", arr_ramp}, {"random", arr_random}, {"copy", arr_copy},
    {"slice", arr_slice}, {"gather", arr_gather}, {"transpose", arr_transpose}, {"compare", arr_compare}, {"sum", arr_sum}, {"min", arr_min},
    {"max", arr_max}, {"totable", arr_totable}, {"release", arr_release}, {NULL, NULL}};
  static const luaL_Reg meta[] = {
    {"__index", arr_index}, {"__newindex", arr_newindex}, {"__len", arr_len},
    {"__gc", arr_release}, {"__close", arr_release}, {"__tostring", arr_tostring}, {NULL, NULL}};
  clua_newtype(L, T_ARRAY, methods, meta);
}
