-- occupancy: does occupancy matter? NVIDIA OpenCL Best Practices Guide 4.1-4.5
-- (and the lecture's and slides' "Occupancy calculator"): memory-bound kernels
-- (copy: a float, copy4: a float4 per work-item) and two latency-bound kernels
-- (a chain of dependent loads, a chain of dependent multiply-adds), swept over
-- work-group sizes and over local memory reserved per group (4.5: "by simply
-- increasing this amount, it is possible to effectively reduce the occupancy of
-- the kernel and measure its effect"). Each row carries the occupancy that
-- clua.occupancy computes from the device's limits and the kernel's real
-- attributes, and the resource that limits it.
local cl = require("cl")
local recipe = require("clua.recipe")
local occupancy = require("clua.occupancy")
local plot = require("clua.plot")
local units = require("clua.units")

local R = recipe.new{
  name = "occupancy",
  description = [[Occupancy: copy, dependent loads and dependent arithmetic over work-group sizes and local
    memory per group, beside the computed occupancy and its limiting resource.]],
  seed = "NVIDIA OpenCL Best Practices Guide 4.1-4.5; lecture and slides \"Occupancy calculator\"",
  quick_size = "256KiB", check_size = "8KiB",
  options = function(p)
    p:int("--steps", "Dependent loads per work-item in chase (default 64 on a GPU, 16 on a CPU, 4 with --quick).")
    p:int("--iterations", "Dependent multiply-adds per work-item in chain (default 4096 on a GPU, "
      .. "512 on a CPU, 32 with --quick, 8 with --check-size).")
    p:int("--local-group", "Work-group size of the local-memory sweep (default 64).")
    p:int("--registers", "Registers per work-item for the calculator where the build log does not tell.")
    p:option("--cc", "Compute capability whose limits the calculator uses (default: the device's).")
      :argname("X.Y")
  end,
}

-- Local-memory sizes of the sweep: 0, then 1, 2, 4, 6, 8, 12, 16, 24, 32, 48 ...
-- KiB while they fit, and the largest that fits.
local function local_sizes(max_bytes, quick)
  local list, k = { 0 }, 1024
  while k < max_bytes do
    list[#list + 1] = k
    k = k == 1024 and 2048 or (k & (k - 1)) == 0 and k * 3 // 2 or k // 3 * 4
  end
  if max_bytes >= 4 and list[#list] ~= max_bytes then list[#list + 1] = max_bytes end
  if quick and #list > 4 then list = { list[1], list[2], list[#list // 2 + 1], list[#list] } end
  return list
end

R:main(function(R, dev, info)
  local gpu = info.type == "GPU"
  local quick = R.quick
  local q = R.queue

  -- Sizes from the device.
  local bytes = math.min(math.tointeger(R.size or (gpu and 256 or 32) * 2^20), info.max_mem_alloc_size,
    info.global_mem_size // 4)
  local maxwg = info.max_work_group_size
  local n = bytes // 4 // maxwg * maxwg
  if n == 0 then error(("--size %d is too small: at least %d bytes"):format(bytes, maxwg * 4)) end
  bytes = n * 4
  local resident = info.compute_units * (gpu and 2048 or 4096)
  -- work-items of chase and chain
  local nw = math.min(n, quick and 16 * maxwg or (resident * 4 + maxwg - 1) // maxwg * maxwg)
  local steps = R.args.steps or (quick and 4 or gpu and 64 or 16)
  local iterations = R.args.iterations or (R.check_size and 8 or quick and 32 or gpu and 4096 or 512)

  -- Kernels, with and without the __local argument; register counts from the
  -- build log where the compiler writes one (NVIDIA, -cl-nv-verbose).
  local opts = occupancy.build_options(dev)
  local kernels, NAMES = {}, { "copy", "copy4", "chase", "chain" }
  for _, name in ipairs(NAMES) do
    kernels[name] = { [0] = R:kernel("occupancy.cl", name, { WITH_LOCAL = 0 }, opts),
      [1] = R:kernel("occupancy.cl", name, { WITH_LOCAL = 1 }, opts) }
  end
  local L = occupancy.limits(dev, { cc = R.args.cc })
  -- A CPU has no warps and runs one work-group per core at a time: occupancy
  -- does not apply there, and its cells are left empty ("-").
  local applies = not (L.fallback and info.type == "CPU")
  -- The work-group sweep goes up to the device's maximum; a size the driver
  -- refuses is left out with a note. The kernels' own CL_KERNEL_WORK_GROUP_SIZE
  -- is shown, not used: NVIDIA's driver reports 256 and runs 1024.
  local wg_note = {}
  for _, name in ipairs(NAMES) do
    wg_note[#wg_note + 1] = ("%s %d/%d"):format(name, kernels[name][0]:info(dev).work_group_size,
      kernels[name][1]:info(dev).work_group_size)
  end
  local wg_sizes, s = {}, 32
  while s <= maxwg do wg_sizes[#wg_sizes + 1] = s; s = s * 2 end
  if quick and #wg_sizes > 3 then wg_sizes = { wg_sizes[1], wg_sizes[#wg_sizes // 2 + 1], wg_sizes[#wg_sizes] } end
  local lgroup = math.min(R.args.local_group or 64, maxwg)
  local static_local = kernels.copy[0]:info(dev).local_mem_size or 0
  local max_local = (math.min(info.local_mem_size, L.max_local or math.huge) - static_local) // 4 * 4

  -- Inputs and CPU references (once).
  local input = cl.array("float", n):random(11, -1000, 1000)
  local dIn = R:input("in", input)

  local m = n // 32 * 32
  local stride = math.max(32, (m * 618 // 1000) // 32 * 32)
  local next = cl.array("uint", m)
  next:slice(0, m - stride):ramp(stride)
  next:slice(m - stride, stride):ramp(0)
  local dNext = R:input("next", next)
  local r = (steps * stride) % m
  local chase_ref, first = cl.array("uint", nw), math.min(nw, m - r)
  chase_ref:slice(0, first):ramp(r)
  if first < nw then chase_ref:slice(first, nw - first):ramp(0) end

  local seeds = cl.array("uint", nw):random(12, 0, 0xFFFFFFFF)
  local dSeeds = R:input("seeds", seeds)
  -- x -> A x + C applied `iterations` times is x -> Ak x + Ck (mod 2^32).
  local chain_ref, Ak, Ck = cl.array("uint", nw), 1, 0
  for _ = 1, iterations do Ak, Ck = (Ak * 1664525) & 0xFFFFFFFF, (Ck * 1664525 + 1013904223) & 0xFFFFFFFF end
  for i = 0, nw - 1 do chain_ref[i] = (Ak * seeds[i] + Ck) & 0xFFFFFFFF end

  -- The contracts: each kernel owns the whole of its output (copy, copy4: n floats, checked on the
  -- device; chase, chain: one uint per work-item), which must hold the CPU's result exactly. copy and
  -- chase are held against the memory bandwidth (a cache figure when their working set fits the
  -- caches), chain's multiply-adds (2 operations each) against the compute cap.
  local dOut, dOutU, same = R:output("out", "float", n), R:output("out", "uint", nw), R:device_strided(dIn, 1)
  local spec = {
    copy = { global = n, input = dIn, out = dOut, ref = input, bytes = 2 * bytes, unit = R.bw_unit, device = same },
    copy4 = { global = n // 4, input = dIn, out = dOut, ref = input, bytes = 2 * bytes, unit = R.bw_unit, device = same },
    chase = { global = nw, input = dNext, out = dOutU, ref = chase_ref, extra = steps, bytes = 4 * nw * steps,
      unit = R.bw_unit },
    chain = { global = nw, input = dSeeds, out = dOutU, ref = chain_ref, extra = iterations,
      ops = 2 * nw * iterations, unit = "GOP/s" },
  }

  -- One configuration through the harness, and its occupancy. A configuration
  -- the driver refuses (the work-group size, too much local memory) is left
  -- out: nil and the refusal.
  local function measure(name, wg, local_bytes)
    local c = spec[name]
    local k = kernels[name][local_bytes > 0 and 1 or 0]
    local a = { c.input, c.out, c.extra }
    if local_bytes > 0 then a[#a + 1] = cl["local"](local_bytes); a[#a + 1] = cl.uint(local_bytes // 4) end
    k:args(table.unpack(a))
    local ok, why = R:try_launch(k, c.global, wg)
    if not ok then
      return nil, ("%s, work-group %d, %d bytes local: left out, the driver refused it: %s"):format(name, wg,
        local_bytes, why)
    end
    local res = R:measure{ label = ("%s (work-group %d, %d bytes local)"):format(name, wg, local_bytes),
      run = function() return q:launch(k, c.global, wg) end, reads = { c.input },
      outputs = { { c.out, expect = c.ref, exact = true, device = c.device } }, bytes = c.bytes, ops = c.ops }
    local lm = k:info(dev).local_mem_size or 0
    if lm < local_bytes then lm = lm + local_bytes end -- a driver that leaves the arguments out
    local occ = occupancy.of(k, dev, wg, { limits = L, local_mem = lm, registers = R.args.registers })
    return { kernel = name, wg = wg, local_bytes = local_bytes, res = res, occ = occ, unit = c.unit,
      rate = res.bw or nw * iterations / res.median }
  end

  local by_wg, by_local, refused_wg, refused_local = {}, {}, {}, {}
  local function keep(rows, refused, row, why)
    if row then rows[#rows + 1] = row else refused[#refused + 1] = why end
  end
  for _, name in ipairs(NAMES) do
    for _, wg in ipairs(wg_sizes) do keep(by_wg, refused_wg, measure(name, wg, 0)) end
    -- copy (a float per work-item) is left out of the local sweep: at small
    -- work-groups its time is set by the group launch rate (see the kernel file).
    for _, lb in ipairs(name ~= "copy" and local_sizes(max_local, quick) or {}) do
      keep(by_local, refused_local, measure(name, lgroup, lb))
    end
  end

  -- Everything verified: the figures.
  local best = {}
  for _, list in ipairs({ by_wg, by_local }) do
    for _, row in ipairs(list) do best[row.kernel] = math.max(best[row.kernel] or 0, row.rate) end
  end
  local times = R:time_columns("ms", { compare = false })
  for _, c in ipairs(times) do c.format = function(v) return ("%.4f"):format(v / 1e6) end end
  local columns = {
    { name = "kernel", key = true }, { name = "work-group", key = true },
    { name = "local", unit = "bytes", key = true },
    { name = "registers" }, { name = "groups/CU" },
    { name = "occupancy", unit = "%", format = "%.1f" }, { name = "limited by" }, times,
    -- a bandwidth of a working set within the caches reads "123.4 c" (R:add_row's note)
    R:cache_column{ name = "rate", compare = true, format = "%.1f" },
    { name = "unit" },
    { name = "of best", unit = "%", format = "%.0f" },
  }
  local u = occupancy.usage(kernels.copy[0], dev)
  local function table_of(title, id, rows, refused)
    local t = R:table{ title = title, id = id, columns = columns }
    for _, row in ipairs(rows) do
      local o = applies and row.occ or {}
      R:add_row(t, row.res, { kernel = row.kernel, ["work-group"] = row.wg, ["local"] = row.local_bytes,
        registers = o.registers, ["groups/CU"] = o.groups, occupancy = o.occupancy and 100 * o.occupancy,
        ["limited by"] = o.limiter, rate = row.rate, unit = row.unit, ["of best"] = 100 * row.rate / best[row.kernel] })
    end
    t:note(applies and ("occupancy: %s"):format(L.source) or ("registers, groups/CU, occupancy, limited by: "
      .. "\"-\": this device (%s) has no warps and runs one work-group per core at a time, so occupancy "
      .. "does not apply; the times are measured all the same"):format(info.type))
    t:note(("copy, copy4: %s of floats, read + written, a float / a float4 per work-item; chase: %d work-items "
      .. "x %d dependent 4-byte loads (stride %d words over %s); chain: %d work-items x %d dependent integer "
      .. "multiply-adds")
      :format(units.format_size(bytes), nw, steps, stride, units.format_size(m * 4), nw, iterations))
    t:note(("registers per work-item: %s; CL_KERNEL_WORK_GROUP_SIZE without/with the __local argument (reported, "
      .. "not used as a limit): %s")
      :format(R.args.registers and "--registers" or u.registers_from, table.concat(wg_note, ", ")))
    for _, why in ipairs(refused) do t:note(why) end
    return t
  end

  R:emit(table_of("Occupancy by work-group size (no local memory)", "work-group", by_wg, refused_wg))
  R:emit(table_of(("Occupancy by local memory reserved per group (work-group %d)"):format(lgroup), "local",
    by_local, refused_local)
    :note("local: bytes of a __local argument set with cl.local and touched by the kernel (the guide's 4.5)"))

  -- Where occupancy does not apply, the plot is against the local memory itself.
  local p = plot.new{ title = ("Throughput vs %s (local sweep, groups of %d)"):format(applies and "computed occupancy"
      or "local memory per group", lgroup),
    x = applies and { name = "occupancy", unit = "%" } or { name = "local memory", unit = "KiB" },
    y = { name = "of the kernel's best", unit = "%" } }
  for _, row in ipairs(by_local) do
    p:add(row.kernel, applies and 100 * row.occ.occupancy or row.local_bytes / 1024, 100 * row.rate / best[row.kernel])
  end
  R:plot(p)
end)
