--- clua.memstudy: how the memory studies (recipes/memory.lua) check and read
-- their sweeps by working set: the host's replay of the read sweep's kernel,
-- the bound of a working set read again and again, where to add points
-- around a level's end, what the levels (clua.levels) are likely called, and
-- the notes that describe the levels (latency, capacity, transitions, the
-- rule that found them).
-- @module clua.memstudy
local bounds = require("clua.bounds")
local levels = require("clua.levels")
local stats = require("clua.stats")
local fs = require("clua.units").format_size

local memstudy = {}

--- A working set read again and again up to this many times the caches is
-- still held against the cache bound (see memstudy.read_bound).
memstudy.REREAD = 8

--- A level's working sets: "at 4 KiB" or "1 KiB to 16 KiB".
-- @tab l a level of levels.find (`from`, `to` in bytes)
-- @treturn string
function memstudy.span(l)
  return l.from == l.to and "at " .. fs(l.from) or fs(l.from) .. " to " .. fs(l.to)
end

--- NVIDIA's L2, where the bound's cache size is NVIDIA's figure for the
-- device (clua.bounds.cache_bytes), else nil.
-- @tab facts the device's facts
-- @treturn number|nil the L2's bytes
-- @treturn string|nil where the figure comes from
function memstudy.l2(facts)
  local bytes, from = bounds.cache_bytes(facts)
  if from:find("NVIDIA", 1, true) then return bytes, from end
end

--- The likely names of the levels of a sweep on NVIDIA (a guess from their
-- order, which the notes say): the first L1, the last HBM/DRAM. In a read
-- sweep the one before the last is the L2, a level between L1 and L2 (an
-- H100's read sweep has one: sets that fit the L1s of all the SMs together)
-- is named as such. In a chase the second is the L2; a level after it that
-- starts within the L2's size (memstudy.l2) is its far partition (on an H100
-- the chase reads 143 ns up to 8 MiB, 240-270 ns from 16 to 64 MiB), one past
-- the L2's size a level of the TLB's reach, likely. Elsewhere, or with fewer
-- than three levels, no names.
-- @tab facts the device's facts (`vendor`, and the L2's size)
-- @tab lv the levels (levels.find)
-- @bool chase true for a chase's levels, false for a read sweep's
-- @treturn tab the names by level index (some may be nil)
function memstudy.names(facts, lv, chase)
  local names = {}
  if not (facts.vendor or ""):upper():find("NVIDIA") or #lv < 3 then return names end
  local l2 = memstudy.l2(facts)
  names[1], names[#lv] = "L1", "HBM/DRAM"
  for i = 2, #lv - 1 do
    if not chase then names[i] = i == #lv - 1 and "L2" or "between L1 and L2"
    elseif i == 2 then names[i] = "L2"
    elseif l2 and lv[i].from <= l2 then names[i], names[2] = "L2, far partition", "L2, near partition"
    else names[i] = "beyond the L2: TLB reach" end
  end
  return names
end

-- " (L2, likely)" for a level with a name, else "".
local function named(names, i) return names[i] and (" (" .. names[i] .. ", likely)") or "" end

-- The median of values[first .. last].
local function median(values, first, last) return stats.median(table.move(values, first, last, 1, {})) end

-- Each level's end but the last, on plot `pl`.
local function ends(pl, lv)
  for i = 1, #lv - 1 do pl:add("level ends", lv[i].to, lv[i].value) end
end

--- A sample of a grid's work-items for a host check: `count` of the `n`
-- spread evenly from 0, the last (n - 1) and the middle (n // 2) among them.
-- @int n the work-items
-- @int count how many to spread (1 to n)
-- @treturn {int,...} their indices, in order but for the last two added
function memstudy.sample(n, count)
  local sample = {}
  for k = 0, count - 1 do sample[#sample + 1] = k * n // count end
  if sample[#sample] ~= n - 1 then sample[#sample + 1] = n - 1 end
  if sample[count // 2 + 1] ~= n // 2 then sample[#sample + 1] = n // 2 end
  return sample
end

--- What work-item `g` of kernels/memory.cl's bw_read sums: `reads` float4s
-- a[k] = (k % 7, k % 5, k % 3, 1), at k = (g + r x step) & mask for r = 0 ..
-- reads - 1 (a working set of mask + 1 float4s).
-- @int g the work-item
-- @int reads its reads
-- @int step how far the grid moves on after each read, in float4s
-- @int mask the working set's float4s - 1 (a power of two - 1)
-- @treturn number the sum, as a float
function memstudy.read_sum(g, reads, step, mask)
  local s, idx = 0, g
  for _ = 1, reads do
    local k = idx & mask
    s, idx = s + k % 7 + k % 5 + k % 3 + 1, idx + step
  end
  return s + 0.0
end

--- Working sets a quarter octave apart around each level's end, from half
-- its last working set to the next level's first (rounded down to 64 KiB
-- from 64 KiB, else to 1 KiB; each once): where a doubling sweep jumps,
-- these show how, and let clua.levels read a cache's capacity.
-- @tab lv the levels of a doubling sweep (levels.find)
-- @treturn {int,...} the working sets to add, in bytes
function memstudy.refine(lv)
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

--- The note that says the levels' rule, at `step` (the recipe's knee option).
-- @number step the smallest ratio between two levels
-- @treturn string
function memstudy.rule(step)
  return ("levels (clua.levels): neighbouring levels differ by more than %gx (--knee) and beyond the noise of "
    .. "their repetitions (the interval of each point's median, at least 1%%; a level's own scatter); a level of one "
    .. "point between two is a transition"):format(step)
end

--- Adds to table `t` one note for each pair of levels with transitions
-- between them: "transitions between level 2 and level 3: 512 KiB (19.4
-- ns), 1 MiB (36.9 ns)", after `prefix`.
-- @tparam clua.report t the table
-- @tab tr the transitions (levels.find's second result; y in ns)
-- @string prefix the notes' start ("" or "4 KiB strides, ")
function memstudy.transitions(t, tr, prefix)
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

--- Adds to table `t` the notes of a chase's levels (latency by working set,
-- in ns): each level's latency (`cycles(ns)` after it), its working sets and
-- where it ends, and the capacity of its cache (levels.capacity) where
-- points lie between it and the next; the transitions; on NVIDIA, the L2 as
-- measured (the last level named L2 and the next). Each level's end but the
-- last goes on plot `pl` as "level ends".
-- @tparam clua.report t the table
-- @tparam clua.plot pl the plot
-- @tab facts the device's facts
-- @tab lv the levels, of the doubling sweep (levels.find)
-- @tab tr the transitions (levels.find)
-- @tab points every point measured, `{x=, y=, times=}` in order of x
-- @func cycles the clock cycles of a latency, as text (" (4 cycles)" or "")
-- @number step the levels' smallest ratio (levels.find's), for the rule's note, the last
function memstudy.chase_notes(t, pl, facts, lv, tr, points, cycles, step)
  local names = memstudy.names(facts, lv, true)
  local k -- the last level named L2
  for i, l in ipairs(lv) do
    local cap, used, nx = nil, {}, lv[i + 1]
    if nx then cap, used = levels.capacity(l, nx, points) end
    local tail = nx and ("; ends near %s (the next, %s, is %.2fx slower)"):format(fs(l.to), fs(nx.from), nx.value / l.value)
      or (#lv > 1 and "; the last level measured" or "; one level")
    if cap then
      tail = tail .. ("; holds about %s (from %d working set%s between the two levels, random replacement)")
        :format(fs(cap), #used, #used == 1 and "" or "s")
    end
    t:note(("level %d%s: %.1f ns%s per load (%.1f to %.1f), %s%s"):format(i, named(names, i), l.value,
      cycles(l.value), l.lo, l.hi, memstudy.span(l), tail))
    if nx and names[i] and names[i]:find("^L2") then k = i end
  end
  ends(pl, lv)
  memstudy.transitions(t, tr, "")
  if k then
    local cap, past = levels.capacity(lv[k], lv[k + 1], points), lv[k + 1].from
    for _, p in ipairs(points) do
      if p.x > lv[k].to and p.x < lv[k + 1].from then past = math.min(past, p.x) end
    end
    local l2, from = memstudy.l2(facts)
    t:note(("the L2 as measured: its latency holds to %s, rises from %s%s; %s"):format(fs(lv[k].to), fs(past),
      cap and (", a capacity of about " .. fs(cap)) or "", l2 and ("%s (%s)"):format(fs(l2), from)
      or "its size unknown (no L2 known for this compute capability)"))
  end
  t:note(memstudy.rule(step))
end

--- Adds to table `t` the notes of a read sweep's levels (bandwidth by
-- working set, in `unit`): each level's median, its working sets and its
-- ratio to the next; the medians below and above the first knee, or that
-- there is none. Each level's end but the last goes on plot `pl`.
-- @tparam clua.report t the table
-- @tparam clua.plot pl the plot
-- @tab facts the device's facts
-- @tab lv the levels (levels.find)
-- @tparam {number,...} values every point's bandwidth, in order of working set
-- @string unit the bandwidth's unit ("GB/s")
-- @number step as for memstudy.chase_notes
function memstudy.bandwidth_notes(t, pl, facts, lv, values, unit, step)
  local names = memstudy.names(facts, lv, false)
  for i, l in ipairs(lv) do
    local nx = lv[i + 1]
    t:note(("level %d%s: median %.1f %s, %s%s"):format(i, named(names, i), l.value, unit, memstudy.span(l),
      nx and ("; %.1fx the next level's"):format(l.value / nx.value) or ""))
  end
  ends(pl, lv)
  if #lv > 1 then
    t:note(("below the first knee (up to %s) median %.1f %s; above it %.1f %s"):format(fs(lv[1].to),
      median(values, 1, lv[1].last), unit, median(values, lv[1].last + 1, #values), unit))
  else
    t:note("no knee found: one plateau")
  end
  t:note(memstudy.rule(step))
end

--- Adds to table `t` the notes of the levels of a chase at page-sized
-- strides (the TLB's reach): each level's latency (`cycles(ns)` after it),
-- its median over the same lines chased alone (`extra`), its working sets,
-- and its reach in pages; the transitions.
-- @tparam clua.report t the table
-- @tab lv the levels (levels.find)
-- @tab tr the transitions (levels.find)
-- @tparam {number,...} extra every point's latency less the lines alone's, in ns
-- @int stride the stride, in bytes
-- @func cycles as for memstudy.chase_notes
function memstudy.tlb_notes(t, lv, tr, extra, stride, cycles)
  for i, l in ipairs(lv) do
    local nx = lv[i + 1]
    local tail = nx and ("; reach %s: %d pages (the next level from %d pages, %.2fx slower)"):format(fs(l.to),
      l.to // stride, nx.from // stride, nx.value / l.value)
      or (#lv > 1 and "; the last level measured" or "; one level: no TLB's reach within the sweep")
    t:note(("%s strides, level %d: %.1f ns%s per load (%+.1f ns over the lines alone), %s%s"):format(fs(stride), i,
      l.value, cycles(l.value), median(extra, l.first, l.last), memstudy.span(l), tail))
  end
  memstudy.transitions(t, tr, fs(stride) .. " strides, ")
end

--- The bound of a working set read again and again (R:measure's `bound`):
-- "memory" within the caches (the harness marks it a cache figure) and
-- beyond REREAD times them; between, "cache", since a set read again and
-- again is served in part by a cache smaller than it (an H100 reads 64 MiB
-- at 8 TB/s and 128 MiB at 6.8 TB/s, past its 50 MiB L2 and twice its 3.35
-- TB/s HBM).
-- @int foot the bytes the repetition touches
-- @tab facts the device's facts
-- @treturn string "cache" or "memory"
function memstudy.read_bound(foot, facts)
  local cache = bounds.cache_bytes(facts)
  return foot > cache and foot <= memstudy.REREAD * cache and "cache" or "memory"
end

--- The note of a table with a working set that memstudy.read_bound held
-- against the cache bound.
-- @tab facts the device's facts
-- @treturn string
function memstudy.read_bound_note(facts)
  local cache, from = bounds.cache_bytes(facts)
  return ("working sets larger than the caches (%s, %s) but within %dx them: held against the cache bound, "
    .. "not the memory bandwidth (a cache serves part of a set read again and again); not marked c")
    :format(fs(cache), from, memstudy.REREAD)
end

return memstudy
