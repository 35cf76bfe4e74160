/* NVML, the NVIDIA driver's management library, opened at run time where the
   driver has it: cl.nvml and d:nvml (documented in cl.c and device.c), the
   facts OpenCL does not give (memory clock and bus width, PCIe link, NVLinks,
   the topology between GPUs), for the device found by its UUID or PCI ids. */
#include "check.h"
#include "objects.h"
#include "open.h"

#include <dlfcn.h>
#include <stdio.h>

typedef int (*nvml_fn0)(void);
typedef int (*nvml_byidx)(unsigned, void **);
typedef int (*nvml_uint)(void *, unsigned *);
typedef int (*nvml_clock)(void *, int, unsigned *);
typedef int (*nvml_name)(void *, char *, unsigned);
typedef int (*nvml_count)(unsigned *);
typedef int (*nvml_link_uint)(void *, unsigned, unsigned *);
typedef int (*nvml_pair)(void *, void *, unsigned *);
/* nvmlPciInfo_t */
typedef struct {
  char bus_id_legacy[16];
  unsigned domain, bus, device, pci_device_id, pci_subsystem_id;
  char bus_id[32];
} nvml_pci;
typedef int (*nvml_pciinfo)(void *, nvml_pci *);
typedef int (*nvml_link_pci)(void *, unsigned, nvml_pci *);
#define NVML_MAX_GPUS 64
#define NVML_MAX_LINKS 18
#ifndef CL_DEVICE_UUID_KHR
#define CL_DEVICE_UUID_KHR 0x106A
#endif

/* What names the GPU: a cl_khr_device_uuid, the NVIDIA PCI ids (have_*: 0 where unknown). */
typedef struct {
  int have_uuid, have_pci, have_domain;
  char uuid[48]; /* NVML's form: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx */
  unsigned domain, bus, slot;
} nvml_ids;

static void uuid_text(const unsigned char *u, char *out, size_t n) {
  snprintf(out, n, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3],
           u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

static int same_ci(const char *a, const char *b) {
  for (; *a && *b; a++, b++)
    if ((*a | 0x20) != (*b | 0x20)) return 0; /* hex digits and dashes: ASCII case folding */
  return *a == *b;
}

int clua_nvml(lua_State *L) {
  static void *lib;
  static int inited;
  nvml_ids id = {0};
  if (lua_istable(L, 1)) {  /* a GPU named by its identifiers: uuid, pci_domain, pci_bus, pci_slot */
    if (lua_getfield(L, 1, "uuid") == LUA_TSTRING) {
      snprintf(id.uuid, sizeof id.uuid, "%s", lua_tostring(L, -1));
      id.have_uuid = 1;
    }
    lua_pop(L, 1);
    if (lua_getfield(L, 1, "pci_bus") != LUA_TNIL) { id.bus = (unsigned)luaL_checkinteger(L, -1); id.have_pci = 1; }
    if (lua_getfield(L, 1, "pci_slot") != LUA_TNIL) id.slot = (unsigned)luaL_checkinteger(L, -1);
    if (lua_getfield(L, 1, "pci_domain") != LUA_TNIL) { id.domain = (unsigned)luaL_checkinteger(L, -1); id.have_domain = 1; }
    lua_pop(L, 3);
  } else {
    cdevice *d = clua_check(L, 1, T_DEVICE);
    cl_uint vendor = 0;  /* NVML knows NVIDIA GPUs only: not a CPU device on a machine that has one */
    clGetDeviceInfo(d->id, CL_DEVICE_VENDOR_ID, sizeof vendor, &vendor, NULL);
    if (vendor != 0x10de) {
      lua_pushnil(L);
      lua_pushstring(L, "not an NVIDIA device");
      return 2;
    }
    unsigned char u[16];
    if (clGetDeviceInfo(d->id, CL_DEVICE_UUID_KHR, sizeof u, u, NULL) == CL_SUCCESS) {
      uuid_text(u, id.uuid, sizeof id.uuid);
      id.have_uuid = 1;
    }
    id.have_pci = clGetDeviceInfo(d->id, CL_DEVICE_PCI_BUS_ID_NV, sizeof id.bus, &id.bus, NULL) == CL_SUCCESS &&
                  clGetDeviceInfo(d->id, CL_DEVICE_PCI_SLOT_ID_NV, sizeof id.slot, &id.slot, NULL) == CL_SUCCESS;
    id.have_domain = clGetDeviceInfo(d->id, CL_DEVICE_PCI_DOMAIN_ID_NV, sizeof id.domain, &id.domain, NULL) == CL_SUCCESS;
  }
  if (!lib) lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    lua_pushnil(L);
    lua_pushstring(L, "NVML not available (libnvidia-ml.so.1 not found)");
    return 2;
  }
  nvml_fn0 init = (nvml_fn0)dlsym(lib, "nvmlInit_v2");
  nvml_byidx byidx = (nvml_byidx)dlsym(lib, "nvmlDeviceGetHandleByIndex_v2");
  nvml_count count_fn = (nvml_count)dlsym(lib, "nvmlDeviceGetCount_v2");
  nvml_clock maxclock = (nvml_clock)dlsym(lib, "nvmlDeviceGetMaxClockInfo");
  nvml_uint buswidth = (nvml_uint)dlsym(lib, "nvmlDeviceGetMemoryBusWidth");
  nvml_uint pgen = (nvml_uint)dlsym(lib, "nvmlDeviceGetMaxPcieLinkGeneration");
  nvml_uint pwidth = (nvml_uint)dlsym(lib, "nvmlDeviceGetMaxPcieLinkWidth");
  nvml_uint cgen = (nvml_uint)dlsym(lib, "nvmlDeviceGetCurrPcieLinkGeneration");
  nvml_uint cwidth = (nvml_uint)dlsym(lib, "nvmlDeviceGetCurrPcieLinkWidth");
  nvml_name name = (nvml_name)dlsym(lib, "nvmlDeviceGetName");
  nvml_name getuuid = (nvml_name)dlsym(lib, "nvmlDeviceGetUUID");
  nvml_pciinfo pciinfo = (nvml_pciinfo)dlsym(lib, "nvmlDeviceGetPciInfo_v3");
  nvml_link_uint linkstate = (nvml_link_uint)dlsym(lib, "nvmlDeviceGetNvLinkState");
  nvml_link_uint linktype = (nvml_link_uint)dlsym(lib, "nvmlDeviceGetNvLinkRemoteDeviceType");
  nvml_link_pci linkpci = (nvml_link_pci)dlsym(lib, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
  nvml_pair ancestor = (nvml_pair)dlsym(lib, "nvmlDeviceGetTopologyCommonAncestor");
  if (!init || !byidx || !count_fn || !maxclock) {
    lua_pushnil(L);
    lua_pushstring(L, "NVML lacks the functions clua needs");
    return 2;
  }
  if (!inited) {
    if (init() != 0) {
      lua_pushnil(L);
      lua_pushstring(L, "nvmlInit failed");
      return 2;
    }
    inited = 1;
  }
  /* Every GPU NVML knows; this device is the one of the same UUID, else of
     the same PCI domain and bus (and device where two share a bus: NVIDIA's
     slot id is device << 3 | function), else the only one. */
  unsigned ndev = 0;
  if (count_fn(&ndev) != 0) ndev = 0;
  if (ndev > NVML_MAX_GPUS) ndev = NVML_MAX_GPUS;
  void *gpu[NVML_MAX_GPUS];
  nvml_pci pci[NVML_MAX_GPUS];
  int have_pci[NVML_MAX_GPUS];
  int pick = -1, by_uuid = -1, nbus = 0, by_bus = -1, by_dev = -1;
  for (unsigned i = 0; i < ndev; i++) {
    if (byidx(i, &gpu[i]) != 0) gpu[i] = NULL;
    have_pci[i] = gpu[i] && pciinfo && pciinfo(gpu[i], &pci[i]) == 0;
    if (have_pci[i]) pci[i].bus_id[sizeof pci[i].bus_id - 1] = 0;
    char u[96];
    if (gpu[i] && id.have_uuid && getuuid && getuuid(gpu[i], u, sizeof u) == 0) {
      u[sizeof u - 1] = 0;
      if (same_ci(u, id.uuid)) by_uuid = (int)i;
    }
    if (have_pci[i] && id.have_pci && pci[i].bus == id.bus && (!id.have_domain || pci[i].domain == id.domain)) {
      nbus++;
      by_bus = (int)i;
      if (pci[i].device == id.slot >> 3) by_dev = (int)i;
    }
  }
  const char *how = NULL;
  if (by_uuid >= 0) pick = by_uuid, how = "uuid";
  else if (nbus == 1) pick = by_bus, how = "pci bus id";
  else if (by_dev >= 0) pick = by_dev, how = "pci bus id";
  else if (ndev == 1 && gpu[0] && !lua_istable(L, 1)) pick = 0, how = "the only GPU";
  if (pick < 0) {
    lua_pushnil(L);
    lua_pushfstring(L, "NVML knows no GPU matching this device (%d GPU%s; uuid %s, pci %s)", (int)ndev,
                    ndev == 1 ? "" : "s", id.have_uuid ? id.uuid : "unknown", id.have_pci ? "known" : "unknown");
    return 2;
  }
  void *h = gpu[pick];
  lua_newtable(L);
  unsigned v;
  char nm[96];
  lua_pushstring(L, how); lua_setfield(L, -2, "matched_by");
  lua_pushinteger(L, pick); lua_setfield(L, -2, "index");
  if (have_pci[pick]) { lua_pushstring(L, pci[pick].bus_id); lua_setfield(L, -2, "pci_bus_id"); }
  if (getuuid && getuuid(h, nm, sizeof nm) == 0) { nm[sizeof nm - 1] = 0; lua_pushstring(L, nm); lua_setfield(L, -2, "uuid"); }
  if (maxclock(h, 2 /* NVML_CLOCK_MEM */, &v) == 0) { lua_pushinteger(L, v); lua_setfield(L, -2, "memory_clock_mhz"); }
  if (buswidth && buswidth(h, &v) == 0) { lua_pushinteger(L, v); lua_setfield(L, -2, "bus_width"); }
  if (pgen && pgen(h, &v) == 0) { lua_pushinteger(L, v); lua_setfield(L, -2, "pcie_gen"); }
  if (pwidth && pwidth(h, &v) == 0) { lua_pushinteger(L, v); lua_setfield(L, -2, "pcie_width"); }
  if (cgen && cgen(h, &v) == 0) { lua_pushinteger(L, v); lua_setfield(L, -2, "pcie_gen_current"); }
  if (cwidth && cwidth(h, &v) == 0) { lua_pushinteger(L, v); lua_setfield(L, -2, "pcie_width_current"); }
  if (name && name(h, nm, sizeof nm) == 0) { nm[sizeof nm - 1] = 0; lua_pushstring(L, nm); lua_setfield(L, -2, "gpu_name"); }
  /* Active NVLinks: what each one reaches (its PCI bus id, and 0 a GPU, 1 an IBM NPU, 2 an NVSwitch). */
  lua_newtable(L);
  for (unsigned l = 0, n = 0; linkstate && l < NVML_MAX_LINKS; l++) {
    nvml_pci r;
    if (linkstate(h, l, &v) != 0 || v != 1) continue;
    lua_createtable(L, 0, 3);
    lua_pushinteger(L, l); lua_setfield(L, -2, "link");
    if (linkpci && linkpci(h, l, &r) == 0) {
      r.bus_id[sizeof r.bus_id - 1] = 0;
      lua_pushstring(L, r.bus_id); lua_setfield(L, -2, "remote");
    }
    if (linktype && linktype(h, l, &v) == 0) { lua_pushinteger(L, v); lua_setfield(L, -2, "type"); }
    lua_rawseti(L, -2, ++n);
  }
  lua_setfield(L, -2, "nvlinks");
  /* The common ancestor with every other GPU, by its PCI bus id (nvmlGpuTopologyLevel_t: 0 the same board, 10 one
     PCIe switch, 20 several, 30 the host bridge, 40 the NUMA node, 50 across nodes). */
  lua_newtable(L);
  for (unsigned i = 0; ancestor && i < ndev; i++) {
    if ((int)i == pick || !gpu[i] || !have_pci[i] || ancestor(h, gpu[i], &v) != 0) continue;
    lua_pushinteger(L, v);
    lua_setfield(L, -2, pci[i].bus_id);
  }
  lua_setfield(L, -2, "topology");
  return 1;
}
