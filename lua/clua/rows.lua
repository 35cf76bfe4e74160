--- clua.rows: a recipe's columns and rows of measurements: the time,
-- spread, bandwidth and cache-marked columns, and `R:add_row`, which writes a
-- measurement's or a figure's (clua.figures) value, spread and cache mark
-- into a row and its notes into the table. The methods below are the
-- recipe's.
--
--     local t = R:table{ id = "copy", columns = { { name = "size", key = true }, R:bw_column("bandwidth"),
--       R:spread_column(), R:time_columns() } }
--     R:add_row(t, R:measure{ ... }, { size = n })
--
-- @module clua.rows
local noise, figures, optcheck = require "clua.noise", require "clua.figures", require "clua.options"

local rows = {}

--- The recipe methods this module gives (installed by clua.recipe).
rows.methods = {}
local Recipe = rows.methods

--- Columns for a measurement's time: `time` (the median), `min` and `max`
-- in `unit` ("µs" by default, or "ms", "ns"); R:emit adds the spread after
-- them. `opts.compare` (default true) marks the time for --compare;
-- `opts.format` is the values' format in `unit` (default "%.3f" for ms,
-- else "%.1f"). A list of three columns, which `R:table` takes among the
-- others.
-- @string[opt="µs"] unit
-- @tab[opt] opts `name` (default "time"), `compare`, `format`
-- @treturn tab the list of the three column specs
function Recipe:time_columns(unit, opts) -- luacheck: ignore self
  opts = opts or {}
  unit = unit or "µs"
  local div = ({ ns = 1, ["µs"] = 1e3, us = 1e3, ms = 1e6, s = 1e9 })[unit]
  local digits = opts.format or unit == "ms" and "%.3f" or "%.1f"
  local fmt = function(v) return digits:format(v / div) end
  return { { name = opts.name or "time", unit = unit, format = fmt, ns = true, compare = opts.compare ~= false },
    { name = "min", unit = unit, format = fmt, ns = true },
    { name = "max", unit = unit, format = fmt, ns = true } }
end

--- A spread column (clua.noise) named `name`, for a table that shows more
-- than one measurement a row ("6 spread" beside "6 time").
function Recipe:spread_column(name) return noise.column(name) end -- luacheck: ignore self

-- Whether a row's cell in column `name` holds a cache figure: the whole row
-- (`R:add_row` of a cache figure) or that cell (a figure given as the cell).
local function cached(row, name)
  local m = row and row.cache_figure
  return m == true or (type(m) == "table" and m[name] == true)
end

-- A printf format whose cache figures (the cells R:add_row marks) read "123.4 c".
local function cache_marked(f, name)
  return function(v, row) return f:format(v) .. (cached(row, name) and " c" or "") end
end

--- A column of a figure that may be a cache figure: `spec`, a column spec
-- (as for R:table) whose `format` is a printf format, with the format marking
-- a cache figure's value "1.61 c" (the rows R:add_row makes of a measurement
-- whose working set fits the caches; the harness's note says what c means).
-- `cache`, a string, ends that note where the cache figures are this
-- column's only ("... not the memory (D2D)").
-- @tab spec the column: `name`, `format` (a printf format), `cache` and the others
-- @treturn tab the column
-- @usage R:cache_column{ name = "latency", unit = "ns", format = "%.2f", compare = true }
function Recipe:cache_column(spec) -- luacheck: ignore self
  if type(spec) ~= "table" or type(spec.format) ~= "string" then
    error("R:cache_column: a column spec with a printf format expected (format = \"%.2f\")", 2)
  end
  local c = {}
  for k, v in pairs(spec) do c[k] = v end
  c.format, c.cache = cache_marked(spec.format, spec.name), spec.cache or true
  return c
end

--- A column spec for a bandwidth: {name=, unit=R.bw_unit, divisor=, theoretical=}
-- with a % of the theoretical memory (or opts.theoretical = "pcie") bandwidth;
-- a printf `format` (default "%.1f") marks its cache figures, and `cache`
-- is as for `R:cache_column`.
function Recipe:bw_column(name, opts)
  opts = optcheck.check(opts, "R:bw_column", { "format", "theoretical", "compare", "key", "cache" })
  local f = opts.format or "%.1f"
  local format = type(f) == "string" and cache_marked(f, name) or f
  return { name = name, unit = self.bw_unit, divisor = self.divisor, format = format,
    theoretical = opts.theoretical == nil and "memory" or opts.theoretical or nil,
    compare = opts.compare ~= false, key = opts.key, cache = type(f) == "string" and (opts.cache or true) or nil }
end

--- The notes of a measurement added to table `t`, each once: a host clock's
-- (`res.notes`) and, for a cache figure, one note for the table that names
-- its largest cached working set (a later, larger one replaces it).
-- `R:add_row` calls it; a recipe calls it for a measurement it puts into a
-- row of its own making.
-- @tparam clua.report t the table
-- @tab res what `R:measure` returned, or a figure
-- @string[opt] column the column whose cache figure it is, when the note
-- names it (its `cache` label)
function Recipe:add_notes(t, res, column) -- luacheck: ignore self
  for _, n in ipairs(res.notes or {}) do t:note_once(n) end
  if res.cache and (not t.cache_foot or res.footprint > t.cache_foot) then
    local c = column and t:column(column)
    local note = res.cache_note .. (c and type(c.cache) == "string" and (" (" .. c.cache .. ")") or "")
    t.cache_foot = res.footprint
    if t.cache_note_at then t.notes[t.cache_note_at] = note
    else t:note(note); t.cache_note_at = #t.notes end
  end
end

-- A figure's value for column c: a time column's (ns) its median, else
-- its bandwidth where it has one.
local function cell_value(c, f)
  if c.ns then return f.median end
  if f.bw ~= nil then return f.bw end
  return f.median
end

--- A table row of a measurement: `fields` with, where the table `t` has such
-- columns and `fields` does not set them, `time` (median), `min`, `max`,
-- `spread` and `bandwidth`; its notes (a host clock, a cache figure) are
-- added to `t` once each. A field whose value is a measurement or a figure
-- (clua.figures) puts the figure in that cell: its bandwidth (a time
-- column: its median), its spread in the column NAME spread (else the
-- `spread` column, the widest of the row's figures), its cache mark on that
-- cell and its notes. Returns the row, added to `t`.
-- @tparam clua.report t the table
-- @tab[opt] res what `R:measure` returned, or a figure (nil: a row of cells)
-- @tab fields the row's other cells
-- @treturn tab the row
-- @usage local t = R:table{ title = "alone", columns = { { name = "device", key = true }, R:bw_column("H2D"),
--   R:spread_column("H2D spread") } }
-- local h2d = R:figure({ 1e6, 1.1e6 }, { bytes = 1e6 })   -- a figure: its bandwidth and spread go in
-- local row = R:add_row(t, nil, { device = "gpu 0", H2D = h2d })
-- assert(row.H2D == h2d.bw and row["H2D spread"] == h2d.spread)
function Recipe:add_row(t, res, fields)
  fields = fields or {}
  local row, marks, widest = {}, nil, nil
  for k, v in pairs(fields) do if not figures.is(v) then row[k] = v end end
  for _, c in ipairs(t.columns) do
    local f = fields[c.name]
    if figures.is(f) then
      row[c.name] = cell_value(c, f)
      local own = c.name .. " spread"
      if t:column(own) then
        if fields[own] == nil then row[own] = f.spread end
      elseif fields.spread == nil and t:column("spread") then
        widest = math.max(widest or 0, f.spread or 0)
      end
      if f.cache then marks = marks or {}; marks[c.name] = true end
      self:add_notes(t, f, c.name)
    end
  end
  if widest and not res then row.spread = widest end
  if res then
    local auto = { time = res.median, min = res.min, max = res.max, spread = res.spread, bandwidth = res.bw }
    for k, v in pairs(auto) do
      if row[k] == nil and t:column(k) then row[k] = v end
    end
    self:add_notes(t, res)
  end
  local r = t:add(row)
  r.cache_figure = res and res.cache or marks
  return r
end

return rows
