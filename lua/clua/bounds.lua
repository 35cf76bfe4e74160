--- clua.bounds: what the hardware can do, so that no figure above it is
-- printed as a result. A bandwidth or throughput is held against the bound of
-- its kind: the device's theoretical memory bandwidth (NVML), its PCIe link
-- per direction, or, where the driver does not tell, a generous sanity cap
-- well above any device sold today; a figure above its bound (by more than
-- the clock's `SLACK`) is refused, and a working set that fits the device's
-- caches is a cache figure, held against the cache cap instead.
-- @module clua.bounds
local units = require "clua.units"

local bounds = {}

--- Figures within this factor of their bound pass (event clocks round to
-- their resolution: a short command may read a few percent fast).
bounds.SLACK = 1.02

--- Sanity caps in B/s (bandwidth) or operations/s (`compute`) where no bound
-- is known: about 5x the fastest device of each kind in 2026 (HBM3e at
-- ~8 TB/s, NVLink 5 at 1.8 TB/s, a GPU's caches at ~100 TB/s, ~2 POP/s).
bounds.CAP = {
  memory = 40e12, -- device memory (HBM, GDDR, a CPU's DRAM)
  cache = 500e12, -- a working set within the device's caches, local memory
  pcie = 10e12,   -- host <-> device, device <-> device: any link
  host = 10e12,   -- host memory to host memory
  compute = 10e15,
}

-- Last-level (L2) cache of NVIDIA GPUs by compute capability, NVIDIA's
-- figures for the largest part of each generation (the OpenCL driver reports
-- the L1 total as its global memory cache).
local NVIDIA_L2 = {
  ["7.0"] = 6 * 2^20, ["7.5"] = 6 * 2^20, ["8.0"] = 40 * 2^20, ["8.6"] = 6 * 2^20,
  ["8.7"] = 4 * 2^20, ["8.9"] = 96 * 2^20, ["9.0"] = 50 * 2^20, ["10.0"] = 126 * 2^20,
  ["12.0"] = 128 * 2^20,
}

local function cpu_llc(root)
  local best = 0
  for i = 0, 7 do
    local f = io.open(("%s/index%d/size"):format(root or "/sys/devices/system/cpu/cpu0/cache", i))
    if not f then break end
    local s = f:read("l") or ""
    f:close()
    local n, u = s:match("^(%d+)([KMG]?)")
    n = tonumber(n)
    if n then
      n = n * ({ K = 2^10, M = 2^20, G = 2^30 })[u] or n
      if n > best then best = n end
    end
  end
  return best
end

--- The bytes of the device's largest cache, and where the figure comes from:
-- the driver's global memory cache, the L2 NVIDIA gives for its compute
-- capability, or (a CPU device) the host's last-level cache from sysfs.
-- @tab facts clua.device facts
-- @string[opt] sysfs the cache folder of cpu0 (specs)
-- @treturn integer bytes (0 when unknown)
-- @treturn string the source
function bounds.cache_bytes(facts, sysfs)
  local bytes, from = facts.global_mem_cache or 0, "the driver's global memory cache"
  local l2 = facts.compute_capability and NVIDIA_L2[tostring(facts.compute_capability)]
  if l2 and l2 > bytes then bytes, from = l2, "NVIDIA's L2 for compute capability " .. facts.compute_capability end
  if facts.type == "CPU" then
    local llc = cpu_llc(sysfs)
    if llc > bytes then bytes, from = llc, "the host's last-level cache" end
  end
  return bytes, from
end

--- The bound of a figure's kind on a device: B/s (or operations/s) and what it is.
-- @tab facts clua.device facts (memory_bps, pcie_bps)
-- @param kind "memory", "cache", "pcie", "host", "compute", or a number (B/s)
-- @treturn number the bound
-- @treturn string what it is, e.g. "the theoretical memory bandwidth, 4800 GB/s"
function bounds.limit(facts, kind)
  if type(kind) == "number" then return kind, ("the bound given, %s GB/s"):format(units.format_number(kind / 1e9)) end
  local known = ({ memory = facts and facts.memory_bps, pcie = facts and facts.pcie_bps })[kind]
  if known then
    return known, ("the theoretical %s bandwidth, %s GB/s"):format(kind == "pcie" and "PCIe (per direction)"
      or "memory", units.format_number(known / 1e9))
  end
  local cap = bounds.CAP[kind]
  if not cap then error("bounds.limit: unknown kind '" .. tostring(kind) .. "'", 2) end
  local unit = kind == "compute" and " Gop/s" or " GB/s"
  return cap, ("the sanity cap for %s figures, %s%s (no bound known for this device)"):format(kind,
    units.format_number(cap / 1e9), unit)
end

--- Holds a figure (B/s or operations/s) against its bound.
-- @number per_s the figure, per second
-- @tab facts the device's facts
-- @param kind as for `bounds.limit`
-- @treturn boolean true when the hardware can reach it
-- @treturn string why not: `"above the theoretical memory bandwidth, 4800 GB/s (1.3x)"`
function bounds.check(per_s, facts, kind)
  local limit, what = bounds.limit(facts, kind)
  if per_s ~= per_s or per_s == math.huge then return false, "not a finite figure" end
  if per_s <= limit * bounds.SLACK then return true end
  return false, ("above %s (%.3gx)"):format(what, per_s / limit)
end

return bounds
