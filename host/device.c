/* Platforms and devices: enumeration, the info table, the default device
   (d:nvml is nvml.c's clua_nvml). */

/***
Platforms and devices: what `cl.platforms`, `cl.devices` and `cl.device` return.
@module cl.device
@usage for _, d in ipairs(cl.devices()) do print(d.platform, d.name, d.info.global_mem_size) end
*/
#include "check.h"
#include "objects.h"
#include "open.h"
#include "state.h"

#include <dirent.h>
#include <dlfcn.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CL_DEVICE_GPU_OVERLAP_NV
#define CL_DEVICE_GPU_OVERLAP_NV 0x4004
#define CL_DEVICE_KERNEL_EXEC_TIMEOUT_NV 0x4005
#define CL_DEVICE_INTEGRATED_MEMORY_NV 0x4006
#endif

/* The platform list, malloc'd (the caller frees it). */
static cl_uint get_platforms(lua_State *L, cl_platform_id **out) {
  cl_uint n = 0;
  *out = NULL;
  cl_int err = clGetPlatformIDs(0, NULL, &n);
  if (err == CL_PLATFORM_NOT_FOUND_KHR || (err == CL_SUCCESS && n == 0)) return 0;
  if (err != CL_SUCCESS) clua_clerror(L, "cl.platforms", "clGetPlatformIDs", err, NULL);
  cl_platform_id *ids = malloc(sizeof *ids * n);
  if (!ids) luaL_error(L, "cl.platforms: out of memory");
  err = clGetPlatformIDs(n, ids, NULL);
  if (err != CL_SUCCESS) {
    free(ids);
    clua_clerror(L, "cl.platforms", "clGetPlatformIDs", err, NULL);
  }
  *out = ids;
  return n;
}

static void push_platform(lua_State *L, cl_platform_id id, int index) {
  cplatform *p = clua_new(L, sizeof *p, T_PLATFORM, 0);
  p->id = id;
  p->index = index;
}

/* The driver library an .icd file names (its first line), or NULL. */
static char *icd_library(const char *path, char *buf, size_t len) {
  FILE *f = fopen(path, "r");
  if (!f) return NULL;
  char *line = fgets(buf, (int)len, f);
  fclose(f);
  if (!line) return NULL;
  line[strcspn(line, "\r\n")] = 0;
  return *line ? line : NULL;
}

/* Whether the library loads; if not, why (dlerror) into why. */
static int loads(const char *lib, char *why, size_t len) {
  void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
  if (h) {
    dlclose(h);
    return 1;
  }
  const char *e = dlerror();
  snprintf(why, len, "%s", e ? e : "dlopen failed");
  return 0;
}

/* No OpenCL platform: one line saying why, from what the ICD loader (ocl-icd)
   reads: the .icd files of OCL_ICD_VENDORS (a folder, an .icd file or a
   library), OPENCL_VENDOR_PATH or /etc/OpenCL/vendors, and whether the driver
   library each names loads. */
static void no_platform(lua_State *L) {
  static const char *install = "install an OpenCL driver: on Debian apt-get install pocl-opencl-icd for the CPU, or "
                               "your GPU vendor's driver, which puts an .icd file in /etc/OpenCL/vendors";
  const char *var = "OCL_ICD_VENDORS", *where = getenv(var);
  if (!where || !*where) where = getenv(var = "OPENCL_VENDOR_PATH");
  if (!where || !*where) {
    where = "/etc/OpenCL/vendors";
    var = NULL;
  }
  char lib[1024], why[1024], first[8192] = "", file[4096];
  int nicd = 0, nbad = 0;
  struct stat st;
  DIR *dir = stat(where, &st) == 0 && S_ISDIR(st.st_mode) ? opendir(where) : NULL;
  if (dir) {
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
      size_t n = strlen(e->d_name);
      if (n < 5 || strcmp(e->d_name + n - 4, ".icd")) continue;
      snprintf(file, sizeof file, "%s/%s", where, e->d_name);
      nicd++;
      if (!icd_library(file, lib, sizeof lib)) snprintf(why, sizeof why, "it names no library");
      else if (loads(lib, why, sizeof why)) continue;
      if (!nbad++) snprintf(first, sizeof first, "the OpenCL driver named by %s does not load (%s)", file, why);
    }
    closedir(dir);
  } else if (var && strlen(where) > 4 && !strcmp(where + strlen(where) - 4, ".icd")) {
    snprintf(file, sizeof file, "%s%s", strchr(where, '/') ? "" : "/etc/OpenCL/vendors/", where);
    nicd = 1;
    if (!icd_library(file, lib, sizeof lib)) snprintf(why, sizeof why, "it cannot be read, or names no library");
    else if (loads(lib, why, sizeof why)) nbad = -1;
    if (nbad++ == 0) snprintf(first, sizeof first, "the OpenCL driver named by %s does not load (%s)", file, why);
  } else if (var) {  /* a library name */
    nicd = 1;
    if (!loads(where, why, sizeof why)) {
      nbad = 1;
      snprintf(first, sizeof first, "the OpenCL driver %s=%s does not load (%s)", var, where, why);
    }
  }
  if (nicd == 0 && var)
    lua_pushfstring(L, "no OpenCL platform: %s=%s holds no .icd file: unset %s, or %s", var, where, var, install);
  else if (nicd == 0)
    lua_pushfstring(L, "no OpenCL platform: %s holds no .icd file: %s", where, install);
  else if (nbad)
    lua_pushfstring(L, "no OpenCL platform: %s%s: reinstall that driver, or remove its .icd file%s", first,
                    nbad > 1 ? lua_pushfstring(L, ", nor do %d other", nbad - 1) : "",
                    var ? lua_pushfstring(L, " (or unset %s)", var) : "");
  else
    lua_pushfstring(L, "no OpenCL platform: the driver%s of %s load%s but report%s none: is the device there, "
                    "and may this user use it (NVIDIA: nvidia-smi; others: /dev/dri)?", nicd > 1 ? "s" : "", where,
                    nicd > 1 ? "" : "s", nicd > 1 ? "" : "s");
  clua_env_error(L);
}

int clua_platforms(lua_State *L) {
  cl_platform_id *ids, pl[64];
  cl_uint n = get_platforms(L, &ids);
  if (n > 64) n = 64;
  for (cl_uint i = 0; i < n; i++) pl[i] = ids[i];
  free(ids);
  lua_createtable(L, (int)n, 0);
  for (cl_uint i = 0; i < n; i++) {
    push_platform(L, pl[i], (int)i);
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

void clua_push_device(lua_State *L, cl_device_id id) {
  cdevice *d = clua_new(L, sizeof *d, T_DEVICE, 1);
  d->id = id;
}

/***
An OpenCL platform (`cl.platform`): one driver of the ICD loader.
`tostring(p)` is `cl.platform 0: NAME`; two platform objects are `==` when
they are the same platform.
@type platform
*/

/***
The platform's devices.
@function platform:devices
@treturn {cl.device,...} its devices (an empty list when it has none)
*/
static int platform_devices(lua_State *L) {
  cplatform *p = clua_check(L, 1, T_PLATFORM);
  cl_uint n = 0;
  cl_int err = clGetDeviceIDs(p->id, CL_DEVICE_TYPE_ALL, 0, NULL, &n);
  lua_newtable(L);
  if (err == CL_DEVICE_NOT_FOUND) return 1;
  if (err != CL_SUCCESS) return clua_clerror(L, "platform:devices", "clGetDeviceIDs", err, NULL);
  cl_device_id *ids = lua_newuserdatauv(L, sizeof *ids * n, 0);
  err = clGetDeviceIDs(p->id, CL_DEVICE_TYPE_ALL, n, ids, NULL);
  if (err != CL_SUCCESS) return clua_clerror(L, "platform:devices", "clGetDeviceIDs", err, NULL);
  for (cl_uint i = 0; i < n; i++) {
    clua_push_device(L, ids[i]);
    lua_rawseti(L, -3, i + 1);
  }
  lua_pop(L, 1);
  return 1;
}

static void push_platform_string(lua_State *L, cl_platform_id id, cl_platform_info what) {
  char buf[1024];
  if (clGetPlatformInfo(id, what, sizeof buf, buf, NULL) != CL_SUCCESS) buf[0] = 0;
  buf[sizeof buf - 1] = 0;
  lua_pushstring(L, buf);
}

/***
The platform's name (`CL_PLATFORM_NAME`).
@field name
*/
/***
The vendor (`CL_PLATFORM_VENDOR`).
@field vendor
*/
/***
The OpenCL version string (`CL_PLATFORM_VERSION`).
@field version
*/
/***
`"FULL_PROFILE"` or `"EMBEDDED_PROFILE"`.
@field profile
*/
/***
The platform's extensions, one string separated by spaces.
@field extensions
*/
/***
The platform's 0-based index in `cl.platforms()` (the P of `"P:D"`).
@field index
*/
static int platform_index(lua_State *L) {
  cplatform *p = clua_check(L, 1, T_PLATFORM);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "name")) push_platform_string(L, p->id, CL_PLATFORM_NAME);
  else if (!strcmp(k, "vendor")) push_platform_string(L, p->id, CL_PLATFORM_VENDOR);
  else if (!strcmp(k, "version")) push_platform_string(L, p->id, CL_PLATFORM_VERSION);
  else if (!strcmp(k, "profile")) push_platform_string(L, p->id, CL_PLATFORM_PROFILE);
  else if (!strcmp(k, "extensions")) push_platform_string(L, p->id, CL_PLATFORM_EXTENSIONS);
  else if (!strcmp(k, "index")) lua_pushinteger(L, p->index);
  else if (!strcmp(k, "devices")) lua_pushcfunction(L, platform_devices);
  else lua_pushnil(L);
  return 1;
}

static int platform_tostring(lua_State *L) {
  cplatform *p = clua_check(L, 1, T_PLATFORM);
  char buf[256];
  if (clGetPlatformInfo(p->id, CL_PLATFORM_NAME, sizeof buf, buf, NULL) != CL_SUCCESS) buf[0] = 0;
  buf[sizeof buf - 1] = 0;
  lua_pushfstring(L, "cl.platform %d: %s", p->index, buf);
  return 1;
}

static int platform_eq(lua_State *L) {
  cplatform *a = luaL_testudata(L, 1, T_PLATFORM), *b = luaL_testudata(L, 2, T_PLATFORM);
  lua_pushboolean(L, a && b && a->id == b->id);
  return 1;
}

/* ---- device info ---- */

const char *clua_device_name(cl_device_id id, char *buf, size_t len) {
  if (clGetDeviceInfo(id, CL_DEVICE_NAME, len, buf, NULL) != CL_SUCCESS) buf[0] = 0;
  buf[len - 1] = 0;
  return buf;
}

static int has_ext(const char *exts, const char *name) {
  size_t n = strlen(name);
  for (const char *p = exts; (p = strstr(p, name)) != NULL; p += n)
    if ((p == exts || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0)) return 1;
  return 0;
}

enum { S, U, UL, SZ, B, SZA };
static const struct { const char *key; cl_device_info what; int kind; } dinfo[] = {
  {"name", CL_DEVICE_NAME, S},
  {"vendor", CL_DEVICE_VENDOR, S},
  {"driver_version", CL_DRIVER_VERSION, S},
  {"version", CL_DEVICE_VERSION, S},
  {"opencl_c_version", CL_DEVICE_OPENCL_C_VERSION, S},
  {"profile", CL_DEVICE_PROFILE, S},
  {"compute_units", CL_DEVICE_MAX_COMPUTE_UNITS, U},
  {"max_clock_mhz", CL_DEVICE_MAX_CLOCK_FREQUENCY, U},
  {"vendor_id", CL_DEVICE_VENDOR_ID, U},
  {"address_bits", CL_DEVICE_ADDRESS_BITS, U},
  {"mem_base_addr_align", CL_DEVICE_MEM_BASE_ADDR_ALIGN, U},
  {"global_mem_cacheline_size", CL_DEVICE_GLOBAL_MEM_CACHELINE_SIZE, U},
  {"global_mem_size", CL_DEVICE_GLOBAL_MEM_SIZE, UL},
  {"global_mem_cache_size", CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, UL},
  {"local_mem_size", CL_DEVICE_LOCAL_MEM_SIZE, UL},
  {"constant_mem_size", CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, UL},
  {"max_constant_args", CL_DEVICE_MAX_CONSTANT_ARGS, U},
  {"max_mem_alloc_size", CL_DEVICE_MAX_MEM_ALLOC_SIZE, UL},
  {"max_work_group_size", CL_DEVICE_MAX_WORK_GROUP_SIZE, SZ},
  {"max_work_item_dimensions", CL_DEVICE_MAX_WORK_ITEM_DIMENSIONS, U},
  {"max_work_item_sizes", CL_DEVICE_MAX_WORK_ITEM_SIZES, SZA},
  {"max_parameter_size", CL_DEVICE_MAX_PARAMETER_SIZE, SZ},
  {"timer_resolution_ns", CL_DEVICE_PROFILING_TIMER_RESOLUTION, SZ},
  {"image_support", CL_DEVICE_IMAGE_SUPPORT, B},
  {"host_unified_memory", CL_DEVICE_HOST_UNIFIED_MEMORY, B},
  {"available", CL_DEVICE_AVAILABLE, B},
  {"compiler_available", CL_DEVICE_COMPILER_AVAILABLE, B},
  {"error_correction", CL_DEVICE_ERROR_CORRECTION_SUPPORT, B},
  {"image2d_max_width", CL_DEVICE_IMAGE2D_MAX_WIDTH, SZ},
  {"image2d_max_height", CL_DEVICE_IMAGE2D_MAX_HEIGHT, SZ},
};

static void set_string(lua_State *L, cl_device_id id, cl_device_info what, const char *key) {
  size_t n = 0;
  if (clGetDeviceInfo(id, what, 0, NULL, &n) != CL_SUCCESS) return;
  char *buf = malloc(n + 1);
  if (!buf) return;
  if (clGetDeviceInfo(id, what, n, buf, NULL) == CL_SUCCESS) {
    buf[n] = 0;
    size_t len = strlen(buf);
    while (len && buf[len - 1] == ' ') buf[--len] = 0;  /* some drivers pad */
    lua_pushstring(L, buf);
    lua_setfield(L, -2, key);
  }
  free(buf);
}

static void set_uint(lua_State *L, cl_device_id id, cl_device_info what, const char *key) {
  cl_uint v;
  if (clGetDeviceInfo(id, what, sizeof v, &v, NULL) == CL_SUCCESS) {
    lua_pushinteger(L, v);
    lua_setfield(L, -2, key);
  }
}

static void push_info(lua_State *L, cl_device_id id) {
  lua_newtable(L);
  for (size_t i = 0; i < sizeof dinfo / sizeof dinfo[0]; i++) {
    const char *key = dinfo[i].key;
    cl_device_info what = dinfo[i].what;
    switch (dinfo[i].kind) {
      case S: set_string(L, id, what, key); break;
      case U: set_uint(L, id, what, key); break;
      case UL: {
        cl_ulong v;
        if (clGetDeviceInfo(id, what, sizeof v, &v, NULL) == CL_SUCCESS) {
          lua_pushinteger(L, (lua_Integer)v);
          lua_setfield(L, -2, key);
        }
        break;
      }
      case SZ: {
        size_t v;
        if (clGetDeviceInfo(id, what, sizeof v, &v, NULL) == CL_SUCCESS) {
          lua_pushinteger(L, (lua_Integer)v);
          lua_setfield(L, -2, key);
        }
        break;
      }
      case B: {
        cl_bool v;
        if (clGetDeviceInfo(id, what, sizeof v, &v, NULL) == CL_SUCCESS) {
          lua_pushboolean(L, v);
          lua_setfield(L, -2, key);
        }
        break;
      }
      case SZA: {
        size_t v[8];
        size_t got = 0;
        if (clGetDeviceInfo(id, what, sizeof v, v, &got) == CL_SUCCESS) {
          lua_newtable(L);
          for (size_t j = 0; j < got / sizeof v[0]; j++) {
            lua_pushinteger(L, (lua_Integer)v[j]);
            lua_rawseti(L, -2, (lua_Integer)j + 1);
          }
          lua_setfield(L, -2, key);
        }
        break;
      }
    }
  }
  cl_device_type t = 0;
  clGetDeviceInfo(id, CL_DEVICE_TYPE, sizeof t, &t, NULL);
  lua_pushstring(L, (t & CL_DEVICE_TYPE_GPU) ? "GPU" : (t & CL_DEVICE_TYPE_CPU) ? "CPU"
                    : (t & CL_DEVICE_TYPE_ACCELERATOR) ? "ACCELERATOR"
                    : (t & CL_DEVICE_TYPE_CUSTOM) ? "CUSTOM" : "DEFAULT");
  lua_setfield(L, -2, "type");

  static const struct { const char *key; cl_device_info what; } vw[] = {
    {"char", CL_DEVICE_PREFERRED_VECTOR_WIDTH_CHAR}, {"short", CL_DEVICE_PREFERRED_VECTOR_WIDTH_SHORT},
    {"int", CL_DEVICE_PREFERRED_VECTOR_WIDTH_INT}, {"long", CL_DEVICE_PREFERRED_VECTOR_WIDTH_LONG},
    {"float", CL_DEVICE_PREFERRED_VECTOR_WIDTH_FLOAT}, {"double", CL_DEVICE_PREFERRED_VECTOR_WIDTH_DOUBLE},
    {"half", CL_DEVICE_PREFERRED_VECTOR_WIDTH_HALF}};
  lua_newtable(L);
  for (size_t i = 0; i < sizeof vw / sizeof vw[0]; i++) set_uint(L, id, vw[i].what, vw[i].key);
  lua_setfield(L, -2, "preferred_vector_width");

  cl_platform_id plat = NULL;
  clGetDeviceInfo(id, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL);
  char pname[256];
  if (clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL) != CL_SUCCESS) pname[0] = 0;
  pname[sizeof pname - 1] = 0;
  lua_pushstring(L, pname);
  lua_setfield(L, -2, "platform");

  /* extensions as a list, and what they tell */
  size_t n = 0;
  char *exts = NULL;
  if (clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, 0, NULL, &n) == CL_SUCCESS && (exts = malloc(n + 1))) {
    if (clGetDeviceInfo(id, CL_DEVICE_EXTENSIONS, n, exts, NULL) != CL_SUCCESS) n = 0;
    exts[n] = 0;
  }
  lua_newtable(L);
  int k = 0;
  if (exts) {
    for (char *p = exts; *p;) {
      while (*p == ' ') p++;
      char *e = p;
      while (*e && *e != ' ') e++;
      if (e > p) {
        lua_pushlstring(L, p, (size_t)(e - p));
        lua_rawseti(L, -2, ++k);
      }
      p = e;
    }
  }
  lua_setfield(L, -2, "extensions");
  cl_device_fp_config fp = 0;
  clGetDeviceInfo(id, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp, &fp, NULL);
  lua_pushboolean(L, fp != 0 || (exts && has_ext(exts, "cl_khr_fp64")));
  lua_setfield(L, -2, "double_support");

  if (exts && has_ext(exts, "cl_nv_device_attribute_query")) {
    cl_uint major = 0, minor = 0;
    clGetDeviceInfo(id, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof major, &major, NULL);
    clGetDeviceInfo(id, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, sizeof minor, &minor, NULL);
    lua_pushfstring(L, "%d.%d", (int)major, (int)minor);
    lua_setfield(L, -2, "compute_capability");
    set_uint(L, id, CL_DEVICE_WARP_SIZE_NV, "warp_size");
    set_uint(L, id, CL_DEVICE_REGISTERS_PER_BLOCK_NV, "registers_per_block");
    static const struct { const char *key; cl_device_info what; } nvb[] = {
      {"gpu_overlap", CL_DEVICE_GPU_OVERLAP_NV}, {"kernel_exec_timeout", CL_DEVICE_KERNEL_EXEC_TIMEOUT_NV},
      {"integrated_memory", CL_DEVICE_INTEGRATED_MEMORY_NV}};
    for (size_t i = 0; i < 3; i++) {
      cl_bool v;
      if (clGetDeviceInfo(id, nvb[i].what, sizeof v, &v, NULL) == CL_SUCCESS) {
        lua_pushboolean(L, v);
        lua_setfield(L, -2, nvb[i].key);
      }
    }
    set_uint(L, id, CL_DEVICE_PCI_BUS_ID_NV, "pci_bus_id");
    set_uint(L, id, CL_DEVICE_PCI_SLOT_ID_NV, "pci_slot_id");
    set_uint(L, id, CL_DEVICE_PCI_DOMAIN_ID_NV, "pci_domain_id");
  }
  free(exts);
}

/***
An OpenCL device (`cl.device`). `tostring(d)` is `cl.device: NAME (PLATFORM)`;
two device objects are `==` when they are the same device.
@type device
*/

/***
The device's facts (read once, then cached). As Lua values: `name`, `vendor`,
`driver_version`, `version`, `opencl_c_version`, `type` (`"GPU"`, `"CPU"`,
`"ACCELERATOR"`, ...), `compute_units`, `max_clock_mhz`, `global_mem_size`,
`global_mem_cache_size`, `local_mem_size`, `constant_mem_size`,
`max_mem_alloc_size`, `max_work_group_size`, `max_work_item_sizes` (a list),
`max_work_item_dimensions`, `preferred_vector_width` (`{char=, float=, double=, ...}`),
`timer_resolution_ns`, `image_support`, `double_support`,
`host_unified_memory`, `address_bits`, `mem_base_addr_align`, `extensions`
(a list), `platform` (its name); on NVIDIA (`cl_nv_device_attribute_query`)
also `compute_capability` (`"9.0"`), `warp_size`, `registers_per_block`,
`gpu_overlap`, `integrated_memory`, `kernel_exec_timeout`.
@table info
*/
/***
The device's name (`d.info.name`).
@field name
*/
/***
The name of the device's platform (`d.info.platform`).
@field platform
*/
/***
`"GPU"`, `"CPU"`, `"ACCELERATOR"`, ... (`d.info.type`).
@field type
*/
static int device_index(lua_State *L) {
  cdevice *d = clua_check(L, 1, T_DEVICE);
  const char *k = luaL_checkstring(L, 2);
  if (!strcmp(k, "info") || !strcmp(k, "name") || !strcmp(k, "platform") || !strcmp(k, "type")) {
    lua_getiuservalue(L, 1, 1);  /* cached info table */
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      push_info(L, d->id);
      lua_pushvalue(L, -1);
      lua_setiuservalue(L, 1, 1);
    }
    if (strcmp(k, "info")) lua_getfield(L, -1, k);
    return 1;
  }
  luaL_getmetafield(L, 1, "methods");
  lua_getfield(L, -1, k);
  return 1;
}

static int device_tostring(lua_State *L) {
  cdevice *d = clua_check(L, 1, T_DEVICE);
  char name[256];
  cl_platform_id plat = NULL;
  clGetDeviceInfo(d->id, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL);
  char pname[256];
  if (clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL) != CL_SUCCESS) pname[0] = 0;
  pname[sizeof pname - 1] = 0;
  lua_pushfstring(L, "cl.device: %s (%s)", clua_device_name(d->id, name, sizeof name), pname);
  return 1;
}

static int device_eq(lua_State *L) {
  cdevice *a = luaL_testudata(L, 1, T_DEVICE), *b = luaL_testudata(L, 2, T_DEVICE);
  lua_pushboolean(L, a && b && a->id == b->id);
  return 1;
}

/* ---- every device, and the default one ---- */

typedef struct { cl_device_id id; int p, d; cl_device_type type; } devref;

/* Pushes a list of {device, p, d} and returns the count. */
static int all_devices(lua_State *L, devref **out) {
  cl_platform_id *plats;
  cl_uint np = get_platforms(L, &plats);
  cl_platform_id pl[64];
  if (np > 64) np = 64;
  for (cl_uint i = 0; i < np; i++) pl[i] = plats[i];
  free(plats);
  int total = 0, cap = 16;
  devref *list = malloc(sizeof *list * (size_t)cap);
  if (!list) luaL_error(L, "out of memory");
  for (cl_uint p = 0; p < np; p++) {
    cl_uint n = 0;
    if (clGetDeviceIDs(pl[p], CL_DEVICE_TYPE_ALL, 0, NULL, &n) != CL_SUCCESS || n == 0) continue;
    cl_device_id ids[64];
    if (n > 64) n = 64;
    if (clGetDeviceIDs(pl[p], CL_DEVICE_TYPE_ALL, n, ids, NULL) != CL_SUCCESS) continue;
    for (cl_uint d = 0; d < n; d++) {
      if (total == cap) {
        devref *bigger = realloc(list, sizeof *list * (size_t)(cap *= 2));
        if (!bigger) { free(list); luaL_error(L, "out of memory"); }
        list = bigger;
      }
      list[total].id = ids[d];
      list[total].p = (int)p;
      list[total].d = (int)d;
      list[total].type = 0;
      clGetDeviceInfo(ids[d], CL_DEVICE_TYPE, sizeof list[total].type, &list[total].type, NULL);
      total++;
    }
  }
  clua_keep_sigint();  /* PoCL's LLVM takes SIGINT while it finds its devices */
  *out = list;
  return total;
}

int clua_devices(lua_State *L) {
  devref *list;
  int n = all_devices(L, &list);
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    clua_push_device(L, list[i].id);
    lua_rawseti(L, -2, i + 1);
  }
  free(list);
  return 1;
}

static int contains_ci(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; hay++) {
    size_t i = 0;
    while (i < n && hay[i] && (hay[i] | 32) == (needle[i] | 32)) i++;
    if (i == n) return 1;
  }
  return n == 0;
}

/* cl.device([sel]): sel or CLUA_DEVICE, else the first GPU, else the first device. */
int clua_device(lua_State *L) {
  const char *sel = luaL_optstring(L, 1, NULL);
  const char *from = "argument";
  if (lua_type(L, 1) == LUA_TNUMBER) sel = lua_tostring(L, 1);
  if (!sel || !*sel) {
    sel = getenv("CLUA_DEVICE");
    from = "CLUA_DEVICE";
    if (sel && !*sel) sel = NULL;
  }
  devref *list;
  int n = all_devices(L, &list);
  if (n == 0) {
    free(list);
    no_platform(L);
  }
  int pick = -1;
  if (!sel) {
    for (int i = 0; i < n && pick < 0; i++)
      if (list[i].type & CL_DEVICE_TYPE_GPU) pick = i;
    if (pick < 0) pick = 0;
  } else {
    int p, d;
    char tail;
    if (sscanf(sel, "%d:%d%c", &p, &d, &tail) == 2) {
      for (int i = 0; i < n; i++)
        if (list[i].p == p && list[i].d == d) pick = i;
    } else {
      for (int i = 0; i < n && pick < 0; i++) {
        char name[512], pname[512];
        cl_platform_id plat = NULL;
        clGetDeviceInfo(list[i].id, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL);
        if (clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL) != CL_SUCCESS) pname[0] = 0;
        pname[sizeof pname - 1] = 0;
        clua_device_name(list[i].id, name, sizeof name);
        if (contains_ci(name, sel) || contains_ci(pname, sel)) pick = i;
      }
    }
  }
  if (pick < 0) {
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    lua_pushfstring(L, "cl.device: no OpenCL device matches '%s' (from %s); the devices are:", sel, from);
    luaL_addvalue(&b);
    for (int i = 0; i < n; i++) {
      char name[512];
      lua_pushfstring(L, "\n  %d:%d  %s", list[i].p, list[i].d, clua_device_name(list[i].id, name, sizeof name));
      luaL_addvalue(&b);
    }
    free(list);
    luaL_addstring(&b, "\n(select one by P:D or by part of its device or platform name");
    luaL_addstring(&b, strcmp(from, "CLUA_DEVICE") ? ")" : " in CLUA_DEVICE, or unset CLUA_DEVICE)");
    luaL_pushresult(&b);
    if (!strcmp(from, "CLUA_DEVICE")) return clua_env_error(L);  /* the environment's fault, not the script's */
    return lua_error(L);
  }
  cl_device_id id = list[pick].id;
  free(list);
  clua_push_device(L, id);
  return 1;
}

/***
NVML facts about this device (NVIDIA only): see `cl.nvml`.
@function device:nvml
@treturn[1] table `memory_clock_mhz`, `bus_width`, `pcie_gen`, `pcie_width`, ...
@return[2] nil
@treturn[2] string why NVML cannot say
*/
void clua_open_device(lua_State *L) {
  static const luaL_Reg pmeta[] = {
    {"__index", platform_index}, {"__tostring", platform_tostring}, {"__eq", platform_eq}, {NULL, NULL}};
  clua_newtype(L, T_PLATFORM, NULL, pmeta);
  static const luaL_Reg dmethods[] = {{"nvml", clua_nvml}, {NULL, NULL}};
  static const luaL_Reg dmeta[] = {
    {"__index", device_index}, {"__tostring", device_tostring}, {"__eq", device_eq}, {NULL, NULL}};
  clua_newtype(L, T_DEVICE, dmethods, dmeta);
}
