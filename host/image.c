/* Images and samplers: ctx:image2d{...}, ctx:sampler{...}, q:write_image,
   q:read_image. Registered after contexts and queues: clua_open_image adds
   these methods to theirs, as buffer.c defines ctx:buffer. */

/***
Images and samplers: `context:image2d`, `context:sampler`,
`queue:write_image`, `queue:read_image`. Where `d.info.image_support` is
false, making either raises `ctx:image2d: images are not supported on DEVICE`.
@module cl.image
*/
#include "check.h"
#include "objects.h"
#include "array.h"
#include "events.h"
#include "wait.h"
#include "queue.h"
#include "open.h"
#include "state.h"
#include "sim.h"

#include <stdio.h>
#include <string.h>

/* user values: image 1 the context; sampler 1 the context */

/* Image formats by name: the channel order and type, and the host array type
   whose scalars hold one channel. */
static const struct {
  const char *name;
  cl_channel_order order;
  cl_channel_type type;
  const char *host;
  int channels;
} formats[] = {
  {"float", CL_R, CL_FLOAT, "float", 1},
  {"float2", CL_RG, CL_FLOAT, "float", 2},
  {"float4", CL_RGBA, CL_FLOAT, "float", 4},
  {"half", CL_R, CL_HALF_FLOAT, "half", 1},
  {"half4", CL_RGBA, CL_HALF_FLOAT, "half", 4},
  {"int", CL_R, CL_SIGNED_INT32, "int", 1},
  {"int4", CL_RGBA, CL_SIGNED_INT32, "int", 4},
  {"uint", CL_R, CL_UNSIGNED_INT32, "uint", 1},
  {"uint4", CL_RGBA, CL_UNSIGNED_INT32, "uint", 4},
  {"short", CL_R, CL_SIGNED_INT16, "short", 1},
  {"ushort", CL_R, CL_UNSIGNED_INT16, "ushort", 1},
  {"uchar", CL_R, CL_UNSIGNED_INT8, "uchar", 1},
  {"uchar4", CL_RGBA, CL_UNSIGNED_INT8, "uchar", 4},
  {"unorm_uchar", CL_R, CL_UNORM_INT8, "uchar", 1},
  {"unorm_uchar4", CL_RGBA, CL_UNORM_INT8, "uchar", 4},
  {"unorm_ushort", CL_R, CL_UNORM_INT16, "ushort", 1},
  {"unorm_ushort4", CL_RGBA, CL_UNORM_INT16, "ushort", 4},
};
#define NFORMATS (sizeof formats / sizeof formats[0])
#define FORMAT_LIST "float, float2, float4, half, half4, int, int4, uint, uint4, short, ushort, uchar, uchar4, " \
                    "unorm_uchar, unorm_uchar4, unorm_ushort, unorm_ushort4"

static cimage *check_image(lua_State *L, int idx) { return clua_check(L, idx, T_IMAGE); }

/* Raises "METHOD: images are not supported on DEVICE" unless dev has them. */
static void need_images(lua_State *L, cl_device_id dev, const char *method) {
  cl_bool ok = CL_FALSE;
  char name[256];
  clGetDeviceInfo(dev, CL_DEVICE_IMAGE_SUPPORT, sizeof ok, &ok, NULL);
  if (!ok) luaL_error(L, "%s: images are not supported on %s", method, clua_device_name(dev, name, sizeof name));
}

/* Raises unless the array's scalars are the image format's host type. */
static void check_host_type(lua_State *L, const char *method, cimage *img, carray *a) {
  const ctype *want = clua_find_type(formats[img->format].host);
  if (a->type->size != want->size || a->type->kind != want->kind)
    luaL_error(L, "%s: a %s image takes a %s array (of any width), got %s", method, formats[img->format].name,
               want->name, a->type->name);
}

/***
A 2D image (`clCreateImage`, `CL_MEM_OBJECT_IMAGE2D`): a method of `cl.context`.
Formats, with the host array type that holds one channel: `float`, `float2`,
`float4` (`CL_FLOAT`, host `float`, read with `read_imagef`); `half`, `half4`
(`half`); `int`, `int4`, `uint`, `uint4` (`read_imagei` / `read_imageui`);
`short`, `ushort`; `uchar`, `uchar4` (`read_imageui`); `unorm_uchar`,
`unorm_uchar4`, `unorm_ushort`, `unorm_ushort4` (`read_imagef`, values in [0, 1]).
@function context:image2d
@tab spec the image
@int spec.width pixels
@int spec.height pixels
@string[opt="float"] spec.format one of the formats above
@string[opt] spec.flags as for `context:buffer`, without the `*_host_ptr` flags
@tparam[opt] cl.array spec.data initial contents, copied in at creation
@treturn cl.image the image
@raise `ctx:image2d: images are not supported on DEVICE`;
`ctx:image2d: unknown image format 'x' (expected ...)`;
`ctx:image2d: W x H exceeds the largest 2D image MW x MH on DEVICE`
@usage local img = ctx:image2d{ width = 512, height = 512, format = "float4", data = a }
*/

/***
A sampler (`clCreateSampler`): a method of `cl.context`.
@function context:sampler
@tab[opt] spec the sampler
@bool[opt=false] spec.normalized normalized coordinates
@string[opt="clamp_to_edge"] spec.address `none`, `clamp_to_edge`, `clamp`,
`repeat` or `mirrored_repeat` (the last two need `normalized = true`)
@string[opt="nearest"] spec.filter `nearest` or `linear`
@treturn cl.sampler the sampler
@raise `ctx:sampler: images are not supported on DEVICE`
*/

/***
Host array to image (`clEnqueueWriteImage`, blocking): a method of `cl.queue`.
@function queue:write_image
@tparam cl.image img the image
@tparam cl.array array the host array (its type the format's host type)
@tab[opt] opts options
@tparam[opt] {int,int} opts.origin `{x, y}` pixels (default `{0, 0}`)
@tparam[opt] {int,int} opts.region `{w, h}` pixels (default: to the far corner)
@int[opt] opts.row_pitch bytes between rows of the host array (default the region's width)
@tparam[opt] {cl.event,...} opts.wait events to wait for
@treturn cl.event the command's event
@raise when the rectangle does not fit the image or the array, or the array's type is not the format's
*/

/***
Image to host array (`clEnqueueReadImage`, blocking): a method of
`cl.queue`; the options of `queue:write_image`.
@function queue:read_image
@tparam cl.image img the image
@tparam cl.array array the host array
@tab[opt] opts `origin`, `region`, `row_pitch`, `wait`
@treturn cl.event the command's event
*/

static int ctx_image2d(lua_State *L) {
  ccontext *c = clua_check(L, 1, T_CONTEXT);
  luaL_checktype(L, 2, LUA_TTABLE);
  static const char *const valid[] = {"width", "height", "format", "flags", "data", NULL};
  clua_check_options(L, 2, valid);
  size_t w = clua_field_size(L, 2, "width", 0), h = clua_field_size(L, 2, "height", 0);
  if (!w || !h) luaL_error(L, "ctx:image2d: width and height must be at least 1 (got %I x %I)", (lua_Integer)w, (lua_Integer)h);
  const char *fmt = clua_field_string(L, 2, "format", "float");
  size_t fi = 0;
  while (fi < NFORMATS && strcmp(formats[fi].name, fmt)) fi++;
  if (fi == NFORMATS) luaL_error(L, "ctx:image2d: unknown image format '%s' (expected " FORMAT_LIST ")", fmt);
  lua_getfield(L, 2, "flags");
  cl_mem_flags f = clua_mem_flags(L, lua_gettop(L), "ctx:image2d", 0);
  lua_pop(L, 1);
  if (f & (CL_MEM_USE_HOST_PTR | CL_MEM_COPY_HOST_PTR))
    luaL_error(L, "ctx:image2d: give the initial contents as option 'data' (a cl.array), not as flags");
  cl_device_id dev = clua_ctx_device(L, 1);
  need_images(L, dev, "ctx:image2d");
  size_t pixel = (size_t)clua_find_type(formats[fi].host)->size * (size_t)formats[fi].channels;
  size_t maxw = 0, maxh = 0;
  clGetDeviceInfo(dev, CL_DEVICE_IMAGE2D_MAX_WIDTH, sizeof maxw, &maxw, NULL);
  clGetDeviceInfo(dev, CL_DEVICE_IMAGE2D_MAX_HEIGHT, sizeof maxh, &maxh, NULL);
  char name[256];
  if ((maxw && w > maxw) || (maxh && h > maxh))
    luaL_error(L, "ctx:image2d: %I x %I exceeds the largest 2D image %I x %I on %s", (lua_Integer)w, (lua_Integer)h,
               (lua_Integer)maxw, (lua_Integer)maxh, clua_device_name(dev, name, sizeof name));
  void *host = NULL;
  if (lua_getfield(L, 2, "data") != LUA_TNIL) {
    carray *a = luaL_testudata(L, -1, T_ARRAY);
    if (!a) luaL_error(L, "ctx:image2d: option 'data' must be a cl.array, got %s", luaL_typename(L, -1));
    if (a->released || !a->mem->valid)
      luaL_error(L, "ctx:image2d: option 'data' is a released cl.array or a view of an unmapped buffer");
    host = clua_array_ptr(L, a);
    cimage probe = {0, NULL, c->ctx, w, h, (int)fi, pixel, f};
    check_host_type(L, "ctx:image2d", &probe, a);
    if (clua_array_bytes(a) < w * h * pixel)
      luaL_error(L, "ctx:image2d: option 'data' holds %I bytes, the image %I", (lua_Integer)clua_array_bytes(a),
                 (lua_Integer)(w * h * pixel));
    f |= CL_MEM_COPY_HOST_PTR;
  }
  lua_pop(L, 1);
  cl_image_format format = {formats[fi].order, formats[fi].type};
  cl_image_desc desc;
  memset(&desc, 0, sizeof desc);
  desc.image_type = CL_MEM_OBJECT_IMAGE2D;
  desc.image_width = w;
  desc.image_height = h;
  cimage *img = clua_new(L, sizeof *img, T_IMAGE, 1);
  img->released = 1;
  cl_int err;
  cl_mem mem = clCreateImage(c->ctx, f, &format, &desc, host, &err);
  if (err != CL_SUCCESS && clua_collect_for(L, err)) mem = clCreateImage(c->ctx, f, &format, &desc, host, &err);
  if (err == CL_IMAGE_FORMAT_NOT_SUPPORTED)
    return clua_clerror(L, "ctx:image2d", "clCreateImage", err, "format '%s' is not supported on %s", fmt,
                        clua_device_name(dev, name, sizeof name));
  if (err != CL_SUCCESS)
    return clua_clerror(L, "ctx:image2d", "clCreateImage", err, "%I x %I %s", (lua_Integer)w, (lua_Integer)h, fmt);
  img->mem = mem;
  img->ctx = c->ctx;
  CLUA_CREATED(CNT_IMAGE);
  img->width = w;
  img->height = h;
  img->format = (int)fi;
  img->pixel = pixel;
  img->flags = f & ~(cl_mem_flags)CL_MEM_COPY_HOST_PTR;
  img->released = 0;
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  return 1;
}

/***
A 2D image (`cl.image`), made by `context:image2d`; a kernel's `image2d_t`
argument takes one. `tostring(img)` is `cl.image: 512 x 512 float4, read_only (0x...)`.
@type image
*/

/***
Releases the image (also `__gc`, `__close`; a second release does nothing).
@function image:release
*/
static int img_release(lua_State *L) {
  cimage *img = luaL_checkudata(L, 1, T_IMAGE);
  if (!img->released) {
    img->released = 1;
    CLUA_RELEASE(clReleaseMemObject(img->mem));
    clua_sim_released();
    CLUA_RELEASED(CNT_IMAGE);
  }
  return 0;
}

/***
Width in pixels.
@field width
*/
/***
Height in pixels.
@field height
*/
/***
The format's name (`"float4"`).
@field format
*/
/***
Bytes per pixel.
@field pixel_size
*/
/***
Bytes: width x height x pixel_size.
@field size
*/
/***
The flags, as a string.
@field flags
*/
/***
The context.
@field context
*/
static int img_index(lua_State *L) {
  if (clua_index_method(L)) return 1;
  cimage *img = check_image(L, 1);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "width")) lua_pushinteger(L, (lua_Integer)img->width);
  else if (!strcmp(k, "height")) lua_pushinteger(L, (lua_Integer)img->height);
  else if (!strcmp(k, "format")) lua_pushstring(L, formats[img->format].name);
  else if (!strcmp(k, "pixel_size")) lua_pushinteger(L, (lua_Integer)img->pixel);
  else if (!strcmp(k, "size")) lua_pushinteger(L, (lua_Integer)(img->width * img->height * img->pixel));
  else if (!strcmp(k, "flags")) clua_push_mem_flags(L, img->flags);
  else if (!strcmp(k, "context")) lua_getiuservalue(L, 1, 1);
  else {
    luaL_getmetafield(L, 1, "methods");
    lua_getfield(L, -1, k);
  }
  return 1;
}

static int img_tostring(lua_State *L) {
  cimage *img = luaL_checkudata(L, 1, T_IMAGE);
  if (img->released) {
    lua_pushstring(L, "cl.image (released)");
    return 1;
  }
  clua_push_mem_flags(L, img->flags);
  lua_pushfstring(L, "cl.image: %I x %I %s, %s (%p)", (lua_Integer)img->width, (lua_Integer)img->height,
                  formats[img->format].name, lua_tostring(L, -1), (void *)img->mem);
  return 1;
}

/* ---- transfers ---- */

/* Reads opts[k] = {x, y} into out, which holds the defaults. */
static void pair(lua_State *L, int t, const char *method, const char *k, size_t out[2]) {
  if (lua_isnoneornil(L, t) || lua_getfield(L, t, k) == LUA_TNIL) {
    if (!lua_isnoneornil(L, t)) lua_pop(L, 1);
    return;
  }
  if (!lua_istable(L, -1)) luaL_error(L, "%s: option '%s' must be a list {x, y}, got %s", method, k, luaL_typename(L, -1));
  for (int i = 0; i < 2; i++) {
    if (lua_geti(L, -1, i + 1) != LUA_TNIL) {
      int ok;
      lua_Integer v = lua_tointegerx(L, -1, &ok);
      if (!ok || v < 0) luaL_error(L, "%s: option '%s'[%d] must be a non-negative integer", method, k, i + 1);
      out[i] = (size_t)v;
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/* q:write_image(img, array, opts) and q:read_image(img, array, opts): a
   rectangle of pixels (opts.origin {x, y}, opts.region {w, h}; the whole image
   by default) from or to a host array holding rows of opts.row_pitch bytes
   (default: the region's width). Blocking only. */
static int image_transfer(lua_State *L, int write) {
  const char *method = write ? "queue:write_image" : "queue:read_image";
  cqueue *q = clua_check_queue(L, 1);
  if (q->npend) clua_queue_sweep(q);
  cimage *img = check_image(L, 2);
  clua_same_context(L, method, write ? "clEnqueueWriteImage" : "clEnqueueReadImage", CL_INVALID_CONTEXT, q->ctx,
                    img->ctx, "the image", "the queue");
  carray *a = clua_checkarray(L, 3);
  static const char *const valid[] = {"origin", "region", "row_pitch", "blocking", "wait", NULL};
  clua_check_options(L, 4, valid);
  if (!clua_field_bool(L, 4, "blocking", 1))
    luaL_error(L, "%s: non-blocking image transfers are not supported", method);
  check_host_type(L, method, img, a);
  size_t o[2] = {0, 0}, r[2];
  pair(L, 4, method, "origin", o);
  if (o[0] >= img->width || o[1] >= img->height)
    luaL_error(L, "%s: origin {%I, %I} lies outside the %I x %I image", method, (lua_Integer)o[0], (lua_Integer)o[1],
               (lua_Integer)img->width, (lua_Integer)img->height);
  r[0] = img->width - o[0];
  r[1] = img->height - o[1];
  pair(L, 4, method, "region", r);
  if (!r[0] || !r[1]) luaL_error(L, "%s: region sizes must be at least 1", method);
  if (r[0] > img->width - o[0] || r[1] > img->height - o[1])
    luaL_error(L, "%s: region %I x %I at {%I, %I} runs past the %I x %I image", method, (lua_Integer)r[0],
               (lua_Integer)r[1], (lua_Integer)o[0], (lua_Integer)o[1], (lua_Integer)img->width, (lua_Integer)img->height);
  size_t rowbytes = r[0] * img->pixel;
  size_t pitch = clua_field_size(L, 4, "row_pitch", rowbytes);
  if (pitch < rowbytes)
    luaL_error(L, "%s: row pitch %I is less than the region's width %I bytes", method, (lua_Integer)pitch, (lua_Integer)rowbytes);
  size_t have = clua_array_bytes(a);
  size_t need;  /* exactly: a huge pitch would wrap around */
  int over = __builtin_mul_overflow(pitch, r[1] - 1, &need) || __builtin_add_overflow(need, rowbytes, &need);
  if (over || need > have) {
    char n[32];
    if (over) snprintf(n, sizeof n, "over 2^64");
    else snprintf(n, sizeof n, "%zu", need);
    luaL_error(L, "%s: the region needs %s bytes of host array, it has %I", method, n, (lua_Integer)have);
  }
  cl_event *wl;
  cl_uint nw = clua_waitlist(L, 4, method, q->ctx, &wl);
  size_t origin[3] = {o[0], o[1], 0}, region[3] = {r[0], r[1], 1};
  void *p = clua_array_ptr(L, a);
  clua_queue_settle(L, q, method, nw, wl);  /* blocking: wait first, interruptibly */
  cl_event ev;
  cl_int err = write ? clEnqueueWriteImage(q->q, img->mem, CL_TRUE, origin, region, pitch, 0, p, nw, wl, &ev)
                     : clEnqueueReadImage(q->q, img->mem, CL_TRUE, origin, region, pitch, 0, p, nw, wl, &ev);
  if (err != CL_SUCCESS)
    return clua_clerror(L, method, write ? "clEnqueueWriteImage" : "clEnqueueReadImage", err, "%I x %I at {%I, %I}",
                        (lua_Integer)r[0], (lua_Integer)r[1], (lua_Integer)o[0], (lua_Integer)o[1]);
  clua_push_event(L, ev);
  return 1;
}
static int q_write_image(lua_State *L) { return image_transfer(L, 1); }
static int q_read_image(lua_State *L) { return image_transfer(L, 0); }

/* ---- samplers ---- */

static const struct { const char *name; cl_addressing_mode mode; } addresses[] = {
  {"none", CL_ADDRESS_NONE}, {"clamp_to_edge", CL_ADDRESS_CLAMP_TO_EDGE}, {"clamp", CL_ADDRESS_CLAMP},
  {"repeat", CL_ADDRESS_REPEAT}, {"mirrored_repeat", CL_ADDRESS_MIRRORED_REPEAT}};
#define NADDRESSES (sizeof addresses / sizeof addresses[0])

static int ctx_sampler(lua_State *L) {
  ccontext *c = clua_check(L, 1, T_CONTEXT);
  static const char *const valid[] = {"normalized", "address", "filter", NULL};
  clua_check_options(L, 2, valid);
  int normalized = clua_field_bool(L, 2, "normalized", 0);
  const char *an = clua_field_string(L, 2, "address", "clamp_to_edge");
  const char *fn = clua_field_string(L, 2, "filter", "nearest");
  size_t ai = 0;
  while (ai < NADDRESSES && strcmp(addresses[ai].name, an)) ai++;
  if (ai == NADDRESSES)
    luaL_error(L, "ctx:sampler: unknown address mode '%s' (expected none, clamp_to_edge, clamp, repeat, mirrored_repeat)", an);
  cl_filter_mode filter;
  if (!strcmp(fn, "nearest")) filter = CL_FILTER_NEAREST;
  else if (!strcmp(fn, "linear")) filter = CL_FILTER_LINEAR;
  else return luaL_error(L, "ctx:sampler: unknown filter '%s' (expected nearest or linear)", fn);
  if (!normalized && (addresses[ai].mode == CL_ADDRESS_REPEAT || addresses[ai].mode == CL_ADDRESS_MIRRORED_REPEAT))
    luaL_error(L, "ctx:sampler: address mode '%s' needs normalized coordinates (normalized=true)", an);
  need_images(L, clua_ctx_device(L, 1), "ctx:sampler");
  csampler *s = clua_new(L, sizeof *s, T_SAMPLER, 1);
  s->released = 1;
  cl_int err;
  cl_sampler smp = clCreateSampler(c->ctx, normalized ? CL_TRUE : CL_FALSE, addresses[ai].mode, filter, &err);
  if (err != CL_SUCCESS) return clua_clerror(L, "ctx:sampler", "clCreateSampler", err, "%s, %s", an, fn);
  s->s = smp;
  s->ctx = c->ctx;
  CLUA_CREATED(CNT_SAMPLER);
  s->normalized = normalized;
  s->address = (int)ai;
  s->linear = filter == CL_FILTER_LINEAR;
  s->released = 0;
  lua_pushvalue(L, 1);
  lua_setiuservalue(L, -2, 1);
  return 1;
}

/***
A sampler (`cl.sampler`), made by `context:sampler`; a kernel's `sampler_t`
argument takes one.
@type sampler
*/

/***
Releases the sampler (also `__gc`, `__close`; a second release does nothing).
@function sampler:release
*/
static int smp_release(lua_State *L) {
  csampler *s = luaL_checkudata(L, 1, T_SAMPLER);
  if (!s->released) {
    s->released = 1;
    CLUA_RELEASE(clReleaseSampler(s->s));
    CLUA_RELEASED(CNT_SAMPLER);
  }
  return 0;
}

/***
Whether coordinates are normalized.
@field normalized
*/
/***
The addressing mode's name.
@field address
*/
/***
`"nearest"` or `"linear"`.
@field filter
*/
/***
The context.
@field context
*/
static int smp_index(lua_State *L) {
  if (clua_index_method(L)) return 1;
  csampler *s = clua_check(L, 1, T_SAMPLER);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "normalized")) lua_pushboolean(L, s->normalized);
  else if (!strcmp(k, "address")) lua_pushstring(L, addresses[s->address].name);
  else if (!strcmp(k, "filter")) lua_pushstring(L, s->linear ? "linear" : "nearest");
  else if (!strcmp(k, "context")) lua_getiuservalue(L, 1, 1);
  else {
    luaL_getmetafield(L, 1, "methods");
    lua_getfield(L, -1, k);
  }
  return 1;
}

static int smp_tostring(lua_State *L) {
  csampler *s = luaL_checkudata(L, 1, T_SAMPLER);
  if (s->released) lua_pushstring(L, "cl.sampler (released)");
  else
    lua_pushfstring(L, "cl.sampler: %s coordinates, %s, %s (%p)", s->normalized ? "normalized" : "integer",
                    addresses[s->address].name, s->linear ? "linear" : "nearest", (void *)s->s);
  return 1;
}

void clua_open_image(lua_State *L) {
  static const luaL_Reg imethods[] = {{"release", img_release}, {NULL, NULL}};
  static const luaL_Reg imeta[] = {
    {"__index", img_index}, {"__gc", img_release}, {"__close", img_release}, {"__tostring", img_tostring}, {NULL, NULL}};
  clua_newtype(L, T_IMAGE, imethods, imeta);
  static const luaL_Reg smethods[] = {{"release", smp_release}, {NULL, NULL}};
  static const luaL_Reg smeta[] = {
    {"__index", smp_index}, {"__gc", smp_release}, {"__close", smp_release}, {"__tostring", smp_tostring}, {NULL, NULL}};
  clua_newtype(L, T_SAMPLER, smethods, smeta);
  static const luaL_Reg cmethods[] = {{"image2d", ctx_image2d}, {"sampler", ctx_sampler}, {NULL, NULL}};
  clua_add_methods(L, T_CONTEXT, cmethods);
  static const luaL_Reg qmethods[] = {{"write_image", q_write_image}, {"read_image", q_read_image}, {NULL, NULL}};
  clua_add_methods(L, T_QUEUE, qmethods);
}
