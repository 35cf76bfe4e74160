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
local cl = require "cl"
local recipe = require "clua.recipe"
local bounds = require "clua.bounds"
local levels = require "clua.levels"
local plot = require "clua.plot"
local stats = require "clua.stats"
local units = require "clua.units"

local PARTS = { "chase", "bandwidth", "local", "tlb" }

local function parse_parts(s)
  local set, known = {}, { chase = true, bandwidth = true, ["local"] = true, tlb = true }
  for w in s:gmatch("[^,%s]+") do
    if not known[w] then return nil, ("unknown part '%s' (the parts: %s)"):format(w, table.concat(PARTS, ", ")) end
    set[w] = true
  end
  if not next(set) then return nil, "no part named (the parts: " .. table.concat(PARTS, ", ") .. ")" end
  return set
end

local function knee_factor(s)
  local x = tonumber(s)
  if not x or x <= 1 or x == math.huge then return nil, "a factor > 1 expected, got '" .. tostring(s) .. "'" end
  return x
end

local R = recipe.new{ name = "memory", reps = 5,
  description = [[The memory hierarchy: pointer-chase latency and read bandwidth by working set (every level
    that differs beyond noise, each cache's capacity as measured), local memory bandwidth by vector width
    (clpeak's method), and the TLB's reach (the chase at page-sized strides). --size is the largest working
    set (default: 4 GiB for the chase, 1 GiB for bandwidth, 16 GiB for the TLB on a GPU; 1 GiB, 256 MiB and 1
    GiB elsewhere; 4 MiB with --quick, the TLB 256 pages).]],
  seed = "clpeak's local memory bandwidth and the pointer-chase latency microbenchmarks (the issue's memory recipe)",
  options = function(p)
    p:option("--parts", "The parts to run, comma-separated: chase, bandwidth, local, tlb.", "chase,bandwidth,local,tlb")
      :argname("LIST"):convert(parse_parts)
    p:option("--knee", "The smallest ratio between two neighbouring levels (they must also differ beyond the noise "
      .. "of their repetitions).", tostring(levels.STEP)):argname("X"):convert(knee_factor)
  end }

local LINE = 128            -- bytes: one chase index per line at least
local LINE_UINTS = LINE // 4
local MAX_SLOTS = 1 << 20   -- slots of the chase's cycle: 128 MiB of lines, beyond any L2
local REPS = 64             -- clpeak's LMEM_REPS
local SEED = 20261123
local DEFINES = { LINE = LINE_UINTS, REPS = REPS }

local function pow2_floor(x) return 1 << (select(2, math.frexp(x)) - 1) end

local function sweep(lo, hi)
  local s = {}
  while lo <= hi do s[#s + 1], lo = lo, lo * 2 end
  return s
end

local fs = units.format_size

local function span(l) return l.from == l.to and "at " .. fs(l.from) or fs(l.from) .. " to " .. fs(l.to) end

-- On NVIDIA the levels have names (a guess from their order, said so): the
-- first L1, the last HBM/DRAM. In the read sweep the one before the last is
-- the L2, a level between L1 and L2 (an H100's read sweep has one: sets that
-- fit the L1s of all the SMs together) is named as such. In the chase (`l2`:
-- NVIDIA's L2 size) the second is the L2; a level after it that starts within
-- the L2's size is its far partition (on an H100 the chase reads 143 ns up to
-- 8 MiB, 240-270 ns from 16 to 64 MiB), one past the L2's size a level of the
-- TLB's reach, likely.
local function level_names(info, lv, chase, l2)
  local names = {}
  if not (info.vendor or ""):upper():find("NVIDIA") or #lv < 3 then return names end
  names[1], names[#lv] = "L1", "HBM/DRAM"
  for i = 2, #lv - 1 do
    if not chase then names[i] = i == #lv - 1 and "L2" or "between L1 and L2"
    elseif i == 2 then names[i] = "L2"
    elseif l2 and lv[i].from <= l2 then names[i], names[2] = "L2, far partition", "L2, near partition"
    else names[i] = "beyond the L2: TLB reach" end
  end
  return names
end

-- Working sets a quarter octave apart around each level's end, from half its
-- last working set to the next level's first: where the doubling sweep jumps,
-- these show how (and let clua.levels read a cache's capacity).
local function refine(lv)
  local out, seen = {}, {}
  for i = 1, #lv - 1 do
    local a = math.max(lv[i].to // 2, lv[i].from)
    while a < lv[i + 1].from do
      for k = 1, 3 do
        local ws = math.floor(a * 2 ^ (k / 4))
        ws = ws - ws % (ws >= 65536 and 65536 or 1024)
        if not seen[ws] and ws > a then seen[ws] = true; out[#out + 1] = ws end
      end
      a = a * 2
    end
  end
  return out
end

R:main(function(R, dev)
  local info, q, ctx = dev.info, R.queue, R.ctx
  local gpu = info.type == "GPU"
  -- (argparse may hand the defaults over unconverted)
  local parts = type(R.args.parts) == "table" and R.args.parts or assert(parse_parts(R.args.parts))
  local factor = assert(knee_factor(R.args.knee))
  if R.reps < 1 then error("--reps must be at least 1", 0) end
  local cfmt = function(f) return function(v, row) return f:format(v) .. (row and row.cache_figure and " c" or "") end end

  -- the largest working sets: a power of two within the allocation limit and a share of the memory
  local function set_max(x, share) return pow2_floor(math.min(x, info.max_mem_alloc_size, info.global_mem_size // share)) end
  local chase_max = set_max(math.min(R.size or (R.quick and 4 * 2 ^ 20) or (gpu and 4 * 2 ^ 30) or 2 ^ 30, 8 * 2 ^ 30), 2)
  local bw_max = set_max(R.size or (R.quick and 4 * 2 ^ 20) or (gpu and 2 ^ 30) or 256 * 2 ^ 20, 4)
  local tlb_max = set_max(R.size or (gpu and 16 * 2 ^ 30) or 2 ^ 30, 2)
  local target_ns = (R.quick and 1 or 5) * 1e6
  local min_steps, max_steps, probe_steps = R.quick and 1 << 12 or 1 << 14, 1 << 20, 1 << 12
  local clock = (info.max_clock_mhz or 0) > 0 and info.max_clock_mhz or nil

  -- The chase, shared by the chase and TLB parts: n slots of ws bytes
  -- (slot = ws / n), one index at a random line of each slot, one cycle
  -- through every slot in a seeded random order.
  local chase_point
  if parts.chase or parts.tlb then
    -- The cycle: slot 0 first, then the others in a seeded random order;
    -- next[slot] is the slot after it. One per slot count, kept.
    local perms = {}
    local function permutation(n)
      if perms[n] then return perms[n] end
      local order = {}
      for i = 1, n do order[i] = i - 1 end
      math.randomseed(SEED, n)
      for i = n, 3, -1 do
        local j = math.random(2, i)
        order[i], order[j] = order[j], order[i]
      end
      perms[n] = cl.array("uint", n)
      for k = 1, n do perms[n][order[k]] = order[k % n + 1] end
      return perms[n]
    end
    -- as kernels/memory.cl's head(): where slot i's index lives, in uints
    local function head(i, slot, lines)
      return i * slot + (((i * 2654435761) & 0xffffffff) >> 8) % lines * LINE_UINTS
    end
    local build, chase = R:kernel("memory.cl", "chase_build", DEFINES), R:kernel("memory.cl", "chase", DEFINES)
    -- the chase's state, {index reached, steps taken}: read and written by
    -- every launch (a recurrence), so not poisoned
    local dstate = R:output("state", "uint", 2)
    chase_point = function(ws, n, what)
      local slot = ws // n // 4
      local lines = slot // LINE_UINTS
      local nxt = permutation(n)
      local p = ctx:buffer(ws)
      local dnext = ctx:buffer(nxt, "read_only")
      build:args(p, dnext, cl.uint(n), cl.uint(slot), cl.uint(lines))
      q:launch(build, (n + 63) // 64 * 64)
      q:fill(dstate, 0, { type = "uint" }) -- at slot 0's index (head(0) is 0), no steps taken
      -- a probe decides the steps: about target_ns a launch
      chase:args(p, cl.uint(probe_steps), dstate)
      local probe = q:launch(chase, 1, 1).duration
      local steps = math.max(min_steps, math.min(max_steps, math.floor(target_ns / math.max(probe / probe_steps, 1e-3))))
      chase:args(p, cl.uint(steps), dstate)
      local launches = 0
      -- verified: the host walks the same cycle for as many steps as the
      -- launches took (modulo its length: it is one cycle through every slot)
      local res = R:measure{ label = what, bytes = 4 * steps, footprint = ws,
        run = function() launches = launches + 1; return q:launch(chase, 1, 1) end,
        outputs = { { dstate, poison = false, check = function(got)
          local total, j = probe_steps + launches * steps, 0
          for _ = 1, total % n do j = nxt[j] end
          R:verify(what .. ": the index reached and the steps taken", got, { head(j, slot, lines), total }, { exact = true })
        end } } }
      p:release(); dnext:release()
      local ns = res.median / steps
      return { ws = ws, stride = slot * 4, slots = n, steps = steps, ns = ns, cycles = clock and ns * clock / 1e3,
        res = res, point = { x = ws, y = ns, times = res.t.times } }
    end
  end
  local cyc = function(ns) return clock and (" (%.0f cycles)"):format(ns * clock / 1e3) or "" end
  local method = function(t)
    t:note(("the cycle: one uint index per slot, at a random 128-byte line of the slot, slots visited in a seeded "
      .. "random order; one work-item, each launch %d to %d steps (a probe of %d decides: about %g ms), continuing "
      .. "where the last stopped; latency = median event time (%d runs) / steps"):format(min_steps, max_steps,
        probe_steps, target_ns / 1e6, R.reps))
    t:note("cycles: at the device's maximum clock, " .. (clock and (clock .. " MHz") or "unknown")
      .. " (the clock under load may differ)")
  end
  -- the transitions between two levels, one note for each pair
  local function transitions(t, tr, prefix)
    local by = {}
    for _, x in ipairs(tr) do
      by[x.after] = by[x.after] or {}
      table.insert(by[x.after], ("%s (%.1f ns)"):format(fs(x.x), x.y))
    end
    for after = 0, #tr do
      local b = by[after]
      if b then t:note(("%stransition%s between level %d and level %d: %s"):format(prefix, #b > 1 and "s" or "",
        after, after + 1, table.concat(b, ", "))) end
    end
  end
  local rule = ("levels (clua.levels): neighbouring levels differ by more than %gx (--knee) and beyond the noise of "
    .. "their repetitions (the interval of each point's median, at least 1%%; a level's own scatter); a level of one "
    .. "point between two is a transition"):format(factor)
  local function chart(title, y, unit)
    return plot.new{ title = title, x = { name = "working set", unit = "bytes", log2 = true }, y = { name = y, unit = unit } }
  end
  local function ws_column() return { name = "working set", unit = "bytes", key = true, format = fs } end

  -- 1. Pointer chase --------------------------------------------------------
  if parts.chase then
    if chase_max < 1024 then error("--size is too small: the chase needs at least 1 KiB", 0) end
    local function at(ws) return chase_point(ws, math.min(ws // LINE, MAX_SLOTS), "chase over " .. fs(ws)) end
    local rows, all = {}, {}
    for i, ws in ipairs(sweep(1024, chase_max)) do rows[i] = at(ws); all[i] = rows[i].point end
    -- the levels, from the doubling sweep; then quarter octaves around each
    -- level's end, for where it ends and the capacity
    local lv, tr = levels.find(all, { step = factor })
    local added = 0
    for _, ws in ipairs(refine(lv)) do
      if ws >= 1024 and ws <= chase_max then rows[#rows + 1] = at(ws); added = added + 1 end
    end
    table.sort(rows, function(a, b) return a.ws < b.ws end)
    for i, r in ipairs(rows) do all[i] = r.point end
    local t = R:table{ title = "Pointer chase: latency per dependent load by working set", id = "chase",
      columns = { ws_column(), { name = "slot", unit = "bytes", format = "%d" }, { name = "slots", format = "%d" },
        { name = "steps", format = "%d" }, { name = "latency", unit = "ns", format = cfmt("%.2f"), compare = true },
        R:spread_column("spread"), { name = "cycles", format = "%.1f" } } }
    local pl = chart("Pointer chase: latency by working set", "latency", "ns")
    for _, r in ipairs(rows) do
      R:add_row(t, r.res, { ["working set"] = r.ws, slot = r.stride, slots = r.slots, steps = r.steps,
        latency = r.ns, cycles = r.cycles })
      pl:add("ns per load", r.ws, r.ns)
    end
    local l2, l2_from = bounds.cache_bytes(R.facts)
    l2 = l2_from:find("NVIDIA", 1, true) and l2 or nil
    local names = level_names(info, lv, true, l2)
    local k -- the last level named L2
    for i, l in ipairs(lv) do
      local cap, used, nx = nil, {}, lv[i + 1]
      if nx then cap, used = levels.capacity(l, nx, all) end
      local tail = nx and ("; ends near %s (the next, %s, is %.2fx slower)"):format(fs(l.to), fs(nx.from), nx.value / l.value)
        or (#lv > 1 and "; the last level measured" or "; one level")
      if cap then
        tail = tail .. ("; holds about %s (from %d working set%s between the two levels, random replacement)")
          :format(fs(cap), #used, #used == 1 and "" or "s")
      end
      t:note(("level %d%s: %.1f ns%s per load (%.1f to %.1f), %s%s"):format(i, names[i] and (" (" .. names[i]
        .. ", likely)") or "", l.value, cyc(l.value), l.lo, l.hi, span(l), tail))
      if nx then pl:add("level ends", l.to, l.value) end
      if nx and names[i] and names[i]:find("^L2") then k = i end
    end
    transitions(t, tr, "")
    -- the L2 as measured: the last level named L2 and the next
    if k then
      local cap, past = levels.capacity(lv[k], lv[k + 1], all), lv[k + 1].from
      for _, r in ipairs(rows) do
        if r.ws > lv[k].to and r.ws < lv[k + 1].from then past = math.min(past, r.ws) end
      end
      t:note(("the L2 as measured: its latency holds to %s, rises from %s%s; %s (%s)"):format(fs(lv[k].to), fs(past),
        cap and (", a capacity of about " .. fs(cap)) or "", fs(l2), l2_from))
    end
    t:note(rule)
    if added > 0 then
      t:note(("%d working sets a quarter octave apart added around each level's end (the levels are found on "
        .. "the doubling sweep; capacities use every working set)"):format(added))
    end
    t:note(("at most %d slots: beyond %s the slots grow"):format(MAX_SLOTS, fs(MAX_SLOTS * LINE)))
    method(t)
    t:note("verified: after every working set, the index reached and the steps taken against the host's walk of "
      .. "the same cycle; bytes: 4 a step, held against the cache bound where the working set fits the caches, "
      .. "else the memory bandwidth")
    t:note(("the driver reports a global memory cache of %s"):format(info.global_mem_cache_size > 0
      and fs(info.global_mem_cache_size) or "(none reported)"))
    R:emit(t)
    R:plot(pl)
  end

  -- 2. Read bandwidth by working set ---------------------------------------
  if parts.bandwidth then
    local lsize = pow2_floor(math.min(256, info.max_work_group_size))
    local gsize = info.compute_units * (gpu and 2048 or 1024) // lsize * lsize
    local target = R.quick and (gpu and 2 ^ 30 or 32 * 2 ^ 20) or (gpu and 8 * 2 ^ 30 or 512 * 2 ^ 20)
    local reads = math.max(1, target // (gsize * 16))
    local lo = math.min(64 * 1024, bw_max)
    if lo < 16 then error("--size is too small: bandwidth needs at least 16 bytes", 0) end
    local init, read = R:kernel("memory.cl", "bw_init", DEFINES), R:kernel("memory.cl", "bw_read", DEFINES)
    local da = ctx:buffer(bw_max, "read_only")
    init:args(da, cl.uint(bw_max // 16))
    q:launch(init, (bw_max // 16 + 255) // 256 * 256)
    local dout = R:output("out", "float", gsize)
    -- the host checks a sample of the work-items (the middle one among them),
    -- each by replaying its reads
    local count = math.min(gsize, math.max(64, (1 << 19) // reads))
    local sample = {}
    for k = 0, count - 1 do sample[#sample + 1] = k * gsize // count end
    if sample[#sample] ~= gsize - 1 then sample[#sample + 1] = gsize - 1 end
    if sample[count // 2 + 1] ~= gsize // 2 then sample[#sample + 1] = gsize // 2 end
    local step = gsize + lsize
    -- The working set (not the whole buffer) decides the bound: within the
    -- caches a cache figure; up to BEYOND times them still the cache bound,
    -- since a set read again and again is served in part by a cache smaller
    -- than it (an H100 reads 64 MiB at 8 TB/s and 128 MiB at 6.8 TB/s, past
    -- its 50 MiB L2 and twice its 3.35 TB/s HBM); beyond, the memory bandwidth.
    local BEYOND = 8
    local cache, cache_from = bounds.cache_bytes(R.facts)
    local partly, rows, pts = false, {}, {}
    for i, ws in ipairs(sweep(lo, bw_max)) do
      local mask = ws // 16 - 1
      read:args(da, cl.uint(mask), cl.uint(reads), dout)
      local foot = ws + gsize * 4
      local bound = foot > cache and foot <= BEYOND * cache and "cache" or "memory"
      partly = partly or bound == "cache"
      local res = R:measure{ label = "bandwidth " .. fs(ws), bytes = gsize * reads * 16, footprint = foot,
        bound = bound, run = function() return q:launch(read, gsize, lsize) end,
        outputs = { { dout, check = function(got)
          local have, want = {}, {}
          for j, g in ipairs(sample) do
            local s, idx = 0, g
            for _ = 1, reads do
              local k = idx & mask
              s, idx = s + k % 7 + k % 5 + k % 3 + 1, idx + step
            end
            have[j], want[j] = got[g], s + 0.0
          end
          R:verify(("bandwidth over %s: %d work-items' sums"):format(fs(ws), #sample), have, want, { tol = 0 })
        end } } }
      -- the plateaus (clua.levels; the times' spread is the bandwidth's)
      rows[i], pts[i] = { ws = ws, res = res, bw = res.bw }, { x = ws, y = res.bw, times = res.t.times }
    end
    da:release()

    local lv = levels.find(pts, { step = factor })
    local names = level_names(info, lv)
    local t = R:table{ title = "Read bandwidth by working set", id = "bandwidth",
      columns = { ws_column(), R:time_columns("µs", { compare = false }), R:bw_column("bandwidth") } }
    local pl = chart("Read bandwidth by working set", "bandwidth", R.bw_unit)
    for _, r in ipairs(rows) do
      R:add_row(t, r.res, { ["working set"] = r.ws })
      pl:add("read", r.ws, r.bw)
    end
    for i, l in ipairs(lv) do
      local nx = lv[i + 1]
      t:note(("level %d%s: median %.1f %s, %s%s"):format(i, names[i] and (" (" .. names[i] .. ", likely)") or "",
        l.value, R.bw_unit, span(l), nx and ("; %.1fx the next level's"):format(l.value / nx.value) or ""))
      if nx then pl:add("level ends", l.to, l.value) end
    end
    if #lv > 1 then
      local below, above = {}, {}
      for _, r in ipairs(rows) do table.insert(r.ws <= lv[1].to and below or above, r.bw) end
      t:note(("below the first knee (up to %s) median %.1f %s; above it %.1f %s"):format(fs(lv[1].to),
        stats.median(below), R.bw_unit, stats.median(above), R.bw_unit))
    else
      t:note("no knee found: one plateau")
    end
    t:note(rule)
    t:note(("bandwidth: %d work-items x %d float4 reads (%s) / median event time of %d runs; the grid reads "
      .. "%d consecutive float4s, then moves on by %d, wrapping around the working set; work-groups of %d")
      :format(gsize, reads, fs(gsize * reads * 16), R.reps, gsize, step, lsize))
    t:note(("verified: %d work-items' sums (a[k] = (k %% 7, k %% 5, k %% 3, 1), exact) against the host's replay "
      .. "of their reads"):format(#sample))
    if partly then
      t:note(("working sets larger than the caches (%s, %s) but within %dx them: held against the cache bound, "
        .. "not the memory bandwidth (a cache serves part of a set read again and again); not marked c")
        :format(fs(cache), cache_from, BEYOND))
    end
    t:note("theoretical memory bandwidth: " .. R.facts:describe_theoretical("memory", R.divisor))
    R:emit(t)
    R:plot(pl)
  end

  -- 3. Local memory bandwidth by vector width (clpeak) ---------------------
  if parts["local"] then
    local lsize = pow2_floor(math.min(256, info.max_work_group_size))
    local groups = info.compute_units * (R.quick and 16 or gpu and 2048 or 512)
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
      :format(groups, lsize, REPS, REPS, gsize, R.reps, gpu and 2048 or 512))
    t:note(("verified: every work-item's value (the start of the work-item %d places to its right in its group) "
      .. "against the host"):format(REPS))
    for _, n in ipairs(notes) do t:note(n) end
    R:emit(t)
  end

  -- 4. TLB reach: the chase at page-sized strides ---------------------------
  -- Mei & Chu ("Dissecting GPU Memory Hierarchy through Microbenchmarking"):
  -- a chase whose indices lie a page apart touches one line a page, so over a
  -- working set far larger than the caches it still reads few lines; when the
  -- pages outnumber a TLB's entries the latency rises by a translation. The
  -- same count of lines chased 128 bytes apart ("lines alone") tells the data
  -- side's share: where latency rises and lines alone does not, it is the TLB.
  if parts.tlb then
    local strides = gpu and (R.quick and { 2 ^ 21 } or { 65536, 2 ^ 21 }) or (R.quick and { 4096 } or { 4096, 2 ^ 21 })
    local max_pages = R.quick and 256 or 8192
    local t = R:table{ title = "TLB reach: latency per dependent load at page-sized strides", id = "tlb",
      columns = { ws_column(), { name = "stride", unit = "bytes", key = true, format = fs },
        { name = "pages", format = "%d" }, { name = "latency", unit = "ns", format = cfmt("%.2f"), compare = true },
        R:spread_column("spread"), { name = "lines alone", unit = "ns", format = "%.2f" },
        { name = "extra", unit = "ns", format = "%.2f" } } }
    local pl = chart("TLB reach: latency by working set at page-sized strides", "latency", "ns")
    local alone, largest = {}, 0
    for _, stride in ipairs(strides) do
      local pts, rows, pages = {}, {}, 2
      while pages <= max_pages and pages * stride <= tlb_max do
        local ws = pages * stride
        local r = chase_point(ws, pages, ("tlb over %s at %s strides"):format(fs(ws), fs(stride)))
        alone[pages] = alone[pages] or chase_point(pages * LINE, pages, ("tlb lines alone, %d lines"):format(pages)).ns
        R:add_row(t, r.res, { ["working set"] = ws, stride = stride, pages = pages, latency = r.ns,
          ["lines alone"] = alone[pages], extra = r.ns - alone[pages] })
        pl:add(fs(stride) .. " strides", ws, r.ns)
        rows[#rows + 1], pts[#pts + 1], pages = r, r.point, pages * 2
      end
      local lv, tr = levels.find(pts, { step = factor })
      for i, l in ipairs(lv) do
        local extra, nx = {}, lv[i + 1]
        for k = l.first, l.last do extra[#extra + 1] = rows[k].ns - alone[rows[k].slots] end
        local tail = nx and ("; reach %s: %d pages (the next level from %d pages, %.2fx slower)"):format(fs(l.to),
          l.to // stride, nx.from // stride, nx.value / l.value)
          or (#lv > 1 and "; the last level measured" or "; one level: no TLB's reach within the sweep")
        t:note(("%s strides, level %d: %.1f ns%s per load (%+.1f ns over the lines alone), %s%s"):format(fs(stride), i,
          l.value, cyc(l.value), stats.median(extra), span(l), tail))
      end
      transitions(t, tr, fs(stride) .. " strides, ")
      if #rows > 0 then
        largest = math.max(largest, rows[#rows].ws)
      else
        t:note(("%s strides left out: two pages are more than the largest working set, %s"):format(fs(stride), fs(tlb_max)))
      end
    end
    if #t.rows == 0 then error("--size is too small: the TLB sweep needs two pages of " .. fs(strides[1]), 0) end
    t:note(rule)
    t:note(("the chase of the chase table at one index a stride (a random 128-byte line of each page-sized slot), "
      .. "2 to %d pages, up to %s; lines alone: the same count of lines chased 128 bytes apart; extra = latency - "
      .. "lines alone, the translation's share"):format(max_pages, fs(largest)))
    method(t)
    t:note("verified: after every working set, the index reached and the steps taken against the host's walk of "
      .. "the same cycle")
    R:emit(t)
    R:plot(pl)
  end
end)
