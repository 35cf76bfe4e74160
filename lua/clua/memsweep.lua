--- clua.memsweep: the shape of the memory studies' sweeps (recipes/memory.lua):
-- the parts a run takes (`--parts`) and the smallest ratio between levels
-- (`--knee`), the working sets swept (powers of two up to the largest the
-- device allows), the work-group size, and the working-set column and plot
-- every sweep shares. What the sweeps find is clua.memstudy's.
-- @module clua.memsweep
local plot = require("clua.plot")
local units = require("clua.units")

local memsweep = {}

--- The parts of the memory recipe, in the order they run.
memsweep.PARTS = { "chase", "bandwidth", "local", "tlb" }

--- The parts named in `s`, the option's value ("chase,tlb"), as a set.
-- @string s the option's value
-- @treturn ?table {name = true,...}, or nil
-- @treturn ?string why not: `unknown part 'x' (the parts: chase, bandwidth, local, tlb)`
function memsweep.parts(s)
  local set, all = {}, table.concat(memsweep.PARTS, ", ")
  for w in s:gmatch("[^,%s]+") do
    if not ({ chase = true, bandwidth = true, ["local"] = true, tlb = true })[w] then
      return nil, ("unknown part '%s' (the parts: %s)"):format(w, all)
    end
    set[w] = true
  end
  if not next(set) then return nil, "no part named (the parts: " .. all .. ")" end
  return set
end

--- The smallest ratio between levels, the knee option: a finite number above 1.
-- @string s the option's value
-- @treturn ?number the factor, or nil
-- @treturn ?string why not
function memsweep.factor(s)
  local x = tonumber(s)
  if not x or x <= 1 or x == math.huge then return nil, "a factor > 1 expected, got '" .. tostring(s) .. "'" end
  return x
end

--- The largest power of two not above `x` (x >= 1).
-- @number x
-- @treturn int
function memsweep.pow2_floor(x) return 1 << (select(2, math.frexp(x)) - 1) end

--- The working sets lo, 2 lo, 4 lo, ... up to hi.
-- @int lo
-- @int hi
-- @treturn {int,...}
function memsweep.sweep(lo, hi)
  local s = {}
  while lo <= hi do s[#s + 1], lo = lo, lo * 2 end
  return s
end

--- The largest working set: `x`, a power of two within the allocation limit and 1/share of the memory.
-- @tab info the device's info
-- @number x the working set asked for
-- @int share the part of the memory a sweep may take (2: half)
-- @treturn int
function memsweep.max(info, x, share)
  return memsweep.pow2_floor(math.min(x, info.max_mem_alloc_size, info.global_mem_size // share))
end

--- The work-group size of the bandwidth sweeps: 256, or the device's largest power of two below it.
-- @tab info the device's info
-- @treturn int
function memsweep.group(info) return memsweep.pow2_floor(math.min(256, info.max_work_group_size)) end

--- A plot of a figure by working set (log2 axis).
-- @string title
-- @string y the figure's name
-- @string unit its unit
-- @return a clua.plot
function memsweep.chart(title, y, unit)
  return plot.new{ title = title, x = { name = "working set", unit = "bytes", log2 = true }, y = { name = y, unit = unit } }
end

--- The working-set key column of every sweep's table.
-- @treturn table the column
function memsweep.column() return { name = "working set", unit = "bytes", key = true, format = units.format_size } end

return memsweep
