--- clua.bounds: what the hardware can do, so that no figure above it is
-- printed as a result. A bandwidth or throughput is held against the bound of
-- its kind: the device's theoretical memory bandwidth (NVML), its PCIe link
-- per direction, or, where the driver does not tell, a generous sanity cap
-- well above any device sold today; a figure above its bound (by more than
-- the clock's `SLACK`) is refused, and a working set that fits the device's
-- caches is a cache figure, held against the cache cap instead.
-- @module clua.bounds
local units = require("clua.units")

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

--- NVLink's bandwidth per link and direction (B/s), NVIDIA's figures by
-- compute capability: NVLink 1 (P100) 20 GB/s, NVLink 2 to 4 (V100, A100,
-- H100/H200) 25 GB/s, GA102's NVLink 3 14.06 GB/s, NVLink 5 (B200) 50 GB/s.
bounds.NVLINK_BPS = {
  ["6.0"] = 20e9, ["7.0"] = 25e9, ["8.0"] = 25e9, ["8.6"] = 14.0625e9, ["9.0"] = 25e9, ["10.0"] = 50e9,
}

--- The bound of a transfer between two devices, B/s per direction, and what it
-- is: `nvlinks` links joining them (at NVLink's speed for the devices' compute
-- capability), else the slower of their PCIe links (the bytes cross both),
-- else the sanity cap for any link. `via_host` (a path staged through host
-- memory) takes the PCIe bound even where NVLink joins the pair.
-- @tab fa the source's facts (pcie_bps, compute_capability)
-- @tab fb the destination's facts
-- @int[opt] nvlinks active NVLinks between them (nil or 0: none known)
-- @bool[opt] via_host
-- @treturn number B/s
-- @treturn string what it is ("18 NVLinks x 25 GB/s per direction, 450 GB/s")
function bounds.link(fa, fb, nvlinks, via_host)
  local per = bounds.NVLINK_BPS[tostring(fa.compute_capability)]
  if not via_host and (nvlinks or 0) > 0 and per and per == bounds.NVLINK_BPS[tostring(fb.compute_capability)] then
    return nvlinks * per, ("%d NVLink%s x %s GB/s per direction, %s GB/s"):format(nvlinks, nvlinks == 1 and "" or "s",
      units.format_number(per / 1e9), units.format_number(nvlinks * per / 1e9))
  end
  if fa.pcie_bps and fb.pcie_bps then
    local b = math.min(fa.pcie_bps, fb.pcie_bps)
    return b, ("PCIe per direction (the slower device's link), %s GB/s"):format(units.format_number(b / 1e9))
  end
  return bounds.CAP.pcie, ("the sanity cap for any link, %s GB/s (no link known between these devices)"):format(
    units.format_number(bounds.CAP.pcie / 1e9))
end

--- An event's duration is the bytes' only where it is not 0 ns and lasts
-- between `share` of the host clock's span and that span (plus the clock's
-- slack and 2 µs of rounding): a copy between two GPUs whose event says
-- 1800 GB/s where the host clock, from the source's completion to the
-- destination's, saw 1.2 GB/s did not time the transfer.
bounds.AGREE = 0.5

--- Whether a command's events agree with the host clock's spans of the same
-- repetitions (lists of ns, paired by index).
-- @tab events the events' durations (ns; nil where there was none)
-- @tab hosts the host clock's spans (ns)
-- @number[opt=bounds.AGREE] share
-- @treturn boolean true when every repetition's event agrees
-- @treturn string why not: "0 ns", "no event", or "short" (the event saw less than the host clock)
function bounds.agree(events, hosts, share)
  share = share or bounds.AGREE
  if #hosts == 0 then return false, "no event" end
  for k, h in ipairs(hosts) do
    local e = events[k]
    if not e then return false, "no event" end
    if e <= 0 then return false, "0 ns" end
    if e < share * h then return false, "short" end
    if e > h * bounds.SLACK + 2000 then return false, "long" end
  end
  return true
end

return bounds
