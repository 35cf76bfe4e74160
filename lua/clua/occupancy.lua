--- clua.occupancy: an occupancy calculator (NVIDIA OpenCL Best Practices Guide,
-- 4.1-4.5; the CUDA Occupancy Calculator of the lecture and slides).
--
-- Occupancy is the number of warps resident on a compute unit (an SM) divided by
-- the most it can hold. How many work-groups are resident is the smallest of four
-- limits: warps (work-items) per compute unit, work-groups per compute unit,
-- registers and local (shared) memory. The per-SM limits of NVIDIA GPUs come from
-- a table by compute capability (the CUDA C Programming Guide's "Technical
-- Specifications per Compute Capability" and the allocation granularities of
-- cuda_occupancy.h); the kernel's use from its real attributes
-- (CL_KERNEL_LOCAL_MEM_SIZE, CL_KERNEL_PRIVATE_MEM_SIZE, the work-group size) and
-- its registers per work-item from NVIDIA's build log (`-cl-nv-verbose`).
-- Other devices get a stated fallback from the OpenCL device query alone.
--
-- Pure Lua: devices and kernels may be cl objects or plain tables (for specs).
-- @module clua.occupancy
local options = require("clua.options")

local occupancy = {}

-- The fields of a limits table (occupancy.limits), each of which opts may override.
occupancy.LIMIT_FIELDS = { "source", "name", "cc", "compute_units", "warp_size", "threads", "warps", "groups",
  "group", "registers", "regs_per_group", "reg_unit", "reg_alloc", "partitions", "max_regs", "local_mem",
  "max_local", "local_unit", "reserved", "fallback", "max_local_note" }
local LIMITS_OPTIONS = table.move(occupancy.LIMIT_FIELDS, 1, #occupancy.LIMIT_FIELDS, 2, { "registers_per_cu" })
local OF_OPTIONS = table.move(LIMITS_OPTIONS, 1, #LIMITS_OPTIONS, 2, { "limits" })

local KiB = 1024

-- Per-compute-unit limits by compute capability. Fields:
--   threads     resident work-items (threads) per SM      warps   resident warps per SM
--   groups      resident work-groups (blocks) per SM       group   most work-items per group
--   registers   32-bit registers per SM                    regs_per_group  per block
--   reg_unit    register allocation unit (registers)       reg_alloc "block" (1.x) or "warp"
--   partitions  warp allocation granularity: registers are split between this many
--               sub-partitions (schedulers), and a block's warps are rounded up to it
--               for 1.x (block allocation) and for the per-block hardware check
--   max_regs    registers per thread the compiler may use
--   local_mem   shared memory per SM (the largest carveout)
--   max_local   shared memory a block may use (opt-in maximum in CUDA)
--   local_unit  shared memory allocation unit              reserved  shared memory the
--               driver reserves per block (1 KiB from 8.0 on)
-- 1.0-3.5 are the lecture's table (seed 001, "Device Computation Capabilities").
occupancy.architectures = {
  ["1.0"] = { name = "Tesla G80", threads = 768, warps = 24, groups = 8, group = 512, registers = 8192,
    regs_per_group = 8192, reg_unit = 256, reg_alloc = "block", partitions = 2, max_regs = 124,
    local_mem = 16 * KiB, max_local = 16 * KiB, local_unit = 512, reserved = 0 },
  ["1.1"] = { name = "Tesla G8x/G9x", threads = 768, warps = 24, groups = 8, group = 512, registers = 8192,
    regs_per_group = 8192, reg_unit = 256, reg_alloc = "block", partitions = 2, max_regs = 124,
    local_mem = 16 * KiB, max_local = 16 * KiB, local_unit = 512, reserved = 0 },
  ["1.2"] = { name = "Tesla GT21x", threads = 1024, warps = 32, groups = 8, group = 512, registers = 16384,
    regs_per_group = 16384, reg_unit = 512, reg_alloc = "block", partitions = 2, max_regs = 124,
    local_mem = 16 * KiB, max_local = 16 * KiB, local_unit = 512, reserved = 0 },
  ["1.3"] = { name = "Tesla GT200", threads = 1024, warps = 32, groups = 8, group = 512, registers = 16384,
    regs_per_group = 16384, reg_unit = 512, reg_alloc = "block", partitions = 2, max_regs = 124,
    local_mem = 16 * KiB, max_local = 16 * KiB, local_unit = 512, reserved = 0 },
  ["2.0"] = { name = "Fermi GF100", threads = 1536, warps = 48, groups = 8, group = 1024, registers = 32768,
    regs_per_group = 32768, reg_unit = 64, reg_alloc = "warp", partitions = 2, max_regs = 63,
    local_mem = 48 * KiB, max_local = 48 * KiB, local_unit = 128, reserved = 0 },
  ["2.1"] = { name = "Fermi GF10x", threads = 1536, warps = 48, groups = 8, group = 1024, registers = 32768,
    regs_per_group = 32768, reg_unit = 64, reg_alloc = "warp", partitions = 2, max_regs = 63,
    local_mem = 48 * KiB, max_local = 48 * KiB, local_unit = 128, reserved = 0 },
  ["3.0"] = { name = "Kepler GK10x", threads = 2048, warps = 64, groups = 16, group = 1024, registers = 65536,
    regs_per_group = 65536, reg_unit = 256, reg_alloc = "warp", partitions = 4, max_regs = 63,
    local_mem = 48 * KiB, max_local = 48 * KiB, local_unit = 256, reserved = 0 },
  ["3.5"] = { name = "Kepler GK110", threads = 2048, warps = 64, groups = 16, group = 1024, registers = 65536,
    regs_per_group = 65536, reg_unit = 256, reg_alloc = "warp", partitions = 4, max_regs = 255,
    local_mem = 48 * KiB, max_local = 48 * KiB, local_unit = 256, reserved = 0 },
  ["5.0"] = { name = "Maxwell GM10x", threads = 2048, warps = 64, groups = 32, group = 1024, registers = 65536,
    regs_per_group = 65536, reg_unit = 256, reg_alloc = "warp", partitions = 4, max_regs = 255,
    local_mem = 64 * KiB, max_local = 48 * KiB, local_unit = 256, reserved = 0 },
  ["5.2"] = { name = "Maxwell GM20x", threads = 2048, warps = 64, groups = 32, group = 1024, registers = 65536,
    regs_per_group = 65536, reg_unit = 256, reg_alloc = "warp", partitions = 4, max_regs = 255,
    local_mem = 96 * KiB, max_local = 48 * KiB, local_unit = 256, reserved = 0 },
  ["6.0"] = { name = "Pascal GP100", threads = 2048, warps = 64, groups = 32, group = 1024, registers = 65536,
    regs_per_group = 65536, reg_unit = 256, reg_alloc = "warp", partitions = 2, max_regs = 255,
    local_mem = 64 * KiB, max_local = 48 * KiB, local_unit = 256, reserved = 0 },
  ["6.1"] = { name = "Pascal GP10x", threads = 2048, warps = 64, groups = 32, group = 1024, registers = 65536,
    regs_per_group = 65536, reg_unit = 256, reg_alloc = "warp", partitions = 4, max_regs = 255,
    local_mem = 96 * KiB, max_local = 48 * KiB, local_unit = 256, reserved = 0 },
  ["7.0"] = { name = "Volta", threads = 2048, warps = 64, groups = 32, group = 1024, registers = 65536,
    regs_per_group = 65536, reg_unit = 256, reg_alloc = "warp", partitions = 4, max_regs = 255,
    local_mem = 96 * KiB, max_local = 96 * KiB, local_unit = 256, reserved = 0 },
  ["7.5"] = { name = "Turing", threads = 1024, warps = 32, groups = 16, group = 1024, registers = 65536,
    regs_per_group = 65536, reg_unit = 256, reg_alloc = "warp", partitions = 4, max_regs = 255,
    local_mem = 64 * KiB, max_local = 64 * KiB, local_unit = 256, reserved = 0 },
  ["8.0"] = { name = "Ampere GA100", threads = 2048, warps = 64, groups = 32, group = 1024, registers = 65536,
    regs_per_group = 65536, reg_unit = 256, reg_alloc = "warp", partitions = 4, max_regs = 255,
    local_mem = 164 * KiB, max_local = 163 * KiB, local_unit = 128, reserved = 1 * KiB },
  ["8.6"] = { name = "Ampere GA10x", threads = 1536, warps = 48, groups = 16, group = 1024, registers = 65536,
    regs_per_group = 65536, reg_unit = 256, reg_alloc = "warp", partitions = 4, max_regs = 255,
    local_mem = 100 * KiB, max_local = 99 * KiB, local_unit = 128, reserved = 1 * KiB },
  ["8.9"] = { name = "Ada Lovelace", threads = 1536, warps = 48, groups = 24, group = 1024, registers = 65536,
    regs_per_group = 65536, reg_unit = 256, reg_alloc = "warp", partitions = 4, max_regs = 255,
    local_mem = 100 * KiB, max_local = 99 * KiB, local_unit = 128, reserved = 1 * KiB },
  ["9.0"] = { name = "Hopper", threads = 2048, warps = 64, groups = 32, group = 1024, registers = 65536,
    regs_per_group = 65536, reg_unit = 256, reg_alloc = "warp", partitions = 4, max_regs = 255,
    local_mem = 228 * KiB, max_local = 227 * KiB, local_unit = 128, reserved = 1 * KiB },
}

local function version_number(cc)
  local a, b = tostring(cc or ""):match("^(%d+)%.(%d+)")
  if not a then return nil end
  return tonumber(a) * 100 + tonumber(b)
end

--- The table entry for a compute capability: exact, else the nearest earlier one
-- of the same major version (8.7 -> 8.6), else the newest earlier one (10.0 ->
-- 9.0). Returns entry, the capability used, and whether it was exact.
function occupancy.architecture(cc)
  local v = version_number(cc)
  if not v then return nil end
  local key = ("%d.%d"):format(v // 100, v % 100)
  if occupancy.architectures[key] then return occupancy.architectures[key], key, true end
  local best, bestv
  for _, same_major in ipairs({ true, false }) do
    for k in pairs(occupancy.architectures) do
      local kv = version_number(k)
      if kv <= v and (not same_major or kv // 100 == v // 100) and (not bestv or kv > bestv) then
        best, bestv = k, kv
      end
    end
    if best then break end
  end
  if not best then return nil end
  return occupancy.architectures[best], best, false
end

local function info_of(dev)
  if type(dev) == "table" and dev.info == nil and (dev.compute_units or dev.type) then return dev end
  return dev.info
end

local function copy(t)
  local r = {}
  for k, v in pairs(t) do r[k] = v end
  return r
end

local function is_nvidia(info)
  if info.compute_capability then return true end
  for _, e in ipairs(info.extensions or {}) do
    if e == "cl_nv_device_attribute_query" then return true end
  end
  return false
end

--- The device's per-compute-unit limits. `opts.cc` picks a table row (for a
-- device that does not tell its compute capability, or to ask "what if");
-- any other field of opts overrides the result's field of that name.
-- Returns L with: source (how it was obtained), name, cc, compute_units,
-- warp_size (nil: the kernel's preferred work-group size multiple), threads,
-- warps (nil: threads / warp), groups (nil: no limit), group, registers (nil:
-- not modelled), regs_per_group, reg_unit, reg_alloc, partitions, max_regs,
-- local_mem, max_local, local_unit, reserved.
function occupancy.limits(dev, opts)
  opts = options.check(opts, "occupancy.limits", LIMITS_OPTIONS)
  local info = info_of(dev) or {}
  local cc = opts.cc or info.compute_capability
  local L
  local arch, used, exact = occupancy.architecture(cc)
  if arch and (opts.cc or is_nvidia(info)) then
    L = copy(arch)
    L.cc = used
    L.source = exact and ("compute capability %s (%s): CUDA Programming Guide table"):format(used, arch.name)
      or ("compute capability %s, not in the table: assumed like %s (%s)"):format(tostring(cc), used, arch.name)
    L.warp_size = info.warp_size or 32
    if info.registers_per_block then L.regs_per_group = info.registers_per_block end
    -- OpenCL cannot opt in to more local memory per group than the device reports.
    if info.local_mem_size and info.local_mem_size < L.max_local then
      L.max_local = info.local_mem_size
      L.max_local_note = "the OpenCL device limit"
    end
    if info.max_work_group_size and info.max_work_group_size < L.group then L.group = info.max_work_group_size end
  else
    -- The fallback: what the OpenCL query tells, nothing more. A compute unit
    -- is assumed to hold max_work_group_size work-items and local_mem_size bytes
    -- of local memory; groups are limited by those two only; registers are not
    -- modelled unless given (opts.registers_per_cu).
    L = {
      name = info.name or "device",
      source = ("OpenCL device query only (no per-compute-unit table for %s %s): a compute unit is assumed to "
        .. "hold max_work_group_size work-items and local_mem_size bytes; registers not modelled")
        :format(info.type or "this", info.vendor or "device"),
      fallback = true,
      threads = info.max_work_group_size or 1024,
      group = info.max_work_group_size or 1024,
      warp_size = info.warp_size, -- nil: the kernel's preferred multiple
      local_mem = info.local_mem_size or 0,
      max_local = info.local_mem_size or 0,
      local_unit = 1, reserved = 0, partitions = 1, reg_alloc = "warp", reg_unit = 1,
      registers = opts.registers_per_cu,
      regs_per_group = opts.registers_per_cu,
    }
    if info.type == "CPU" then
      L.source = L.source .. "; a CPU runs one work-group per core at a time, so occupancy does not apply"
    end
  end
  L.compute_units = info.compute_units
  for k, v in pairs(opts) do
    if k ~= "cc" and k ~= "registers_per_cu" then L[k] = v end
  end
  return L
end

local function ceil_div(a, b) return (a + b - 1) // b end
local function round_up(a, b) return ceil_div(a, b) * b end

occupancy.resources = { "warps", "groups", "registers", "local memory" }

--- The calculator. `L` from occupancy.limits; `u` = {threads=work-items per
-- group, registers=per work-item (nil: unknown, not modelled), local_mem=bytes
-- of local memory per group (static + arguments), warp_size= (when L has none)}.
-- Returns r: threads, warp_size, warps_per_group, registers, local_mem,
-- local_alloc (bytes per group with the reserve, rounded to the unit),
-- regs_per_group (allocated), by = {warps=, groups=, registers=, ["local memory"]=}
-- (groups per CU each resource allows; nil when not modelled), groups (per CU,
-- the minimum), limiter (the resource(s) reaching it, "a = b" on a tie),
-- active_warps, max_warps, occupancy (0-1), fits (false when a group cannot run
-- at all, with why), limits (L).
function occupancy.calculate(L, u)
  local warp = u.warp_size or L.warp_size or 1
  local threads = math.tointeger(u.threads) or error("occupancy.calculate: threads (work-items per group) needed")
  local r = { limits = L, threads = threads, warp_size = warp, registers = u.registers,
    local_mem = u.local_mem or 0, by = {} }
  local wpg = ceil_div(threads, warp)
  r.warps_per_group = wpg
  local max_warps = L.warps or (L.threads // warp)
  r.max_warps = max_warps
  local why

  -- warps (work-items) per compute unit
  if threads > (L.group or math.huge) then why = ("%d work-items exceed the %d a group may have"):format(threads, L.group) end
  r.by.warps = max_warps // wpg
  -- work-groups per compute unit
  r.by.groups = L.groups
  -- registers
  local regs = u.registers
  if regs and L.registers then
    local part = L.partitions or 1
    if L.reg_alloc == "block" then
      local per_group = round_up(regs * warp * round_up(wpg, part), L.reg_unit)
      r.regs_per_group = per_group
      r.by.registers = per_group > 0 and L.registers // per_group or nil
      if per_group > (L.regs_per_group or L.registers) then
        why = why or ("%d registers per group exceed the %d a group may have"):format(per_group, L.regs_per_group)
      end
    else
      local per_warp = round_up(regs * warp, L.reg_unit)
      r.regs_per_group = per_warp * wpg
      local assumed = per_warp * round_up(wpg, part)
      if per_warp > 0 then
        local per_partition = (L.registers // part) // per_warp
        r.by.registers = per_partition * part // wpg
      end
      if L.max_regs and regs > L.max_regs then
        why = why or ("%d registers per work-item exceed the %d allowed"):format(regs, L.max_regs)
      elseif math.max(assumed, r.regs_per_group) > (L.regs_per_group or L.registers) then
        why = why or ("%d registers per group exceed the %d a group may have"):format(
          math.max(assumed, r.regs_per_group), L.regs_per_group or L.registers)
      end
    end
  end
  -- local (shared) memory
  local lm = r.local_mem
  local alloc = round_up(lm + (L.reserved or 0), L.local_unit or 1)
  r.local_alloc = alloc
  if lm > (L.max_local or math.huge) then
    why = why or ("%d bytes of local memory exceed the %d a group may have (%s)"):format(lm, L.max_local,
      L.max_local_note or "per group")
  end
  if alloc > 0 and L.local_mem then r.by["local memory"] = L.local_mem // alloc end

  local groups = math.huge
  for _, k in ipairs(occupancy.resources) do
    local v = r.by[k]
    if v and v < groups then groups = v end
  end
  if groups == math.huge then groups = 1 end
  local limiter = {}
  for _, k in ipairs(occupancy.resources) do
    if r.by[k] == groups then limiter[#limiter + 1] = k end
  end
  if why then
    r.fits, r.why, groups = false, why, 0
    limiter = { "does not fit: " .. why }
  else
    r.fits = true
    if groups == 0 then
      r.fits = false
      r.why = "no group fits: " .. table.concat(limiter, " = ")
    end
  end
  r.groups = groups
  r.limiter = table.concat(limiter, " = ")
  r.active_warps = math.min(groups * wpg, max_warps)
  r.active_threads = groups * threads
  r.occupancy = max_warps > 0 and r.active_warps / max_warps or 0
  return r
end

--- Registers per work-item of kernel `name` from an NVIDIA build log made with
-- -cl-nv-verbose (ptxas: "Compiling entry function 'NAME'", then "Used N
-- registers"). Returns registers, spill store bytes, spill load bytes; nil
-- when the log does not say.
function occupancy.registers(log, name)
  if type(log) ~= "string" or log == "" then return nil end
  local current, found, spill_st, spill_ld
  local any_entry = false
  for line in log:gmatch("[^\n]+") do
    local entry = line:match("Compiling entry function '([^']+)'")
    if entry then current = entry; any_entry = true end
    local st, ld = line:match("(%d+) bytes spill stores, (%d+) bytes spill loads")
    if st and (current == name or (not any_entry)) then spill_st, spill_ld = tonumber(st), tonumber(ld) end
    local n = line:match("Used (%d+) registers")
    if n and (current == name or (name == nil and not found)) then found = tonumber(n) end
  end
  return found, spill_st, spill_ld
end

--- Build options that make the compiler report registers: "-cl-nv-verbose" on
-- a device with cl_nv_compiler_options (NVIDIA), else nil.
function occupancy.build_options(dev)
  local info = info_of(dev) or {}
  for _, e in ipairs(info.extensions or {}) do
    if e == "cl_nv_compiler_options" then return "-cl-nv-verbose" end
  end
  return nil
end

--- What a kernel uses, from its attributes on `dev`: work_group_size,
-- preferred multiple, local_mem (CL_KERNEL_LOCAL_MEM_SIZE: static __local plus
-- the __local arguments set so far), private_mem, registers (opts.registers,
-- else from kernel.program.log of a -cl-nv-verbose build; nil when unknown)
-- and registers_from (where the count came from).
function occupancy.usage(kernel, dev, opts)
  opts = options.check(opts, "occupancy.usage", { "registers", "local_mem" })
  local ki = kernel.info and kernel:info(dev) or kernel
  local u = { work_group_size = ki.work_group_size, multiple = ki.preferred_work_group_size_multiple,
    local_mem = opts.local_mem or ki.local_mem_size or 0, private_mem = ki.private_mem_size }
  if opts.registers then
    u.registers, u.registers_from = opts.registers, "given"
  else
    local prog = kernel.program
    local ok, log = pcall(function() return prog and prog.log end)
    local regs, st, ld = occupancy.registers(ok and log or nil, kernel.name)
    if regs then
      u.registers, u.registers_from = regs, "-cl-nv-verbose build log"
      u.spill_stores, u.spill_loads = st, ld
    else
      u.registers_from = "unknown (no -cl-nv-verbose build log)"
    end
  end
  return u
end

--- Occupancy of `kernel` launched with `local_size` work-items per group on `dev`
-- (the kernel's __local arguments as set now). opts: cc, registers, local_mem
-- (override), limits (a table from occupancy.limits), any limits override.
-- Returns the calculator's result with r.usage and r.kernel_name.
function occupancy.of(kernel, dev, local_size, opts)
  opts = options.check(opts, "occupancy.of", OF_OPTIONS)
  local L = opts.limits
  if not L then
    local lo = {}
    for k, v in pairs(opts) do
      if k ~= "registers" and k ~= "local_mem" and k ~= "limits" then lo[k] = v end
    end
    L = occupancy.limits(dev, lo)
  end
  local u = occupancy.usage(kernel, dev, { registers = opts.registers, local_mem = opts.local_mem })
  local threads = local_size
  if type(threads) == "table" then
    local p = 1
    for _, v in ipairs(threads) do p = p * v end
    threads = p
  end
  threads = threads or u.work_group_size
  local r = occupancy.calculate(L, { threads = threads, registers = u.registers, local_mem = u.local_mem,
    warp_size = L.warp_size or u.multiple })
  -- The kernel's work_group_size is not a limit here: NVIDIA's driver reports
  -- 256 for most kernels and runs them in groups of 1024; what binds is the
  -- device's group size and the registers, both in the calculation.
  r.usage, r.kernel_name = u, kernel.name
  return r
end

local function size(b)
  if b >= KiB and b % KiB == 0 then return ("%d KiB"):format(b // KiB) end
  if b >= KiB then return ("%.1f KiB"):format(b / KiB) end
  return ("%d B"):format(b)
end

--- One line: "50% (4 groups x 8 warps = 32 of 64 warps), limited by registers".
function occupancy.summary(r)
  if not r.fits then return ("0%% (%s)"):format(r.why or r.limiter) end
  return ("%.0f%% (%d group%s x %d warp%s = %d of %d warps), limited by %s"):format(100 * r.occupancy,
    r.groups, r.groups == 1 and "" or "s", r.warps_per_group, r.warps_per_group == 1 and "" or "s",
    r.active_warps, r.max_warps, r.limiter)
end

--- The calculation written out, resource by resource.
function occupancy.describe(r)
  local L = r.limits
  local out = {}
  local function add(fmt, ...) out[#out + 1] = fmt:format(...) end
  add("occupancy%s", r.kernel_name and (" of kernel " .. r.kernel_name) or "")
  add("  limits: %s", L.source)
  add("  work-group: %d work-items = %d warp%s of %d", r.threads, r.warps_per_group,
    r.warps_per_group == 1 and "" or "s", r.warp_size)
  local u = r.usage or {}
  if r.registers then
    add("  registers: %d per work-item (%s)%s", r.registers, u.registers_from or "given",
      r.regs_per_group and (", %d allocated per group"):format(r.regs_per_group) or "")
  else
    add("  registers: %s", u.registers_from or "unknown, not modelled")
  end
  if u.spill_stores and u.spill_stores > 0 then add("  spills: %d bytes stored, %d loaded", u.spill_stores, u.spill_loads or 0) end
  if u.private_mem then add("  private memory: %d bytes per work-item", u.private_mem) end
  add("  local memory: %s per group%s", size(r.local_mem),
    (L.reserved or 0) > 0 and (" (+%s reserved, %s allocated)"):format(size(L.reserved), size(r.local_alloc))
      or (r.local_alloc ~= r.local_mem and (" (%s allocated)"):format(size(r.local_alloc)) or ""))
  add("  groups per compute unit allowed by:")
  local detail = {
    warps = ("%d warps per compute unit / %d per group"):format(r.max_warps, r.warps_per_group),
    groups = L.groups and ("at most %d groups per compute unit"):format(L.groups) or nil,
    registers = L.registers and r.registers and ("%d registers%s / %d per group"):format(L.registers,
      (L.partitions or 1) > 1 and (" in %d partitions"):format(L.partitions) or "", r.regs_per_group or 0) or nil,
    ["local memory"] = L.local_mem and r.by["local memory"] and ("%s / %s per group"):format(size(L.local_mem),
      size(r.local_alloc)) or nil,
  }
  for _, k in ipairs(occupancy.resources) do
    local v = r.by[k]
    if v then
      add("    %-13s %5d   %s%s", k, v, detail[k] or "", r.fits and r.limiter:find(k, 1, true) and "  <- limit" or "")
    elseif k == "local memory" and L.local_mem and r.local_alloc == 0 then
      add("    %-13s     -   none used", k)
    else
      add("    %-13s     -   not modelled", k)
    end
  end
  add("  => %s", occupancy.summary(r))
  return table.concat(out, "\n")
end

--- The occupancy of `kernel` with `local_size` on `dev`, explained in text; or
-- the text of a result already computed (explain(r)).
function occupancy.explain(kernel, dev, local_size, opts)
  if type(kernel) == "table" and kernel.by and kernel.limits then return occupancy.describe(kernel) end
  return occupancy.describe(occupancy.of(kernel, dev, local_size, opts))
end

return occupancy
