--- clua.memstudy: how the memory studies (recipes/memory.lua) read their
-- sweeps by working set: where to add points around a level's end, what the
-- levels (clua.levels) are likely called, the notes that say the levels'
-- rule and transitions, and the bound of a working set read again and again.
-- @module clua.memstudy
local bounds = require "clua.bounds"
local units = require "clua.units"

local memstudy = {}

local fs = units.format_size

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
-- is named as such. In a chase (`l2`: NVIDIA's L2 size) the second is the
-- L2; a level after it that starts within the L2's size is its far
-- partition (on an H100 the chase reads 143 ns up to 8 MiB, 240-270 ns from
-- 16 to 64 MiB), one past the L2's size a level of the TLB's reach, likely.
-- Elsewhere, or with fewer than three levels, no names.
-- @string vendor the device's vendor
-- @tab lv the levels (levels.find)
-- @bool chase true for a chase's levels, false for a read sweep's
-- @int[opt] l2 NVIDIA's L2 bytes (memstudy.l2)
-- @treturn tab the names by level index (some may be nil)
function memstudy.names(vendor, lv, chase, l2)
  local names = {}
  if not (vendor or ""):upper():find("NVIDIA") or #lv < 3 then return names end
  names[1], names[#lv] = "L1", "HBM/DRAM"
  for i = 2, #lv - 1 do
    if not chase then names[i] = i == #lv - 1 and "L2" or "between L1 and L2"
    elseif i == 2 then names[i] = "L2"
    elseif l2 and lv[i].from <= l2 then names[i], names[2] = "L2, far partition", "L2, near partition"
    else names[i] = "beyond the L2: TLB reach" end
  end
  return names
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

--- The note of the levels' rule at `step` (--knee).
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
