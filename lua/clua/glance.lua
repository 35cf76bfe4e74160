--- clua.glance: the report card's answer in one table, read from the
-- recipes' own tables of the run.
--
-- One line per figure a reader looks for first: the compute peak of each
-- type (recipes/peak.lua), the stream triad (recipes/stream.lua), each level
-- of the memory hierarchy with its latency and size (recipes/memory.lua's
-- pointer chase), host-to-device and device-to-host bandwidth
-- (recipes/transfer.lua), the cost of a kernel launch (recipes/launch.lua)
-- and the fastest path between two devices (recipes/multigpu.lua), each
-- with its bound and the share of it where the device tells one. Only what
-- the run measured: a recipe that did not run leaves its lines out, and a
-- figure whose working set fits a cache is said to be a cache figure, held
-- against the cache's roof where the card measured one (recipes/memory.lua's
-- read bandwidth), never against the memory's.
-- @module clua.glance
local tablemodel = require("clua.tablemodel")
local units = require("clua.units")

local glance = {}

-- The tables of recipe `name` in the card: {id = data}.
local function tables_of(doc, name)
  for _, r in ipairs(doc.recipes or {}) do
    if r.name == name and not r.error and r.tables then
      local by = {}
      for _, d in ipairs(r.tables) do by[d.id] = d end
      return by
    end
  end
  return {}
end

-- The index of column `name` in a table's data.
local function col(d, name)
  for j, c in ipairs(d.columns or {}) do if c.name == name then return j end end
end

-- Whether row i's cell in column `name` is a cache figure ("123.4 c").
local function cached(d, i, name)
  local j = col(d, name)
  local text = j and d.cells and d.cells[i] and d.cells[i][j]
  return type(text) == "string" and text:match(" c$") ~= nil
end

-- A rate in G/s with a prefix that reads at a glance: "65.3 TFLOP/s".
local function rate(g, what)
  if g >= 1000 then return ("%.1f T%s"):format(g / 1000, what) end
  if g >= 1 then return ("%.1f G%s"):format(g, what) end
  return ("%.1f M%s"):format(g * 1000, what)
end

local function bw(v, unit) return ("%.1f %s"):format(v, unit or "GB/s") end

--- The cache's roof the card measured: the fastest read bandwidth of
-- recipes/memory.lua's sweep over working sets that fit a cache.
-- @tab doc the card (recipes/report.lua's JSON document)
-- @treturn ?number the bandwidth in GB/s (10^9 B/s), nil where none was measured
function glance.cache_roof(doc)
  local d = tables_of(doc, "memory").bandwidth
  if not d then return nil end
  local best
  for i, row in ipairs(d.rows or {}) do
    if type(row.bandwidth) == "number" and cached(d, i, "bandwidth") then
      best = math.max(best or 0, row.bandwidth)
    end
  end
  local unit = d.columns[col(d, "bandwidth")].unit
  if best and unit == "GiB/s" then best = best * 2 ^ 30 / 1e9 end
  return best
end

-- The lines of each figure: {figure=, measured=, bound=, ["% of bound"]=, from=}.
local function peak_lines(doc, add)
  local d = tables_of(doc, "peak").peak
  if not d then return end
  local best, order = {}, {}
  for _, row in ipairs(d.rows or {}) do
    if type(row.peak) == "number" then
      if not best[row.type] then order[#order + 1] = row.type end
      if not best[row.type] or row.peak > best[row.type].peak then best[row.type] = row end
    end
  end
  for _, ty in ipairs(order) do
    local row, what = best[ty], ty == "int" and "OP/s" or "FLOP/s"
    local th = type(row.theoretical) == "number" and row.theoretical or nil
    add{ figure = "compute peak, " .. ty, measured = ("%s (width %s)"):format(rate(row.peak, what), row.width),
      bound = th and (rate(th, what) .. " (theoretical)"), ["% of bound"] = th and row.peak / th * 100,
      from = "peak" }
  end
end

local function stream_lines(doc, add, notes)
  local d = tables_of(doc, "stream").stream
  if not d then return end
  local pick, at
  for i, row in ipairs(d.rows or {}) do
    if row.kernel == "triad" and type(row.best) == "number" and (not pick or row.precision == "double") then
      pick, at = row, i
    end
  end
  if not pick then return end
  local unit = d.columns[col(d, "best")].unit
  local line = { figure = "stream triad, " .. pick.precision, measured = bw(pick.best, unit), from = "stream" }
  if cached(d, at, "best") then
    line.measured = line.measured .. " (cache)"
    local roof = glance.cache_roof(doc)
    if roof and unit == "GiB/s" then roof = roof * 1e9 / 2 ^ 30 end
    if roof and pick.best <= roof then
      line.bound, line["% of bound"] = bw(roof, unit) .. " (cache, read)", pick.best / roof * 100
    end
    notes[#notes + 1] = "stream triad (cache): its arrays fit the device's cache, so it measures the cache, not the "
      .. "memory, and is not held against the memory's bandwidth"
  elseif type(pick["best %"]) == "number" and pick["best %"] > 0 then
    line.bound = bw(pick.best / pick["best %"] * 100, unit) .. " (theoretical)"
    line["% of bound"] = pick["best %"]
  end
  add(line)
end

-- "level 2 (L2, near partition, likely): 143.2 ns (284 cycles) per load (...), 512 KiB to 8 MiB; ends near 8 MiB
-- (...); holds about 174.01 KiB (...)"
local function memory_lines(doc, add)
  local d = tables_of(doc, "memory").chase
  if not d then return end
  for _, n in ipairs(d.notes or {}) do
    local k, name, ns, span = n:match("^level (%d+)%s*(.-): ([%d.]+) ns.- per load %b(), ([^;]+)")
    if k then
      local size = n:match("holds about ([^%s(]+ %a+)") or n:match("ends near ([^%s(]+ %a+)")
      local where = name:match("^%((.-), likely%)$")
      add{ figure = ("memory level %s%s"):format(k, where and (" (" .. where .. ")") or ""),
        measured = ("%s ns per load, %s"):format(ns, size and ("about " .. size) or span), from = "memory" }
    end
  end
end

local function transfer_lines(doc, add)
  local d = tables_of(doc, "transfer").transfers
  if not d then return end
  local unit = d.columns[col(d, "bandwidth")].unit
  for _, dir in ipairs({ "H2D", "D2H" }) do
    local best
    for _, row in ipairs(d.rows or {}) do
      if row.direction == dir and type(row.bandwidth) == "number" and (not best or row.bandwidth > best.bandwidth) then
        best = row
      end
    end
    if best then
      local pct = type(best["bandwidth %"]) == "number" and best["bandwidth %"] > 0 and best["bandwidth %"] or nil
      add{ figure = dir == "H2D" and "host to device" or "device to host",
        measured = ("%s (%s, %s)"):format(bw(best.bandwidth, unit), best.memory, best.call),
        bound = pct and (bw(best.bandwidth / pct * 100, unit) .. " (PCIe)"), ["% of bound"] = pct, from = "transfer" }
    end
  end
end

local function launch_lines(doc, add)
  local d = tables_of(doc, "launch").launch
  if not d then return end
  for _, want in ipairs({ { "^enqueue, host side, an event each", "kernel launch: enqueue (host side)" },
    { "^round trip", "kernel launch: round trip" } }) do
    for _, row in ipairs(d.rows or {}) do
      if type(row.figure) == "string" and row.figure:match(want[1]) and type(row.clua) == "number" then
        add{ figure = want[2], measured = units.format_time(row.clua), from = "launch" }
        break
      end
    end
  end
end

local function multigpu_lines(doc, add)
  local d = tables_of(doc, "multigpu").links
  if not d then return end
  local unit = d.columns[col(d, "fastest")].unit
  local lo, hi
  for _, row in ipairs(d.rows or {}) do
    if type(row.fastest) == "number" then
      if not lo or row.fastest < lo.fastest then lo = row end
      if not hi or row.fastest > hi.fastest then hi = row end
    end
  end
  for _, row in ipairs(lo == hi and { hi } or { hi, lo }) do
    local b = type(row.bound) == "number" and row.bound > 0 and row.bound or nil
    add{ figure = ("device to device, %s pair"):format(row == hi and "fastest" or "slowest"),
      measured = ("%s (%s, %s -> %s)"):format(bw(row.fastest, unit), tostring(row["fastest path"]),
        tostring(row.source), tostring(row.destination)),
      bound = b and ("%s (%s)"):format(bw(b, unit), tostring(row.link)), ["% of bound"] = b and row.fastest / b * 100,
      from = "multigpu" }
  end
end

--- The card's "at a glance" table (a clua.tablemodel table, id "glance"): one row per
-- figure the run measured, with its bound and % of it where known; the
-- columns no row fills are left out.
-- @tab doc the card: {device=, recipes={{name=, tables=, error=}, ...}}
-- @treturn ?clua.tablemodel nil when the run measured none of these figures
function glance.table(doc)
  local rows, notes = {}, {}
  local function add(r) rows[#rows + 1] = r end
  peak_lines(doc, add)
  stream_lines(doc, add, notes)
  memory_lines(doc, add)
  transfer_lines(doc, add)
  launch_lines(doc, add)
  multigpu_lines(doc, add)
  if #rows == 0 then return nil end
  local t = tablemodel.new{ title = "At a glance", id = "glance", columns = {
    { name = "figure", key = true }, { name = "measured" }, { name = "bound" },
    { name = "% of bound", format = "%.1f" }, { name = "recipe" } } }
  for _, r in ipairs(rows) do
    t:add{ figure = r.figure, measured = r.measured, bound = r.bound, ["% of bound"] = r["% of bound"], recipe = r.from }
  end
  t:note("each figure from its recipe's table below: the best of its rows (peak: of the vector widths; transfers: "
    .. "of the memories and calls); bound: the device's own figure where the driver tells it")
  for _, n in ipairs(notes) do t:note(n) end
  return tablemodel.without_empty(t)
end

return glance
