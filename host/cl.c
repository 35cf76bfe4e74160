/* The cl module: registers every type and the module functions. */

/***
OpenCL for Lua: the `cl` module, built into `clua` and preloaded.

    local cl = require "cl"

It wraps the OpenCL objects a performance experiment needs as Lua userdata:
platforms and devices (`cl.device`), contexts (`cl.context`), command queues
(`cl.queue`), buffers (`cl.buffer`), images and samplers (`cl.image`),
programs (`cl.program`), kernels (`cl.kernel`), events (`cl.event`) and typed
host arrays (`cl.array`).

Lifetimes: every object is released exactly once: by the garbage
collector (`__gc`), at the end of a `local x <close> = ...` scope
(`__close`), or by an explicit `x:release()` (a second release does
nothing). Any use after release raises `attempt to use a released cl.buffer`
(or the type's name). Objects keep alive what they need: a buffer its
context, a kernel its program and arguments, an array view its buffer.

Errors: a failing OpenCL call raises a Lua error naming the method, the
OpenCL call, the error and the argument at fault:

    queue:launch: clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE (local size 1024 exceeds the kernel's maximum 256 on DEVICE)

Bad arguments raise the usual `bad argument #N to 'METHOD'` errors. Build
failures carry the compiler's log (`cl.program`).

Units: sizes and offsets are bytes for buffers and elements for host
arrays; host arrays are 0-based; times are integer nanoseconds.

@module cl
@usage local cl = require "cl"
local d = cl.device()
print(d.name, d.info.compute_units)
*/
#include "check.h"
#include "objects.h"
#include "array.h"
#include "deadline.h"
#include "open.h"
#include "root.h"
#include "clua.h"
#include "version.h"

#include <time.h>

/***
The CPU time of the calling thread: what a call costs the host, without the
time the thread waited or the other threads (a driver's workers) ran.
@function cputime
@treturn integer nanoseconds (`CLOCK_THREAD_CPUTIME_ID`)
@usage local c0 = cl.cputime(); q:launch(k, n); print(cl.cputime() - c0, "ns of CPU")
*/
static int cl_cputime(lua_State *L) {
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return luaL_error(L, "cl.cputime: this system has no thread CPU clock");
  lua_pushinteger(L, (lua_Integer)ts.tv_sec * 1000000000 + ts.tv_nsec);
  return 1;
}

/***
The monotonic host clock.
@function now
@treturn integer nanoseconds since an arbitrary origin (`CLOCK_MONOTONIC`)
@usage local t0 = cl.now(); q:finish(); print(cl.now() - t0, "ns")
*/
static int cl_now(lua_State *L) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  lua_pushinteger(L, (lua_Integer)ts.tv_sec * 1000000000 + ts.tv_nsec);
  return 1;
}

/***
The name of an OpenCL error code.
@function error_name
@int code an OpenCL status code (`-5`)
@treturn ?string `"CL_OUT_OF_RESOURCES"`, or nil for an unknown code
*/
static int cl_error_name(lua_State *L) {
  const char *n = clua_errname((cl_int)luaL_checkinteger(L, 1));
  if (n) lua_pushstring(L, n);
  else lua_pushnil(L);
  return 1;
}

/***
How many OpenCL handles clua made (or retained) and released, by kind, and
its host memory blocks (arrays, views): spec/cl_cycles_spec.lua checks that
none stays behind.
@function debug_counts
@treturn table `{context = {created = n, released = m, live = n - m}, queue = {...}, ...}`
for `context`, `queue`, `buffer`, `image`, `sampler`, `program`, `kernel`,
`event`, `map` and `hostmem`
*/
static int cl_debug_counts(lua_State *L) {
  static const char *const kinds[CNT_KINDS] = {"context", "queue", "buffer", "image", "sampler", "program",
                                               "kernel", "event", "map", "hostmem"};
  lua_createtable(L, 0, CNT_KINDS);
  for (int i = 0; i < CNT_KINDS; i++) {
    lua_createtable(L, 0, 3);
    lua_pushinteger(L, (lua_Integer)clua_counts[i][0]);
    lua_setfield(L, -2, "created");
    lua_pushinteger(L, (lua_Integer)clua_counts[i][1]);
    lua_setfield(L, -2, "released");
    lua_pushinteger(L, (lua_Integer)(clua_counts[i][0] - clua_counts[i][1]));
    lua_setfield(L, -2, "live");
    lua_setfield(L, -2, kinds[i]);
  }
  return 1;
}

int luaopen_cl(lua_State *L) {
  clua_open_device(L);
  clua_open_context(L);
  clua_open_queue(L);
  clua_open_buffer(L);
  clua_open_program(L);
  clua_open_event(L);
  clua_open_kernel(L);
  clua_open_launch(L);  /* after queue and event: q:launch holds their metatables */
  clua_open_array(L);
  clua_open_image(L);
  /* The module functions implemented in the other files, documented here. */

  /***
  Every OpenCL platform of the ICD loader.
  @function platforms
  @treturn {cl.platform,...} the platforms, in the loader's order (see `cl.device`)
  @raise `cl.platforms: clGetPlatformIDs failed: ...`
  */

  /***
  Every device of every platform, in `clua --devices` order.
  @function devices
  @treturn {cl.device,...} the devices
  */

  /***
  The default device, or the one a selector names.
  @function device
  @string[opt] sel a substring of the device's or the platform's name (case
  does not matter), or `"P:D"` (platform P, device D, 0-based); default the
  `CLUA_DEVICE` environment variable, else the first GPU, else the first device
  @treturn cl.device the device
  @raise `cl.device: no OpenCL device matches 'SEL' (from ...); the devices are: ...`
  @usage local d = cl.device("0:0")
  */

  /***
  A context for one device or several.
  @function context
  @tparam[opt] cl.device|{cl.device,...} devices default `cl.device()`
  @treturn cl.context the context
  @raise `cl.context: clCreateContext failed: ...`
  */

  /***
  A zeroed host array of `n` elements of a type.
  @function array
  @string type one of `cl.types`: `"float"`, `"int"`, `"uchar"`, `"float4"`, ...
  (a vector array of n `float4` holds 4n floats)
  @int n the number of elements (of vectors, for a vector type)
  @treturn cl.array the array
  @raise `bad argument #1 to 'array' (unknown type 'x'; ...)`
  @usage local a = cl.array("float", 1024):ramp()
  */

  /***
  Waits for a list of events.
  @function wait
  @tparam {cl.event,...} events the events
  @raise when an event ended in error: its command and the error's name
  */

  /***
  Gets or sets the deadline of every wait for the device, in seconds:
  `event:wait`, `cl.wait`, `queue:finish`, blocking transfers and maps, and
  the wait for running commands at the end of a script. A wait past it raises
  `METHOD: timed out after S s waiting for kernel 'NAME' (...)`; since OpenCL
  cannot stop a running command, every OpenCL object is then given up (as
  after ^C) and the process ends without waiting for the command.
  `CLUA_TIMEOUT` sets it at start.
  @function timeout
  @number[opt] seconds a positive number sets it; 0 or `false` takes it away;
  absent, it is left as it is
  @treturn number|nil the deadline now, nil when there is none
  @usage cl.timeout(60)   -- an endless kernel ends the script after a minute
  */

  /***
  NVML facts of an NVIDIA device (also `device:nvml()`). The device is found
  among every GPU NVML knows by its UUID (`cl_khr_device_uuid`), else by its
  PCI domain and bus (NVIDIA's `CL_DEVICE_PCI_*_NV`), else as the only GPU.
  @function nvml
  @tparam cl.device|table device the device, or a GPU's identifiers: `uuid`
  (NVML's form, `GPU-xxxxxxxx-...`), `pci_domain`, `pci_bus`, `pci_slot`
  @treturn[1] table `memory_clock_mhz`, `bus_width`, `pcie_gen`, `pcie_width`,
  `pcie_gen_current`, `pcie_width_current`, `gpu_name` (those NVML gives);
  `matched_by` ("uuid", "pci bus id", "the only GPU"), `index` (NVML's),
  `uuid`, `pci_bus_id` (NVML's form), `nvlinks` (each active link's `link`,
  `remote` PCI bus id and `type`: 0 a GPU, 2 an NVSwitch), `topology` (the
  common ancestor with each other GPU by its PCI bus id: 10 PIX ... 50 SYS)
  @return[2] nil
  @treturn[2] string why not: no `libnvidia-ml.so.1`, `nvmlInit` failed, no GPU
  matching the device
  */

  /***
  Typed kernel arguments: a number converted to one OpenCL scalar type, for a
  kernel whose argument types are not known or to force a type.
  `cl.int`, `cl.uint`, `cl.long`, `cl.ulong`, `cl.short`, `cl.ushort`, `cl.char`,
  `cl.uchar`, `cl.float`, `cl.double`, `cl.size_t` all work the same way.
  @function int
  @number x the value (must fit the type)
  @treturn cl.scalar a typed value for `kernel:arg` and `kernel:args`
  @usage k:args(dst, src, cl.uint(n), cl.float(0.5))
  */
  /***
  `cl.uint(x)`: see `int`.
  @function uint
  */
  /***
  `cl.long(x)`: see `int`.
  @function long
  */
  /***
  `cl.ulong(x)`: see `int`.
  @function ulong
  */
  /***
  `cl.short(x)`: see `int`.
  @function short
  */
  /***
  `cl.ushort(x)`: see `int`.
  @function ushort
  */
  /***
  `cl.char(x)`: see `int`.
  @function char
  */
  /***
  `cl.uchar(x)`: see `int`.
  @function uchar
  */
  /***
  `cl.float(x)`: see `int`.
  @function float
  */
  /***
  `cl.double(x)`: see `int`.
  @function double
  */
  /***
  `cl.size_t(x)`: see `int`.
  @function size_t
  */

  /***
  A `__local` kernel argument of a size.
  @function localmem
  @int bytes the local memory the argument gets
  @treturn cl.local the argument value
  @usage k:args(src, dst, cl.uint(n), cl.localmem(256 * 4))
  */

  /***
  The same as `localmem`, for `cl["local"](bytes)` (`local` is a Lua keyword,
  so `cl.local` cannot be written).
  @function local
  @int bytes the local memory the argument gets
  @treturn cl.local the argument value
  */

  /***
  The host array type names, `{"char", "uchar", ..., "float4", ...}`.
  @table types
  */

  /***
  clua's version, `"0.1.0"`.
  @field version
  */

  /***
  The folder holding clua's `lua/` and `kernels/` (nil when unknown).
  @field root
  */
  static const luaL_Reg funcs[] = {
    {"platforms", clua_platforms}, {"devices", clua_devices}, {"device", clua_device},
    {"context", clua_context}, {"array", clua_array}, {"now", cl_now}, {"cputime", cl_cputime}, {"wait", clua_wait},
    {"error_name", cl_error_name}, {"nvml", clua_nvml}, {"debug_counts", cl_debug_counts},
    {"timeout", clua_timeout}, {NULL, NULL}};
#ifdef CLUA_MODULE
  clua_module_open(L); /* module.c: cl.so in a stock interpreter */
#endif
  clua_timeout_init(L);
  luaL_newlib(L, funcs);
  clua_open_scalars(L);
  lua_pushstring(L, CLUA_VERSION);
  lua_setfield(L, -2, "version");
  if (clua_root()) {
    lua_pushstring(L, clua_root());
    lua_setfield(L, -2, "root");
  }
  lua_newtable(L);
  int i = 0;
  for (const ctype *t = clua_types; t->name; t++) {
    lua_pushstring(L, t->name);
    lua_rawseti(L, -2, ++i);
  }
  lua_setfield(L, -2, "types");
  return 1;
}
