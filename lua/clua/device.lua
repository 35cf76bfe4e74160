--- clua.device: the facts a report states about a device, and its theoretical
-- bandwidths (memory from NVML's memory clock and bus width, PCIe per direction
-- from NVML's generation and width), or "unknown" with the reason.
-- @module clua.device
local units = require("clua.units")
local options = require("clua.options")

local device = {}

-- Usable bytes per second per lane and direction, after line encoding.
device.pcie_lane_bps = {
  [1] = 0.25e9, [2] = 0.5e9, [3] = 0.985e9, [4] = 1.969e9, [5] = 3.938e9, [6] = 7.563e9,
}

--- Theoretical memory bandwidth in B/s: 2 (double data rate) x clock x bus width / 8.
function device.memory_bps(memory_clock_mhz, bus_width_bits)
  if not (memory_clock_mhz and bus_width_bits) then return nil end
  return 2 * memory_clock_mhz * 1e6 * bus_width_bits / 8
end

--- Theoretical PCIe bandwidth in B/s, one direction.
function device.pcie_bps(gen, width)
  local lane = device.pcie_lane_bps[gen or 0]
  if not (lane and width) then return nil end
  return lane * width
end

--- The `"P:D"` index of a device (platform P, device D, 0-based), as
-- `clua --devices` and `CLUA_DEVICE` name it; nil when it is not found.
function device.index(dev)
  for _, pl in ipairs(require("cl").platforms()) do
    for j, d in ipairs(pl:devices()) do
      if d == dev then return ("%d:%d"):format(pl.index, j - 1) end
    end
  end
end

--- Every device of `dev`'s platform (a list, `dev` among them; `{dev}` when
-- no platform lists it).
function device.platform_devices(dev)
  for _, pl in ipairs(require("cl").platforms()) do
    local list = pl:devices()
    for _, d in ipairs(list) do if d == dev then return list end end
  end
  return { dev }
end

--- NVML's common-ancestor levels (nvmlGpuTopologyLevel_t), as `nvidia-smi
-- topo -m` names them: the same board, one PCIe switch, several, the host
-- bridge, the NUMA node, across NUMA nodes.
device.TOPOLOGY = { [0] = "same board", [10] = "PIX", [20] = "PXB", [30] = "PHB", [40] = "NODE", [50] = "SYS" }

local function numa_node(busid, sysfs)
  -- NVML's "00000000:1B:00.0" is sysfs's "0000:1b:00.0"
  local d, rest = tostring(busid):match("^(%x+):(%x+:%x+%.%x)$")
  if not d then return nil end
  local f = io.open(("%s/%04x:%s/numa_node"):format(sysfs or "/sys/bus/pci/devices", tonumber(d, 16),
    rest:lower()))
  if not f then return nil end
  local n = f:read("n")
  f:close()
  return n and n >= 0 and math.tointeger(n) or nil
end

--- What joins two devices, from their NVML facts (`facts.nvml`: its
-- `pci_bus_id`, active `nvlinks` with each link's `remote` bus id and `type`
-- (0 a GPU, 2 an NVSwitch), and `topology`, the common-ancestor level by the
-- other GPU's bus id): `nvlinks` (links to the other GPU, or through
-- NVSwitches the fewer of the two's switch links), `level` (PIX, PXB, PHB,
-- NODE, SYS), each one's NUMA node (`numa_a`, `numa_b`), and `text` as
-- `nvidia-smi topo -m` would put it ("NV18", "PXB"), or "unknown" and `why`.
-- @tab fa facts of one device
-- @tab fb facts of the other
-- @string[opt] sysfs the PCI devices folder (specs)
-- @treturn tab
function device.link(fa, fb, sysfs)
  local a, b = fa.nvml, fb.nvml
  if not (a and b and a.pci_bus_id and b.pci_bus_id) then
    return { text = "unknown", why = fa.unknown_why or fb.unknown_why or "NVML does not know both" }
  end
  local ida, idb = a.pci_bus_id:lower(), b.pci_bus_id:lower()
  local direct, sa, sb = 0, 0, 0
  for _, l in ipairs(a.nvlinks or {}) do
    if l.remote and l.remote:lower() == idb then direct = direct + 1 elseif l.type == 2 then sa = sa + 1 end
  end
  for _, l in ipairs(b.nvlinks or {}) do if l.type == 2 then sb = sb + 1 end end
  local r = { nvlinks = direct, numa_a = numa_node(ida, sysfs), numa_b = numa_node(idb, sysfs) }
  if direct == 0 and sa > 0 and sb > 0 then r.nvlinks, r.switch = math.min(sa, sb), true end
  for k, v in pairs(a.topology or {}) do if k:lower() == idb then r.level = device.TOPOLOGY[v] end end
  r.text = r.nvlinks > 0 and ("NV%d"):format(r.nvlinks) or r.level or "unknown"
  if r.text == "unknown" then r.why = "NVML gives no common ancestor for this pair" end
  return r
end

local Facts = {}
Facts.__index = Facts

--- Facts about a cl device (a `Facts`: the methods `Facts:...` below).
-- opts.nvml: the table cl.nvml would give (or false
-- for none), for tests and for devices NVML does not know.
function device.facts(dev, opts)
  opts = options.check(opts, "device.facts", { "nvml", "why" })
  local i = dev.info
  local f = setmetatable({
    name = i.name, vendor = i.vendor, platform = i.platform or dev.platform,
    driver = i.driver_version, version = i.version, type = i.type,
    compute_units = i.compute_units, clock_mhz = i.max_clock_mhz,
    global_mem = i.global_mem_size, global_mem_cache = i.global_mem_cache_size,
    local_mem = i.local_mem_size, constant_mem = i.constant_mem_size,
    max_alloc = i.max_mem_alloc_size, max_work_group_size = i.max_work_group_size,
    max_work_item_sizes = i.max_work_item_sizes,
    timer_resolution_ns = i.timer_resolution_ns,
    compute_capability = i.compute_capability, warp_size = i.warp_size,
    host_unified_memory = i.host_unified_memory,
  }, Facts)

  local nv, why = opts.nvml, nil
  if nv == nil then
    local ok, cl = pcall(require, "cl")
    if ok and cl.nvml then
      local ok2, r, w = pcall(cl.nvml, dev)
      if ok2 then nv, why = r, w else nv, why = nil, r end
    else
      why = "no NVML in this runtime"
    end
  elseif nv == false then
    nv, why = nil, opts.why or "NVML not available"
  end
  if nv then
    f.nvml = nv
    f.memory_clock_mhz, f.bus_width = nv.memory_clock_mhz, nv.bus_width
    f.pcie_gen, f.pcie_width = nv.pcie_gen, nv.pcie_width
    f.memory_bps = device.memory_bps(nv.memory_clock_mhz, nv.bus_width)
    f.pcie_bps = device.pcie_bps(nv.pcie_gen, nv.pcie_width)
  end
  f.unknown_why = why or "the driver does not report it"
  return f
end

--- Facts rebuilt from their fields as a report card's JSON holds them, with
-- the methods `Facts:...` (a copy: `t` is not changed).
-- @tab t the fields (name, vendor, memory_bps, ...)
function device.from_data(t)
  local f = {}
  for k, v in pairs(t or {}) do f[k] = v end
  f.unknown_why = f.unknown_why or "the driver does not report it"
  return setmetatable(f, Facts)
end

--- Theoretical B/s for "memory" (default) or "pcie", or nil.
function Facts:theoretical(which)
  return which == "pcie" and self.pcie_bps or self.memory_bps
end

--- `bw` (in units of `divisor` B/s, default 10^9) as a percentage of the
-- theoretical "memory" (default) or "pcie" bandwidth; nil when that is unknown.
function Facts:pct_of_theoretical(bw, which, divisor)
  local t = self:theoretical(which)
  if not t or not bw then return nil end
  return bw * (divisor or units.GB) / t * 100
end

-- A whole number as such ("2619", not "2619.0"); "?" for none.
local function int(v) return math.tointeger(v) or v or "?" end

--- "3352 GB/s (2 x 2619 MHz x 5120 bit / 8)" or "unknown (why)".
function Facts:describe_theoretical(which, divisor)
  local t, u = self:theoretical(which), units.bw_unit(divisor)
  if not t then return "unknown (" .. self.unknown_why .. ")" end
  local v = units.format_number(t / (divisor or units.GB))
  if which == "pcie" then
    return ("%s %s per direction (PCIe gen%s x%s)"):format(v, u, int(self.pcie_gen), int(self.pcie_width))
  end
  return ("%s %s (2 x %s MHz x %s bit / 8)"):format(v, u, int(self.memory_clock_mhz), int(self.bus_width))
end

--- A list of {label, text} pairs for printing ahead of a report.
function Facts:lines(divisor)
  local function mem(b) return b and units.format_size(b) or "?" end
  local wi = self.max_work_item_sizes and table.concat(self.max_work_item_sizes, " x ") or "?"
  local l = {
    { "device", ("%s (%s)"):format(self.name, self.platform or "?") },
    { "vendor", tostring(self.vendor) },
    { "driver", ("%s, %s"):format(self.driver or "?", self.version or "?") },
    { "compute units", ("%s at %s MHz"):format(self.compute_units or "?", self.clock_mhz or "?") },
    { "memory", ("%s global, %s cache, %s local, %s constant, %s max alloc"):format(
      mem(self.global_mem), mem(self.global_mem_cache), mem(self.local_mem),
      mem(self.constant_mem), mem(self.max_alloc)) },
    { "work-group", ("%s max, items %s"):format(self.max_work_group_size or "?", wi) },
    { "timer resolution", self.timer_resolution_ns and (self.timer_resolution_ns .. " ns") or "?" },
    { "theoretical memory", self:describe_theoretical("memory", divisor) },
    { "theoretical PCIe", self:describe_theoretical("pcie", divisor) },
  }
  if self.compute_capability then
    table.insert(l, 4, { "compute capability", ("%s, warp %s"):format(
      self.compute_capability, self.warp_size or "?") })
  end
  return l
end

--- The lines as text, one "label: value" a line.
function Facts:text(divisor)
  local out = {}
  for _, kv in ipairs(self:lines(divisor)) do out[#out + 1] = ("%-19s %s"):format(kv[1] .. ":", kv[2]) end
  return table.concat(out, "\n") .. "\n"
end

return device
