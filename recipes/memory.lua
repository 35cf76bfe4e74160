-- memory: the device's memory hierarchy, the way microbenchmarks (clpeak, the
-- pointer-chase studies of GPU caches) measure it, in four parts:
--   chase      latency by working set: one work-item follows a random cycle
--              of uint indices, one per 128-byte line, each load depending on
--              the last; ns and clock cycles per step; every level whose
--              latency differs beyond noise (clua.levels: caches, the L2's
--              partitions, DRAM), and each cache's capacity as measured;
--   bandwidth  read bandwidth by working set: the grid reads float4s of a
--              buffer of the working set's size again and again, so a small
--              set is served by the caches; the plateaus and their medians;
--   local      local memory bandwidth by vector width (float .. float8), as
--              clpeak measures it: write, barrier, read the neighbour's value;
--   tlb        the TLB's reach: the same chase, one line per page-sized
--              stride, over working sets far larger than the lines it touches
--              (Mei & Chu's method), beside the same lines chased alone.
-- Every part runs through the harness (R:measure): its result checked against
-- the host before it prints, its figure held against its bound. The sweeps
-- measure the caches on purpose: each point declares the working set it
-- touches (`footprint`), so a set within the device's caches is held against
-- the cache bound and marked as a cache figure ("c"), one beyond them against
-- the memory bandwidth; local memory is held against the cache bound.
-- Each part is a function below; the chase itself is clua.chase, the sweeps'
-- working sets and options clua.memsweep, the reading of the levels (names,
-- notes, the bound of a set read again) clua.memstudy.
local cl = require("cl")
local recipe = require("clua.recipe")
local chase = require("clua.chase")
local levels = require("clua.levels")
local memstudy = require("clua.memstudy")
local memsweep = require("clua.memsweep")
local units = require("clua.units")

local R = recipe.new{ name = "memory", reps = 5, check_size = "8KiB",
  description = [[The memory hierarchy: pointer-chase latency and read bandwidth by working set (every level
    that differs beyond noise, each cache's capacity as measured), local memory bandwidth by vector width
    (clpeak's method), and the TLB's reach (the chase at page-sized strides). --size is the largest working
    set (default: 4 GiB for the chase, 1 GiB for bandwidth, 16 GiB for the TLB on a GPU; 1 GiB, 256 MiB and 1
    GiB elsewhere; 4 MiB with --quick, the TLB 256 pages; 8 KiB with --check-size, the TLB 2 pages of 4 KiB).]],
  seed = "clpeak's local memory bandwidth and the pointer-chase latency microbenchmarks (the issue's memory recipe)",
  options = function(p)
    p:option("--parts", "The parts to run, comma-separated: chase, bandwidth, local, tlb.", "chase,bandwidth,local,tlb")
      :argname("LIST"):convert(memsweep.parts)
    p:option("--knee", "The smallest ratio between two neighbouring levels (they must also differ beyond the noise "
      .. "of their repetitions).", tostring(levels.STEP)):argname("X"):convert(memsweep.factor)
  end }

local DEFINES = { LINE = chase.LINE // 4, REPS = 64 } -- REPS: clpeak's LMEM_REPS
local MAX_SLOTS = 1 << 20   -- slots of the chase's cycle: 128 MiB of lines, beyond any L2
local fs = units.format_size

local sweep, set_max, chart = memsweep.sweep, memsweep.max, memsweep.chart

-- 1. Pointer chase: latency by working set, its levels, each cache's capacity.
-- The levels come from the doubling sweep; then quarter octaves around each
-- level's end tell where it ends and the capacity.
local function chase_study(R, S)
  local info, ch = S.info, S.chase
  local max = set_max(info, math.min(R.size or (R.quick and 4 * 2 ^ 20) or (S.gpu and 4 * 2 ^ 30) or 2 ^ 30, 8 * 2 ^ 30), 2)
  if max < 1024 then error("--size is too small: the chase needs at least 1 KiB", 0) end
  local function at(ws) return ch:point(ws, math.min(ws // chase.LINE, MAX_SLOTS), "chase over " .. fs(ws)) end
  local rows, all = {}, {}
  for i, ws in ipairs(sweep(1024, max)) do rows[i] = at(ws); all[i] = rows[i].point end
  local lv, tr = levels.find(all, { step = S.factor })
  local added = 0
  for _, ws in ipairs(memstudy.refine(lv)) do
    if ws >= 1024 and ws <= max then rows[#rows + 1] = at(ws); added = added + 1 end
  end
  table.sort(rows, function(a, b) return a.ws < b.ws end)
  for i, r in ipairs(rows) do all[i] = r.point end
  local t = R:table{ title = "Pointer chase: latency per dependent load by working set", id = "chase",
    columns = { memsweep.column(), { name = "slot", unit = "bytes", format = "%d" }, { name = "slots", format = "%d" },
      { name = "steps", format = "%d" }, R:cache_column{ name = "latency", unit = "ns", format = "%.2f", compare = true },
      R:spread_column("spread"), { name = "cycles", format = "%.1f" } } }
  local pl = chart("Pointer chase: latency by working set", "latency", "ns")
  for _, r in ipairs(rows) do
    R:add_row(t, r.res, { ["working set"] = r.ws, slot = r.stride, slots = r.slots, steps = r.steps,
      latency = r.ns, cycles = r.cycles })
    pl:add("ns per load", r.ws, r.ns)
  end
  memstudy.chase_notes(t, pl, R.facts, lv, tr, all, function(ns) return ch:cycles(ns) end, S.factor)
  if added > 0 then
    t:note(("%d working sets a quarter octave apart added around each level's end (the levels are found on "
      .. "the doubling sweep; capacities use every working set)"):format(added))
  end
  t:note(("at most %d slots: beyond %s the slots grow"):format(MAX_SLOTS, fs(MAX_SLOTS * chase.LINE)))
  ch:notes(t, "; bytes: 4 a step, held against the cache bound where the working set fits the caches, else the "
    .. "memory bandwidth")
  t:note(("the driver reports a global memory cache of %s"):format(info.global_mem_cache_size > 0
    and fs(info.global_mem_cache_size) or "(none reported)"))
  R:emit(t)
  R:plot(pl)
end

-- 2. Read bandwidth by working set: the grid reads float4s of a buffer of
-- the working set's size again and again; the plateaus and their medians.
-- The working set, not the whole buffer, decides the bound (memstudy.read_bound).
local function bandwidth_study(R, S)
  local info, q, ctx = S.info, R.queue, R.ctx
  local max = set_max(info, R.size or (R.quick and 4 * 2 ^ 20) or (S.gpu and 2 ^ 30) or 256 * 2 ^ 20, 4)
  local lsize = memsweep.group(info)
  local gsize = info.compute_units * (S.gpu and 2048 or 1024) // lsize * lsize
  local target = R.check_size and gsize * 16 * 4 or R.quick and (S.gpu and 2 ^ 30 or 32 * 2 ^ 20)
    or (S.gpu and 8 * 2 ^ 30 or 512 * 2 ^ 20)
  local reads = math.max(1, target // (gsize * 16))
  local lo = math.min(64 * 1024, max)
  if lo < 16 then error("--size is too small: bandwidth needs at least 16 bytes", 0) end
  local init, read = R:kernel("memory.cl", "bw_init", DEFINES), R:kernel("memory.cl", "bw_read", DEFINES)
  local da = ctx:buffer(max) -- written by bw_init, then read
  init:args(da, cl.uint(max // 16))
  q:launch(init, (max // 16 + 255) // 256 * 256)
  local dout = R:output("out", "float", gsize)
  -- the host checks a sample of the work-items, each by replaying its reads
  local sample, step = memstudy.sample(gsize, math.min(gsize, math.max(64, (1 << 19) // reads))), gsize + lsize
  local partly, all, pts, bw = false, {}, {}, {}
  for i, ws in ipairs(sweep(lo, max)) do
    local mask = ws // 16 - 1
    read:args(da, cl.uint(mask), cl.uint(reads), dout)
    local foot = ws + gsize * 4
    local bound = memstudy.read_bound(foot, R.facts)
    partly = partly or bound == "cache"
    local res = R:measure{ label = "bandwidth " .. fs(ws), bytes = gsize * reads * 16, footprint = foot,
      bound = bound, run = function() return q:launch(read, gsize, lsize) end,
      outputs = { { dout, check = function(got)
        local have, want = {}, {}
        for j, g in ipairs(sample) do have[j], want[j] = got[g], memstudy.read_sum(g, reads, step, mask) end
        R:verify(("bandwidth over %s: %d work-items' sums"):format(fs(ws), #sample), have, want, { tol = 0 })
      end } } }
    -- the plateaus (clua.levels; the times' spread is the bandwidth's)
    all[i], pts[i], bw[i] = res, { x = ws, y = res.bw, times = res.t.times }, res.bw
  end
  da:release()

  local lv = levels.find(pts, { step = S.factor })
  local t = R:table{ title = "Read bandwidth by working set", id = "bandwidth",
    columns = { memsweep.column(), R:time_columns("µs", { compare = false }), R:bw_column("bandwidth") } }
  local pl = chart("Read bandwidth by working set", "bandwidth", R.bw_unit)
  for i, p in ipairs(pts) do
    R:add_row(t, all[i], { ["working set"] = p.x })
    pl:add("read", p.x, p.y)
  end
  memstudy.bandwidth_notes(t, pl, R.facts, lv, bw, R.bw_unit, S.factor)
  t:note(("bandwidth: %d work-items x %d float4 reads (%s) / median event time of %d runs; the grid reads "
    .. "%d consecutive float4s, then moves on by %d, wrapping around the working set; work-groups of %d")
    :format(gsize, reads, fs(gsize * reads * 16), R.reps, gsize, step, lsize))
  t:note(("verified: %d work-items' sums (a[k] = (k %% 7, k %% 5, k %% 3, 1), exact) against the host's replay "
    .. "of their reads"):format(#sample))
  if partly then t:note(memstudy.read_bound_note(R.facts)) end
  t:note("theoretical memory bandwidth: " .. R.facts:describe_theoretical("memory", R.divisor))
  R:emit(t)
  R:plot(pl)
end

-- 3. Local memory bandwidth by vector width (clpeak): write, barrier, read
-- the neighbour's value, REPS times; held against the cache bound.
local function local_study(R, S)
  local info, q, REPS = S.info, R.queue, DEFINES.REPS
  local lsize = memsweep.group(info)
  local groups = info.compute_units * (R.check_size and 2 or R.quick and 16 or S.gpu and 2048 or 512)
  local gsize = groups * lsize
  local dout = R:output("out", "float", gsize)
  local period = math.min(gsize, 65536)
  local t = R:table{ title = "Local memory bandwidth by vector width (clpeak's method)", id = "local",
    columns = { { name = "width", key = true }, R:time_columns("µs", { compare = false }),
      R:bw_column("bandwidth", { theoretical = false }) } }
  local notes = {}
  for _, w in ipairs({ 1, 2, 4, 8 }) do
    local label = w == 1 and "float" or ("float" .. w)
    local bytes_local = lsize * w * 4
    local k = R:kernel("memory.cl", "local_v" .. w, DEFINES)
    local ok, why = bytes_local <= info.local_mem_size,
      ("%d bytes of local memory needed, the device has %d"):format(bytes_local, info.local_mem_size)
    if ok then
      k:args(dout, cl.localmem(bytes_local))
      ok, why = R:try_launch(k, gsize, lsize)
      why = why and ("the driver refused work-groups of %d: %s"):format(lsize, why)
    end
    if not ok then
      notes[#notes + 1] = ("%s left out: %s"):format(label, why)
    else
      -- work-item g ends with the start of its group's work-item
      -- (lid + REPS) % lsize: w x start + 0 + 1 + .. + w - 1; starts repeat
      -- every 65536 work-items, so one period is compared with every slice
      local ref = cl.array("float", period)
      for g = 0, period - 1 do ref[g] = w * ((g // lsize * lsize + (g % lsize + REPS) % lsize) % 65536) + w * (w - 1) // 2 end
      local res = R:measure{ label = "local " .. label, bound = "cache", bytes = REPS * 2 * w * 4 * gsize,
        run = function() return q:launch(k, gsize, lsize) end,
        outputs = { { dout, check = function(got)
          for first = 0, gsize - 1, period do
            local len = math.min(period, gsize - first)
            R:verify(("local %s, work-items %d..%d"):format(label, first, first + len - 1), got:slice(first, len),
              ref:slice(0, len), { exact = true })
          end
        end } } }
      R:add_row(t, res, { width = label })
    end
  end
  if #t.rows == 0 then error("no width could run: " .. table.concat(notes, "; ")) end
  t:note(("%d work-groups of %d; each work-item %d times writes its value to local memory and, after a barrier, "
    .. "reads its neighbour's (then a barrier): bytes = %d x 2 x width x 4 x %d work-items / median event time "
    .. "of %d runs, held against the cache bound (clpeak: compute units x %d groups of up to 256, LMEM_REPS 64)")
    :format(groups, lsize, REPS, REPS, gsize, R.reps, S.gpu and 2048 or 512))
  t:note(("verified: every work-item's value (the start of the work-item %d places to its right in its group) "
    .. "against the host"):format(REPS))
  for _, n in ipairs(notes) do t:note(n) end
  R:emit(t)
end

-- 4. TLB reach: the chase at page-sized strides (Mei & Chu, "Dissecting GPU
-- Memory Hierarchy through Microbenchmarking"): one line a page, so a working
-- set far larger than the caches still reads few lines; when the pages
-- outnumber a TLB's entries the latency rises by a translation. The same
-- count of lines chased 128 bytes apart ("lines alone") tells the data
-- side's share: where latency rises and lines alone does not, it is the TLB.
local function tlb_study(R, S)
  local ch, gpu = S.chase, S.gpu
  local max = set_max(S.info, R.size or (gpu and 16 * 2 ^ 30) or 2 ^ 30, 2)
  local strides = R.check_size and { 4096 } or gpu and (R.quick and { 2 ^ 21 } or { 65536, 2 ^ 21 })
    or (R.quick and { 4096 } or { 4096, 2 ^ 21 })
  local max_pages = R.check_size and 2 or R.quick and 256 or 8192
  local t = R:table{ title = "TLB reach: latency per dependent load at page-sized strides", id = "tlb",
    columns = { memsweep.column(), { name = "stride", unit = "bytes", key = true, format = fs },
      { name = "pages", format = "%d" }, R:cache_column{ name = "latency", unit = "ns", format = "%.2f", compare = true },
      R:spread_column("spread"), { name = "lines alone", unit = "ns", format = "%.2f" },
      { name = "extra", unit = "ns", format = "%.2f" } } }
  local pl = chart("TLB reach: latency by working set at page-sized strides", "latency", "ns")
  local alone, largest = {}, 0
  for _, stride in ipairs(strides) do
    local pts, rows, extra, pages = {}, {}, {}, 2
    while pages <= max_pages and pages * stride <= max do
      local ws = pages * stride
      local r = ch:point(ws, pages, ("tlb over %s at %s strides"):format(fs(ws), fs(stride)))
      alone[pages] = alone[pages] or ch:point(pages * chase.LINE, pages, ("tlb lines alone, %d lines"):format(pages)).ns
      R:add_row(t, r.res, { ["working set"] = ws, stride = stride, pages = pages, latency = r.ns,
        ["lines alone"] = alone[pages], extra = r.ns - alone[pages] })
      pl:add(fs(stride) .. " strides", ws, r.ns)
      rows[#rows + 1], pts[#pts + 1], extra[#extra + 1], pages = r, r.point, r.ns - alone[pages], pages * 2
    end
    local lv, tr = levels.find(pts, { step = S.factor })
    memstudy.tlb_notes(t, lv, tr, extra, stride, function(ns) return ch:cycles(ns) end)
    if #rows > 0 then
      largest = math.max(largest, rows[#rows].ws)
    else
      t:note(("%s strides left out: two pages are more than the largest working set, %s"):format(fs(stride), fs(max)))
    end
  end
  if #t.rows == 0 then error("--size is too small: the TLB sweep needs two pages of " .. fs(strides[1]), 0) end
  t:note(memstudy.rule(S.factor))
  t:note(("the chase of the chase table at one index a stride (a random 128-byte line of each page-sized slot), "
    .. "2 to %d pages, up to %s; lines alone: the same count of lines chased 128 bytes apart; extra = latency - "
    .. "lines alone, the translation's share"):format(max_pages, fs(largest)))
  ch:notes(t)
  R:emit(t)
  R:plot(pl)
end

local STUDIES = { chase = chase_study, bandwidth = bandwidth_study, ["local"] = local_study, tlb = tlb_study }

R:main(function(R, dev)
  -- (argparse may hand the defaults over unconverted)
  local parts = type(R.args.parts) == "table" and R.args.parts or assert(memsweep.parts(R.args.parts))
  local S = { info = dev.info, gpu = dev.info.type == "GPU", factor = assert(memsweep.factor(R.args.knee)) }
  if R.reps < 1 then error("--reps must be at least 1", 0) end
  -- the chase, shared by the chase and TLB studies
  if parts.chase or parts.tlb then S.chase = chase.new(R, DEFINES) end
  for _, name in ipairs(memsweep.PARTS) do
    if parts[name] then STUDIES[name](R, S) end
  end
end)
