-- memory: the device's memory hierarchy, the way microbenchmarks (clpeak, the
-- pointer-chase studies of GPU caches) measure it, in three parts:
--   chase      latency by working set: one work-item follows a random cycle
--              of uint indices, one per 128-byte line, each load depending on
--              the last; ns and clock cycles per step; the knees where the
--              latency jumps name the levels (caches, then DRAM);
--   bandwidth  read bandwidth by working set: the grid reads float4s of a
--              buffer of the working set's size again and again, so a small
--              set is served by the caches; the plateaus and their medians;
--   local      local memory bandwidth by vector width (float .. float8), as
--              clpeak measures it: write, barrier, read the neighbour's value.
-- Every part runs through the harness (R:measure): its result checked against
-- the host before it prints, its figure held against its bound. The sweeps
-- measure the caches on purpose: each point declares the working set it
-- touches (`footprint`), so a set within the device's caches is held against
-- the cache bound and marked as a cache figure ("c"), one beyond them against
-- the memory bandwidth; local memory is held against the cache bound.
local cl = require "cl"
local recipe = require "clua.recipe"
local bounds = require "clua.bounds"
local plot = require "clua.plot"
local stats = require "clua.stats"
local units = require "clua.units"

local PARTS = { "chase", "bandwidth", "local" }

local function parse_parts(s)
  local known, set, order = {}, {}, {}
  for _, p in ipairs(PARTS) do known[p] = true end
  for w in s:gmatch("[^,%s]+") do
    if not known[w] then return nil, ("unknown part '%s' (the parts: %s)"):format(w, table.concat(PARTS, ", ")) end
    if not set[w] then set[w] = true; order[#order + 1] = w end
  end
  if #order == 0 then return nil, "no part named (the parts: " .. table.concat(PARTS, ", ") .. ")" end
  return set
end

local function knee_factor(s)
  local x = tonumber(s)
  if not x or x <= 1 or x == math.huge then return nil, "a factor > 1 expected, got '" .. tostring(s) .. "'" end
  return x
end

local R = recipe.new{
  name = "memory",
  description = "The memory hierarchy: pointer-chase latency and read bandwidth by working set (the knees name "
    .. "the cache levels), and local memory bandwidth by vector width (clpeak's method). --size is the largest "
    .. "working set (default: 4 GiB for the chase, 1 GiB for bandwidth on a GPU; 1 GiB and 256 MiB elsewhere; "
    .. "4 MiB with --quick).",
  seed = "clpeak's local memory bandwidth and the pointer-chase latency microbenchmarks (the issue's memory recipe)",
  reps = 5, quick_reps = 3,
  options = function(p)
    p:option("--parts", "The parts to run, comma-separated: chase, bandwidth, local.", "chase,bandwidth,local")
      :argname("LIST"):convert(parse_parts)
    p:option("--knee", "A knee: latency above (bandwidth below) the current plateau's median by this factor.", "1.5")
      :argname("X"):convert(knee_factor)
  end,
}

local LINE = 128            -- bytes: one chase index per line at least
local LINE_UINTS = LINE // 4
local MAX_SLOTS = 1 << 20   -- slots of the chase's cycle: 128 MiB of lines, beyond any L2
local REPS = 64             -- clpeak's LMEM_REPS
local SEED = 20261123
local DEFINES = { LINE = LINE_UINTS, REPS = REPS }

local function pow2_floor(x)
  local p = 1
  while p * 2 <= x do p = p * 2 end
  return p
end

local function sweep(lo, hi)
  local s, x = {}, lo
  while x <= hi do s[#s + 1] = x; x = x * 2 end
  return s
end

local size_fmt = function(v) return units.format_size(v) end

-- The levels of a sweep: runs of points within `factor` of their run's
-- median (ys: latency, rising; or bandwidth, falling). A point past the
-- factor starts a new level; a level of one point between two jumps is a
-- transition, not a level, and is dropped. Each level: {from=, to=, value=}.
local function levels(xs, ys, factor, falling)
  local out, cur = {}, nil
  local function close()
    if cur then out[#out + 1] = { from = xs[cur.first], to = xs[cur.last], value = stats.median(cur.vals),
      points = #cur.vals } end
  end
  for k = 1, #xs do
    local y = ys[k]
    if not cur then cur = { first = k, last = k, vals = { y } }
    else
      local ref = stats.median(cur.vals)
      local jump = falling and y < ref / factor or (not falling and y > ref * factor)
      if jump then
        if not (#cur.vals == 1 and #out > 0) then close() end
        cur = { first = k, last = k, vals = { y } }
      else
        cur.vals[#cur.vals + 1] = y
        cur.last = k
      end
    end
  end
  close()
  return out
end

local function span(l)
  if l.from == l.to then return "at " .. units.format_size(l.from) end
  return units.format_size(l.from) .. " to " .. units.format_size(l.to)
end

-- On NVIDIA the levels have names (a guess from their order, said so): the
-- first L1, the last DRAM, the one before it L2; a level between L1 and L2
-- (an H100's read sweep has one: sets that fit the L1s of all the SMs
-- together) is named as such.
local function level_name(info, i, n)
  if not (info.vendor or ""):upper():find("NVIDIA") or n < 3 then return nil end
  if i == 1 then return "L1" elseif i == n then return "HBM/DRAM" elseif i == n - 1 then return "L2" end
  return "between L1 and L2"
end

R:main(function(R, dev)
  local info = dev.info
  local q, ctx = R.queue, R.ctx
  local gpu = info.type == "GPU"
  -- (argparse may hand the defaults over unconverted)
  local parts = type(R.args.parts) == "table" and R.args.parts or assert(parse_parts(R.args.parts))
  local factor = assert(knee_factor(R.args.knee))
  if R.reps < 1 then error("--reps must be at least 1", 0) end
  local cfmt = function(f) return function(v, row) return f:format(v) .. (row and row.cache_figure and " c" or "") end end

  local chase_max = R.size or (R.quick and 4 * 2 ^ 20) or (gpu and 4 * 2 ^ 30) or 2 ^ 30
  local bw_max = R.size or (R.quick and 4 * 2 ^ 20) or (gpu and 2 ^ 30) or 256 * 2 ^ 20
  chase_max = pow2_floor(math.min(chase_max, info.max_mem_alloc_size, info.global_mem_size // 2, 8 * 2 ^ 30))
  bw_max = pow2_floor(math.min(bw_max, info.max_mem_alloc_size, info.global_mem_size // 4))

  -- 1. Pointer chase --------------------------------------------------------
  if parts.chase then
    if chase_max < 1024 then error("--size is too small: the chase needs at least 1 KiB", 0) end
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
      local nxt = cl.array("uint", n)
      for k = 1, n - 1 do nxt[order[k]] = order[k + 1] end
      nxt[order[n]] = order[1]
      perms[n] = nxt
      return nxt
    end
    -- as kernels/memory.cl's head(): where slot i's index lives, in uints
    local function head(i, slot, lines)
      return i * slot + (((i * 2654435761) & 0xffffffff) >> 8) % lines * LINE_UINTS
    end

    local build = R:kernel("memory.cl", "chase_build", DEFINES)
    local chase = R:kernel("memory.cl", "chase", DEFINES)
    local target_ns = (R.quick and 1 or 5) * 1e6
    local min_steps, max_steps, probe_steps = R.quick and 1 << 12 or 1 << 14, 1 << 20, 1 << 12
    local clock = info.max_clock_mhz
    -- the chase's state, {index reached, steps taken}: read and written by
    -- every launch (a recurrence), so not poisoned
    local dstate = R:output("state", "uint", 2)
    local rows = {}
    for _, ws in ipairs(sweep(1024, chase_max)) do
      local n = math.min(ws // LINE, MAX_SLOTS)
      local slot = ws // n // 4
      local lines = slot // LINE_UINTS
      local nxt = permutation(n)
      local p = ctx:buffer(ws)
      local dnext = ctx:buffer(nxt, "read_only")
      build:args(p, dnext, cl.uint(n), cl.uint(slot), cl.uint(lines))
      q:launch(build, (n + 63) // 64 * 64)
      local state = cl.array("uint", 2)
      state[0] = head(0, slot, lines)
      q:write(dstate, state)
      -- a probe decides the steps: about target_ns a launch
      chase:args(p, cl.uint(probe_steps), dstate)
      local probe = q:launch(chase, 1, 1).duration
      local steps = math.floor(target_ns / math.max(probe / probe_steps, 1e-3))
      steps = math.max(min_steps, math.min(max_steps, steps))
      chase:args(p, cl.uint(steps), dstate)
      local launches = 0
      -- verified: the host walks the same cycle for as many steps as the
      -- launches took (modulo its length: it is one cycle through every slot)
      local res = R:measure{ label = "chase " .. units.format_size(ws), bytes = 4 * steps, footprint = ws,
        run = function() launches = launches + 1; return q:launch(chase, 1, 1) end,
        outputs = { { dstate, poison = false, check = function(got)
          local total = probe_steps + launches * steps
          local j = 0
          for _ = 1, total % n do j = nxt[j] end
          R:verify(("chase over %s: the index reached and the steps taken"):format(units.format_size(ws)), got,
            { head(j, slot, lines), total }, { exact = true })
        end } } }
      p:release(); dnext:release()
      local ns = res.median / steps
      rows[#rows + 1] = { ws = ws, stride = slot * 4, slots = n, steps = steps, ns = ns,
        cycles = clock and clock > 0 and ns * clock / 1e3 or nil, res = res }
    end

    local xs, ys = {}, {}
    for i, r in ipairs(rows) do xs[i], ys[i] = r.ws, r.ns end
    local lv = levels(xs, ys, factor)
    local t = R:table{
      title = "Pointer chase: latency per dependent load by working set",
      id = "chase",
      columns = {
        { name = "working set", unit = "bytes", key = true, format = size_fmt },
        { name = "slot", unit = "bytes", format = "%d" }, { name = "slots", format = "%d" },
        { name = "steps", format = "%d" },
        { name = "latency", unit = "ns", format = cfmt("%.2f"), compare = true }, R:spread_column("spread"),
        { name = "cycles", format = "%.1f" },
      },
    }
    local pl = plot.new{ title = "Pointer chase: latency by working set",
      x = { name = "working set", unit = "bytes", log2 = true }, y = { name = "latency", unit = "ns" } }
    for _, r in ipairs(rows) do
      R:add_row(t, r.res, { ["working set"] = r.ws, slot = r.stride, slots = r.slots, steps = r.steps,
        latency = r.ns, cycles = r.cycles })
      pl:add("ns per load", r.ws, r.ns)
    end
    local cyc = function(ns) return clock and clock > 0 and (" (%.0f cycles)"):format(ns * clock / 1e3) or "" end
    for i, l in ipairs(lv) do
      local name = level_name(info, i, #lv)
      local tail = i < #lv and ("; ends near %s (the next, %s, is %.1fx slower)")
        :format(units.format_size(l.to), units.format_size(lv[i + 1].from), lv[i + 1].value / l.value)
        or (#lv > 1 and "; the last level measured" or "; no knee found")
      t:note(("level %d%s: %.1f ns%s per load, %s%s"):format(i, name and (" (" .. name .. ", likely)") or "",
        l.value, cyc(l.value), span(l), tail))
      if i < #lv then pl:add("level ends", l.to, l.value) end
    end
    t:note(("knee: a working set whose latency is more than %gx the median of the current level; a level of one "
      .. "point between two knees is a transition, not a level"):format(factor))
    t:note(("the cycle: one uint index per slot, at a random 128-byte line of the slot, slots visited in a seeded "
      .. "random order (at most %d slots: beyond %s the slots grow); one work-item, each launch %d to %d steps "
      .. "(a probe of %d decides: about %g ms), continuing where the last stopped; latency = median event time "
      .. "(%d runs) / steps"):format(MAX_SLOTS, units.format_size(MAX_SLOTS * LINE), min_steps, max_steps,
        probe_steps, target_ns / 1e6, R.reps))
    t:note("cycles: at the device's maximum clock, " .. (clock and clock > 0 and (clock .. " MHz") or "unknown")
      .. " (the clock under load may differ)")
    t:note("verified: after every working set, the index reached and the steps taken against the host's walk of "
      .. "the same cycle; bytes: 4 a step, held against the cache bound where the working set fits the caches, "
      .. "else the memory bandwidth")
    t:note(("the driver reports a global memory cache of %s"):format(info.global_mem_cache_size > 0
      and units.format_size(info.global_mem_cache_size) or "(none reported)"))
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
    local init = R:kernel("memory.cl", "bw_init", DEFINES)
    local read = R:kernel("memory.cl", "bw_read", DEFINES)
    local n4max = bw_max // 16
    local da = ctx:buffer(bw_max, "read_only")
    init:args(da, cl.uint(n4max))
    q:launch(init, (n4max + 255) // 256 * 256)
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
    local partly = false
    local rows = {}
    for _, ws in ipairs(sweep(lo, bw_max)) do
      local mask = ws // 16 - 1
      read:args(da, cl.uint(mask), cl.uint(reads), dout)
      local foot = ws + gsize * 4
      local bound = foot > cache and foot <= BEYOND * cache and "cache" or "memory"
      partly = partly or bound == "cache"
      local res = R:measure{ label = "bandwidth " .. units.format_size(ws), bytes = gsize * reads * 16,
        footprint = foot, bound = bound, run = function() return q:launch(read, gsize, lsize) end,
        outputs = { { dout, check = function(got)
          local have, want = {}, {}
          for i, g in ipairs(sample) do
            have[i] = got[g]
            local s, idx = 0, g
            for _ = 1, reads do
              local k = idx & mask
              s = s + k % 7 + k % 5 + k % 3 + 1
              idx = idx + step
            end
            want[i] = s + 0.0
          end
          R:verify(("bandwidth over %s: %d work-items' sums"):format(units.format_size(ws), #sample), have, want,
            { tol = 0 })
        end } } }
      rows[#rows + 1] = { ws = ws, res = res, bw = res.bw }
    end
    da:release()

    local xs, ys = {}, {}
    for i, r in ipairs(rows) do xs[i], ys[i] = r.ws, r.bw end
    local lv = levels(xs, ys, factor, true)
    local t = R:table{
      title = "Read bandwidth by working set",
      id = "bandwidth",
      columns = {
        { name = "working set", unit = "bytes", key = true, format = size_fmt },
        R:time_columns("µs", { compare = false }), R:bw_column("bandwidth"),
      },
    }
    local pl = plot.new{ title = "Read bandwidth by working set",
      x = { name = "working set", unit = "bytes", log2 = true }, y = { name = "bandwidth", unit = R.bw_unit } }
    for _, r in ipairs(rows) do
      R:add_row(t, r.res, { ["working set"] = r.ws })
      pl:add("read", r.ws, r.bw)
    end
    for i, l in ipairs(lv) do
      local name = level_name(info, i, #lv)
      t:note(("level %d%s: median %.1f %s, %s%s"):format(i, name and (" (" .. name .. ", likely)") or "",
        l.value, R.bw_unit, span(l),
        i < #lv and ("; %.1fx the next level's"):format(l.value / lv[i + 1].value) or ""))
      if i < #lv then pl:add("level ends", l.to, l.value) end
    end
    if #lv > 1 then
      local below, above = {}, {}
      for _, r in ipairs(rows) do
        if r.ws <= lv[1].to then below[#below + 1] = r.bw else above[#above + 1] = r.bw end
      end
      t:note(("below the first knee (up to %s) median %.1f %s; above it %.1f %s"):format(
        units.format_size(lv[1].to), stats.median(below), R.bw_unit, stats.median(above), R.bw_unit))
    else
      t:note("no knee found: one plateau")
    end
    t:note(("bandwidth: %d work-items x %d float4 reads (%s) / median event time of %d runs; the grid reads "
      .. "%d consecutive float4s, then moves on by %d, wrapping around the working set; work-groups of %d")
      :format(gsize, reads, units.format_size(gsize * reads * 16), R.reps, gsize, step, lsize))
    t:note(("verified: %d work-items' sums (a[k] = (k %% 7, k %% 5, k %% 3, 1), exact) against the host's replay "
      .. "of their reads"):format(#sample))
    if partly then
      t:note(("working sets larger than the caches (%s, %s) but within %dx them: held against the cache bound, "
        .. "not the memory bandwidth (a cache serves part of a set read again and again); not marked c")
        :format(units.format_size(cache), cache_from, BEYOND))
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
    local t = R:table{
      title = "Local memory bandwidth by vector width (clpeak's method)",
      id = "local",
      columns = { { name = "width", key = true }, R:time_columns("µs", { compare = false }),
        R:bw_column("bandwidth", { theoretical = false }) },
    }
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
      if not ok then notes[#notes + 1] = ("%s left out: %s"):format(label, why) end
      if ok then
        -- work-item g ends with the start of its group's work-item
        -- (lid + REPS) % lsize: w x start + 0 + 1 + .. + w - 1; starts repeat
        -- every 65536 work-items, so one period is compared with every slice
        local ref = cl.array("float", period)
        for g = 0, period - 1 do
          local src = (g // lsize * lsize + (g % lsize + REPS) % lsize) % 65536
          ref[g] = w * src + w * (w - 1) // 2
        end
        local res = R:measure{ label = "local " .. label, bound = "cache", bytes = REPS * 2 * w * 4 * gsize,
          run = function() return q:launch(k, gsize, lsize) end,
          outputs = { { dout, check = function(got)
            for first = 0, gsize - 1, period do
              local len = math.min(period, gsize - first)
              R:verify(("local %s, work-items %d..%d"):format(label, first, first + len - 1), got:slice(first, len),
                len == period and ref or ref:slice(0, len), { exact = true })
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
end)
