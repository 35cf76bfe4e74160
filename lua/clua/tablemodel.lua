--- clua.tablemodel: the model of a results table: title, columns, rows,
-- notes and metadata, each cell's value and its text, a table as plain data
-- and back. What a recipe's `R:table` makes and every renderer reads
-- (clua.render: text, CSV, Markdown, JSON; clua.html: the web page).
--
-- Three things in clua are called "report": this table (`report.new` in
-- code written before the split: clua.report re-exports it with the
-- renderers, the schemas and the comparison), the device report card (the
-- command `clua report`, recipes/report.lua) and the card's web page
-- (clua.html). Here a table is a table.
-- @module clua.tablemodel
local units = require("clua.units")
local options = require("clua.options")

local tablemodel = {}

local Table = {}
Table.__index = Table

local function slug(s)
  return (tostring(s or "table"):lower():gsub("[^%w]+", "-"):gsub("^%-+", ""):gsub("%-+$", ""))
end

--- The option names of tablemodel.new.
tablemodel.OPTIONS = { "title", "id", "columns", "rows", "notes", "meta", "theoretical" }
--- The keys of a column spec (see tablemodel.new).
tablemodel.COLUMN = { "name", "unit", "format", "key", "compare", "theoretical", "divisor", "value", "derived", "ns", "spread",
  "ratio", "better", "verdict", "cache" }

--- A new results table (a `Table`: the methods `Table:...` below).
-- tablemodel.new{title=, id=, columns={...}, rows=, notes=, meta=, theoretical=}
-- A column is a name or {name=, unit=, format=, key=, compare=, theoretical=, divisor=}:
--   format       a printf format ("%.2f") or function(value, row) -> string
--                (default: units.format_number)
--   key          true for the columns that identify a row (used by compare)
--   compare      true for the columns that --compare shows as ratios
--   theoretical  "memory" or "pcie": a bandwidth column, in units of `divisor`
--                B/s (default 10^9), that gets a "% of peak" companion column
--                when the table's theoretical bandwidth of that kind is known
--   value        function(row) -> value, for a column computed from others
--   spread       true for a column of clua.noise spreads (noise.column)
--   ratio        (clua.saved: compare) the name of the column this one is the
--                ratio of to the saved run; better: "higher" or "lower" (which
--                way that column improves), nil when its unit does not say
--   verdict      (clua.saved: compare) the name of the column whose ratio this
--                column judges against the noise ("beyond" or "within")
--   cache        true for a column whose cells may be cache figures, or the
--                name its cache note ends with (clua.rows: R:cache_column)
--   ns           true when the values are nanoseconds that `format` shows in
--                `unit` (or as units.format_time does): CSV and JSON keep the
--                nanoseconds and name their unit "ns" (JSON: unit = "ns",
--                display_unit = the shown unit)
-- `theoretical` is {memory=B/s, pcie=B/s} or device facts (clua.device).
function tablemodel.new(spec)
  options.check(spec, "report.new", tablemodel.OPTIONS)
  for _, c in ipairs(spec.columns or {}) do
    if type(c) == "table" then options.check(c, "report.new: column '" .. tostring(c.name) .. "'", tablemodel.COLUMN) end
  end
  local t = setmetatable({
    title = spec.title or "", id = spec.id or slug(spec.title),
    columns = {}, rows = {}, notes = {}, meta = {}, theoretical = spec.theoretical,
  }, Table)
  for i, c in ipairs(spec.columns or {}) do
    t.columns[i] = type(c) == "table" and c or { name = c }
  end
  for k, v in pairs(spec.meta or {}) do t.meta[k] = v end
  for _, n in ipairs(spec.notes or {}) do t:note(n) end
  for _, r in ipairs(spec.rows or {}) do t:add(r) end
  return t
end

--- Adds a row: a table keyed by column name, or a list in column order.
function Table:add(row)
  local r = {}
  for i, c in ipairs(self.columns) do
    local v = row[c.name]
    if v == nil then v = row[i] end
    r[c.name] = v
  end
  self.rows[#self.rows + 1] = r
  return r
end

--- Adds a note, printed under the table; returns the table.
function Table:note(text) self.notes[#self.notes + 1] = text; return self end

--- Adds a note unless the table has one of the same text already (a note
-- each of many results may carry, said once); returns the table.
function Table:note_once(text)
  for _, n in ipairs(self.notes) do if n == text then return self end end
  return self:note(text)
end

--- The column spec named `name`, or nil.
function Table:column(name)
  for _, c in ipairs(self.columns) do if c.name == name then return c end end
end

local function theoretical_bps(t, which)
  local th = t.theoretical
  if not th then return nil end
  if th.theoretical then return th:theoretical(which) end
  return th[which]
end

--- The columns as rendered: each bandwidth column followed by its "% of peak"
-- companion when the theoretical figure is known.
function Table:resolved_columns()
  local out = {}
  for _, c in ipairs(self.columns) do
    out[#out + 1] = c
    local bps = c.theoretical and theoretical_bps(self, c.theoretical)
    if bps then
      local divisor = c.divisor or units.GB
      out[#out + 1] = {
        name = c.name .. " %", unit = c.theoretical == "pcie" and "of PCIe peak" or "of mem peak",
        format = "%.1f", derived = true,
        value = function(row)
          local v = row[c.name]
          return type(v) == "number" and v * divisor / bps * 100 or nil
        end,
      }
    end
  end
  return out
end

--- The value of column `c` in `row` (a computed column's from its
-- `value` function), raw: what CSV and JSON hold.
-- @tab c a column spec
-- @tab row a row of the table
-- @return the value, or nil
function tablemodel.value(c, row)
  if c.value then return c.value(row) end
  return row[c.name]
end
local value = tablemodel.value

--- The text of column `c` in `row`, as its `format` shows it ("-" where the
-- row has no value): what text, Markdown and the web page show.
-- @tab c a column spec
-- @tab row a row of the table
-- @treturn string
function tablemodel.cell(c, row)
  local v = value(c, row)
  if v == nil then return "-" end
  local f = c.format
  if type(f) == "function" then return tostring(f(v, row)) end
  if type(f) == "string" and type(v) == "number" then return f:format(v) end
  return units.format_number(v)
end
local cell = tablemodel.cell

local meta_order = { "recipe", "device", "platform", "driver", "clua", "date", "reps", "warmup",
  "timing", "bandwidth", "options", "compared_with" }

--- Metadata as a list of {key, value-as-text}, in a fixed order.
function Table:meta_list()
  local out, seen = {}, {}
  local function put(k)
    local v = self.meta[k]
    if v ~= nil and not seen[k] then
      seen[k] = true
      if type(v) == "table" then
        local parts = {}
        for _, x in ipairs(v) do parts[#parts + 1] = tostring(x) end
        v = table.concat(parts, " ")
      end
      out[#out + 1] = { k, tostring(v) }
    end
  end
  for _, k in ipairs(meta_order) do put(k) end
  local rest = {}
  for k in pairs(self.meta) do if not seen[k] then rest[#rest + 1] = k end end
  table.sort(rest)
  for _, k in ipairs(rest) do put(k) end
  return out
end

--- Whether column `c` of `t` holds numbers (its first value is one; a
-- derived column with no value yet counts): right-aligned, and compared.
-- @tparam Table t the table
-- @tab c a column spec
-- @treturn boolean
function tablemodel.is_numeric(t, c)
  for _, row in ipairs(t.rows) do
    local v = value(c, row)
    if v ~= nil then return type(v) == "number" end
  end
  return c.derived or false
end

--- Whether `t` is a table of this model (made by tablemodel.new).
-- @param t any value
-- @treturn boolean
function tablemodel.is(t) return getmetatable(t) == Table end

local function finite(v)
  if type(v) == "number" and (v ~= v or v == math.huge or v == -math.huge) then return nil end
  return v
end

local OBJECT = { __jsontype = "object" } -- dkjson: {} is written as an object, not []

--- The table as plain data (what JSON holds): raw values, companions included.
function Table:data()
  local cols = self:resolved_columns()
  local meta = setmetatable({}, OBJECT)
  for k, v in pairs(self.meta) do meta[k] = v end
  local d = { title = self.title, id = self.id, columns = {}, rows = {}, cells = {}, notes = self.notes,
    meta = meta }
  for j, c in ipairs(cols) do
    d.columns[j] = { name = c.name, unit = c.ns and "ns" or c.unit, key = c.key or nil, compare = c.compare or nil,
      display_unit = c.ns and (c.unit or "") or nil, spread = c.spread or nil }
  end
  for i, row in ipairs(self.rows) do
    local r, text = setmetatable({}, OBJECT), {}
    for j, c in ipairs(cols) do
      local v = value(c, row)
      text[j] = cell(c, row)
      if type(v) ~= "number" and type(v) ~= "boolean" and v ~= nil then v = tostring(v) end
      r[c.name] = finite(v)
    end
    d.rows[i], d.cells[i] = r, text
  end
  return d
end

local CELLS = {} -- a row's cells as the original table rendered them (tablemodel.from_data)

--- A table rebuilt from its data (Table:data(), e.g. read back from JSON),
-- rendering its cells as the original table did (raw values stay the values,
-- for --compare and CSV).
function tablemodel.from_data(d)
  local cols = {}
  for j, c in ipairs(d.columns) do
    cols[j] = { name = c.name, unit = c.unit, key = c.key, compare = c.compare, spread = c.spread }
    if c.display_unit then -- nanoseconds shown in another unit
      cols[j].unit, cols[j].ns = c.display_unit ~= "" and c.display_unit or nil, true
    end
    if d.cells then
      cols[j].format = function(v, row)
        local cs = row[CELLS]
        return cs and cs[j] or units.format_number(v)
      end
    end
  end
  local t = tablemodel.new{ title = d.title, id = d.id, columns = cols, meta = d.meta, notes = d.notes }
  for i, r in ipairs(d.rows or {}) do
    local row = {}
    for k, v in pairs(r) do row[k] = v end
    row[CELLS] = d.cells and d.cells[i]
    t.rows[i] = row
  end
  return t
end

--- A copy of `t` without the columns that no row fills (every cell "-": a
-- "theoretical" the device does not tell, say); key columns stay. The rows
-- and notes are shared with `t`.
-- @tparam Table t
-- @treturn Table
function tablemodel.without_empty(t)
  local keep = {}
  for _, c in ipairs(t.columns) do
    local used = c.key or #t.rows == 0
    for _, row in ipairs(t.rows) do
      if used then break end
      used = value(c, row) ~= nil
    end
    if used then keep[#keep + 1] = c end
  end
  if #keep == #t.columns then return t end
  local out = setmetatable({}, Table)
  for k, v in pairs(t) do out[k] = v end
  out.columns = keep
  return out
end

--- Calls f(...) with the C locale's numbers, and restores the locale after:
-- whatever os.setlocale a recipe or module called, "%.2f" and tostring write
-- "1.50", not "1,50", so that CSV, JSON, Markdown and text read the same
-- everywhere (clua itself never leaves the C locale).
-- @func f the function
-- @return what f returns
function tablemodel.c_numeric(f, ...)
  local old = os.setlocale(nil, "numeric")
  if old == nil or old == "C" or old == "POSIX" then return f(...) end
  os.setlocale("C", "numeric")
  local r = table.pack(pcall(f, ...))
  os.setlocale(old, "numeric")
  if not r[1] then error(r[2], 0) end
  return table.unpack(r, 2, r.n)
end

do
  local data = Table.data
  Table.data = function(self) return tablemodel.c_numeric(data, self) end
end
return tablemodel
