--- clua.report: one model of a results table (title, columns, rows, notes,
-- metadata) and its renderings: aligned terminal text, CSV, JSON, Markdown;
-- and the comparison of a table with a saved JSON of an earlier run.
-- @module clua.report
local json = require "dkjson"
local units = require "clua.units"
local options = require "clua.options"
local escape = require "clua.escape"
local jsonin = require "clua.jsonin"

local report = {}

--- The schema of each kind of JSON file clua writes, by kind: its version.
-- A file says which it follows in its field `schema`, "clua.KIND/N"
-- (report.schema); the JSON Schema of each is schema/KIND-N.json, and
-- docs/schema.md says when N changes (a field renamed or removed, or its
-- unit or meaning changed) and when it does not (a field added).
--   recipe     a recipe's --json (clua.output)
--   csv-meta   the metadata sidecar of a recipe's --csv file (FILE.meta.json)
--   card       the device report card's JSON (recipes/report.lua)
--   gradebook  the grader's STEM.json (recipes/grade.lua)
report.SCHEMAS = { recipe = 1, ["csv-meta"] = 1, card = 1, gradebook = 1 }

--- The schema string of a kind of file: "clua.recipe/1".
-- @string kind a key of report.SCHEMAS
function report.schema(kind)
  local n = report.SCHEMAS[kind]
  if not n then error("report.schema: no kind of file '" .. tostring(kind) .. "'", 2) end
  return ("clua.%s/%d"):format(kind, n)
end

local KIND_NAMES = { recipe = "a recipe's --json", ["csv-meta"] = "the metadata of a CSV file",
  card = "a device report card", gradebook = "a gradebook", cluster = "a cluster report" }

-- The kind of a file written before files named their schema, from its fields.
local function legacy_kind(doc)
  if doc.report == "clua device report" then return "card" end
  if doc.report == "clua cluster report" then return "cluster" end
  if doc.grader then return "gradebook" end
  if doc.tables or doc.rows then return "recipe" end
  if doc.columns then return "csv-meta" end
end

--- Whether a decoded file is of `kind` in the version this clua reads.
-- A file without a `schema` field (written before clua's JSON named its
-- schema) is read as version 1 of the kind its fields show; `doc.schema_note`
-- then says so.
-- @tab doc the decoded file
-- @string kind a key of report.SCHEMAS
-- @return true, or nil and the reason
function report.check_schema(doc, kind)
  if type(doc) ~= "table" then return nil, "not a JSON object" end
  local want = report.schema(kind)
  local s = doc.schema
  if s == nil then
    local k = legacy_kind(doc)
    if k ~= kind then
      return nil, ("it has no \"schema\" field and looks like %s, not %s (%s)")
        :format(KIND_NAMES[k] or "nothing clua writes", KIND_NAMES[kind], want)
    end
    doc.schema_note = ("it has no \"schema\" field (written before clua's JSON named its schema): read as %s"):format(
      ("clua.%s/1"):format(kind))
    if report.SCHEMAS[kind] ~= 1 then return nil, doc.schema_note .. ", and this clua reads " .. want end
    return true
  end
  local k, n = tostring(s):match("^clua%.([%w-]+)/(%d+)$")
  if not k then return nil, ("its schema '%s' is not clua's (clua.KIND/N)"):format(tostring(s)) end
  if k ~= kind then
    return nil, ("it is %s (%s), not %s (%s)"):format(KIND_NAMES[k] or ("a clua." .. k), s, KIND_NAMES[kind], want)
  end
  if tonumber(n) ~= report.SCHEMAS[kind] then
    return nil, ("it follows %s and this clua reads %s: %s, whose columns may have other names or units "
      .. "(docs/schema.md)"):format(s, want, tonumber(n) > report.SCHEMAS[kind] and "a newer schema" or "an older schema")
  end
  return true
end

local Report = {}
Report.__index = Report

local function slug(s)
  return (tostring(s or "table"):lower():gsub("[^%w]+", "-"):gsub("^%-+", ""):gsub("%-+$", ""))
end

report.OPTIONS = { "title", "id", "columns", "rows", "notes", "meta", "theoretical" }
report.COLUMN = { "name", "unit", "format", "key", "compare", "theoretical", "divisor", "value", "derived", "ns", "spread",
  "ratio", "better", "verdict", "cache" }

--- A new results table (a `Report`: the methods `Report:...` below).
-- report.new{title=, id=, columns={...}, rows=, notes=, meta=, theoretical=}
-- A column is a name or {name=, unit=, format=, key=, compare=, theoretical=, divisor=}:
--   format       a printf format ("%.2f") or function(value, row) -> string
--                (default: units.format_number)
--   key          true for the columns that identify a row (used by compare)
--   compare      true for the columns that --compare shows as ratios
--   theoretical  "memory" or "pcie": a bandwidth column, in units of `divisor`
--                B/s (default 10^9), that gets a "% of peak" companion column
--                when the report's theoretical bandwidth of that kind is known
--   value        function(row) -> value, for a column computed from others
--   spread       true for a column of clua.noise spreads (noise.column)
--   ratio        (report.compare) the name of the column this one is the
--                ratio of to the saved run; better: "higher" or "lower" (which
--                way that column improves), nil when its unit does not say
--   verdict      (report.compare) the name of the column whose ratio this
--                column judges against the noise ("beyond" or "within")
--   cache        true for a column whose cells may be cache figures, or the
--                name its cache note ends with (clua.rows: R:cache_column)
--   ns           true when the values are nanoseconds that `format` shows in
--                `unit` (or as units.format_time does): CSV and JSON keep the
--                nanoseconds and name their unit "ns" (JSON: unit = "ns",
--                display_unit = the shown unit)
-- `theoretical` is {memory=B/s, pcie=B/s} or device facts (clua.device).
function report.new(spec)
  options.check(spec, "report.new", report.OPTIONS)
  for _, c in ipairs(spec.columns or {}) do
    if type(c) == "table" then options.check(c, "report.new: column '" .. tostring(c.name) .. "'", report.COLUMN) end
  end
  local t = setmetatable({
    title = spec.title or "", id = spec.id or slug(spec.title),
    columns = {}, rows = {}, notes = {}, meta = {}, theoretical = spec.theoretical,
  }, Report)
  for i, c in ipairs(spec.columns or {}) do
    t.columns[i] = type(c) == "table" and c or { name = c }
  end
  for k, v in pairs(spec.meta or {}) do t.meta[k] = v end
  for _, n in ipairs(spec.notes or {}) do t:note(n) end
  for _, r in ipairs(spec.rows or {}) do t:add(r) end
  return t
end

--- Adds a row: a table keyed by column name, or a list in column order.
function Report:add(row)
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
function Report:note(text) self.notes[#self.notes + 1] = text; return self end

--- Adds a note unless the table has one of the same text already (a note
-- each of many results may carry, said once); returns the table.
function Report:note_once(text)
  for _, n in ipairs(self.notes) do if n == text then return self end end
  return self:note(text)
end

--- The column spec named `name`, or nil.
function Report:column(name)
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
function Report:resolved_columns()
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

local function value(c, row)
  if c.value then return c.value(row) end
  return row[c.name]
end

local function cell(c, row)
  local v = value(c, row)
  if v == nil then return "-" end
  local f = c.format
  if type(f) == "function" then return tostring(f(v, row)) end
  if type(f) == "string" and type(v) == "number" then return f:format(v) end
  return units.format_number(v)
end

local meta_order = { "recipe", "device", "platform", "driver", "clua", "date", "reps", "warmup",
  "timing", "bandwidth", "options", "compared_with" }

--- Metadata as a list of {key, value-as-text}, in a fixed order.
function Report:meta_list()
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

local function width(s) return utf8.len(s) or #s end

local function pad(s, w, right)
  local fill = (" "):rep(w - width(s))
  return right and fill .. s or s .. fill
end

local function is_numeric(t, c)
  for _, row in ipairs(t.rows) do
    local v = value(c, row)
    if v ~= nil then return type(v) == "number" end
  end
  return c.derived or false
end

--- Aligned text for a terminal: title, metadata, a two-line header (names,
-- then units), rows, notes; every control character in them shown as an
-- escape (clua.escape.terminal).
function report.text(t)
  local cols = t:resolved_columns()
  local head, unit, body, w, right = {}, {}, {}, {}, {}
  local any_unit = false
  for j, c in ipairs(cols) do
    head[j], unit[j] = escape.terminal(c.name), escape.terminal(c.unit or "")
    any_unit = any_unit or unit[j] ~= ""
    w[j] = math.max(width(head[j]), width(unit[j]))
    right[j] = is_numeric(t, c)
  end
  for i, row in ipairs(t.rows) do
    body[i] = {}
    for j, c in ipairs(cols) do
      body[i][j] = escape.terminal((cell(c, row):gsub("[\r\n]+", " ")))
      w[j] = math.max(w[j], width(body[i][j]))
    end
  end
  local out = {}
  local function line(cells)
    local parts = {}
    for j = 1, #cols do parts[j] = pad(cells[j], w[j], right[j]) end
    out[#out + 1] = (table.concat(parts, "  "):gsub("%s+$", ""))
  end
  if t.title ~= "" then out[#out + 1] = escape.terminal(t.title) end
  local m = {}
  for _, kv in ipairs(t:meta_list()) do m[#m + 1] = escape.terminal(kv[1] .. " " .. kv[2]) end
  local meta_line = ""
  for _, part in ipairs(m) do  -- wrapped at 80 columns
    if meta_line ~= "" and width(meta_line) + 3 + width(part) > 80 then
      out[#out + 1] = meta_line
      meta_line = ""
    end
    meta_line = meta_line == "" and part or meta_line .. " · " .. part
  end
  if meta_line ~= "" then out[#out + 1] = meta_line end
  out[#out + 1] = ""
  line(head)
  if any_unit then line(unit) end
  local rule = {}
  for j = 1, #cols do rule[j] = ("-"):rep(w[j]) end
  line(rule)
  for i = 1, #body do line(body[i]) end
  for _, n in ipairs(t.notes) do out[#out + 1] = "  " .. escape.terminal(n, { lines = true }) end
  return table.concat(out, "\n") .. "\n"
end

local function header(c)
  if c.unit and c.unit ~= "" then return c.name .. " (" .. c.unit .. ")" end
  return c.name
end

-- The header of a column in files that hold raw values (CSV).
local function raw_header(c)
  if c.ns then return c.name .. " (ns)" end
  return header(c)
end

-- A field: a number as a number, a text as clua.escape.csv writes it (a
-- leading = + - @ tab or CR behind a ', against formula injection), and
-- quoted where it starts or ends with a space (which a reader may trim).
local function csv_field(v)
  if type(v) == "boolean" then v = tostring(v) end
  local s = escape.csv(v)
  if not s:match('^"') and (s:match("^%s") or s:match("%s$")) then s = '"' .. s .. '"' end
  return s
end

--- CSV: plain RFC 4180, as spreadsheets and `pandas.read_csv` expect: a
-- header row ("name (unit)") first, then the raw values (full precision, not
-- the display format); numbers stay numbers, and a text that starts with
-- = + - @ tab or CR gets a ' first, so that no spreadsheet reads a cell as a
-- formula (clua.escape.csv). The title and metadata are not in it: they go to the
-- JSON (`report.csv_meta` for a sidecar file); `{comments = true}` puts them
-- before the header as "# title" and "# key: value" lines instead.
function report.csv(t, opts)
  opts = options.check(opts, "report.csv", { "comments" })
  local cols = t:resolved_columns()
  local out = {}
  if opts.comments then
    if t.title ~= "" then out[#out + 1] = "# " .. escape.utf8(t.title):gsub("[\r\n]", " ") end
    for _, kv in ipairs(t:meta_list()) do
      out[#out + 1] = ("# %s: %s"):format(kv[1], escape.utf8(kv[2]):gsub("[\r\n]", " "))
    end
  end
  local h = {}
  for j, c in ipairs(cols) do h[j] = csv_field(raw_header(c)) end
  out[#out + 1] = table.concat(h, ",")
  for _, row in ipairs(t.rows) do
    local f = {}
    for j, c in ipairs(cols) do f[j] = csv_field(value(c, row)) end
    out[#out + 1] = table.concat(f, ",")
  end
  return table.concat(out, "\r\n") .. "\r\n"
end

local md_escape = escape.markdown

--- Markdown: a heading, a pipe table (numbers right-aligned), metadata and
-- notes; every text in them escaped (clua.escape.markdown): no HTML, link or
-- other Markdown syntax from a name or a message acts.
function report.markdown(t)
  local cols = t:resolved_columns()
  local out = {}
  if t.title ~= "" then out[#out + 1] = "### " .. md_escape(t.title); out[#out + 1] = "" end
  local h, a = {}, {}
  for j, c in ipairs(cols) do
    h[j] = md_escape(header(c))
    a[j] = is_numeric(t, c) and "---:" or ":---"
  end
  out[#out + 1] = "| " .. table.concat(h, " | ") .. " |"
  out[#out + 1] = "|" .. table.concat(a, "|") .. "|"
  for _, row in ipairs(t.rows) do
    local f = {}
    for j, c in ipairs(cols) do f[j] = md_escape((cell(c, row):gsub("[\r\n]+", " "))) end
    out[#out + 1] = "| " .. table.concat(f, " | ") .. " |"
  end
  local m = {}
  for _, kv in ipairs(t:meta_list()) do m[#m + 1] = md_escape(kv[1]) .. ": " .. md_escape(kv[2]) end
  if #m > 0 then out[#out + 1] = ""; out[#out + 1] = "*" .. table.concat(m, "; ") .. "*" end
  if #t.notes > 0 then
    out[#out + 1] = ""
    for _, n in ipairs(t.notes) do out[#out + 1] = "- " .. md_escape((tostring(n):gsub("[\r\n]+", " "))) end
  end
  return table.concat(out, "\n") .. "\n"
end

local function finite(v)
  if type(v) == "number" and (v ~= v or v == math.huge or v == -math.huge) then return nil end
  return v
end

local OBJECT = { __jsontype = "object" } -- dkjson: {} is written as an object, not []

--- The table as plain data (what JSON holds): raw values, companions included.
function Report:data()
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

local CELLS = {} -- a row's cells as the original table rendered them (report.from_data)

--- A table rebuilt from its data (Report:data(), e.g. read back from JSON),
-- rendering its cells as the original table did (raw values stay the values,
-- for --compare and CSV).
function report.from_data(d)
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
  local t = report.new{ title = d.title, id = d.id, columns = cols, meta = d.meta, notes = d.notes }
  for i, r in ipairs(d.rows or {}) do
    local row = {}
    for k, v in pairs(r) do row[k] = v end
    row[CELLS] = d.cells and d.cells[i]
    t.rows[i] = row
  end
  return t
end

local keyorder = { "schema", "recipe", "title", "id", "name", "unit", "display_unit", "key", "compare", "spread", "columns", "rows",
  "notes", "meta", "tables" }

-- A document (one table's data, or {tables = ...}) with extra's fields, as
-- indented JSON in a fixed key order.
local function encode(doc, extra)
  for k, v in pairs(extra or {}) do doc[k] = v end
  local order = table.move(keyorder, 1, #keyorder, 1, {})
  for _, d in ipairs(doc.tables or { doc }) do
    for _, c in ipairs(d.columns) do order[#order + 1] = c.name end
  end
  return escape.json(json.encode(doc, { indent = true, keyorder = order })) .. "\n"
end

--- JSON of one table, or of a document {tables={...}, ...} when given a list of tables.
function report.json(t, extra)
  if getmetatable(t) == Report then return encode(t:data(), extra) end
  local doc = { tables = {} }
  for i, x in ipairs(t) do doc.tables[i] = x:data() end
  return encode(doc, extra)
end

--- What a plain CSV file of `t` leaves out, as JSON: the table's id, title,
-- columns (names, units, which are keys), metadata and notes, without the
-- rows, plus the fields of `extra` (recipe, date, options ...). A recipe's
-- --csv writes it beside each CSV file (`FILE.meta.json`).
function report.csv_meta(t, extra)
  local d = t:data()
  d.rows, d.cells = nil, nil
  return encode(d, extra)
end

--- Decodes JSON text (raises on a parse error, or on text nested deeper
-- than clua.jsonin allows).
function report.decode(text)
  local ok, d = pcall(jsonin.decode, text, "report")
  if not ok then error(d, 2) end
  return d
end

--- Reads and decodes a JSON file.
-- A file written by report.json or a recipe's --json, at most
-- clua.jsonin.MAX_BYTES and nested no deeper than it allows. Given `kind` (a key
-- of report.SCHEMAS), a file of another kind or of another version of its
-- schema is refused with the reason (report.check_schema), so that no
-- column is compared with one of another name or unit.
-- @string path the file
-- @string[opt] kind the kind of file wanted: "recipe", "card", ...
function report.load(path, kind)
  local ok, doc = pcall(jsonin.read, path)
  if not ok then error("report: " .. doc, 2) end
  if kind then
    local fits, why = report.check_schema(doc, kind)
    if not fits then error(("report: refusing to compare with %s: %s"):format(path, why), 0) end
    -- a card's tables are compared one recipe at a time: each carries the note
    for _, r in ipairs(doc.schema_note and doc.recipes or {}) do
      for _, x in ipairs(r.tables or {}) do x.schema_note = doc.schema_note end
    end
  end
  return doc
end

--- A copy of `t` without the columns that no row fills (every cell "-": a
-- "theoretical" the device does not tell, say); key columns stay. The rows
-- and notes are shared with `t`.
-- @tparam clua.report t
-- @treturn clua.report
function report.without_empty(t)
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
  local out = setmetatable({}, Report)
  for k, v in pairs(t) do out[k] = v end
  out.columns = keep
  return out
end

local function key_string(v)
  if type(v) == "number" then return ("%.10g"):format(v) end
  return tostring(v)
end

--- A copy of `t` with, after each compared column, its ratio to the matching
-- row of `saved` (decoded JSON: one table, or a document with `tables`, where
-- the table of the same id is used). Rows match on the key columns (the
-- columns marked key=true, else the first column) that the saved table has. The compared columns are
-- those marked compare=true, else the first numeric non-key column.
-- ratio = this run / saved run; "-" where no saved row matches.
function report.compare(t, saved, opts)
  opts = options.check(opts, "report.compare", { "file" })
  if saved.schema ~= nil then
    local ok, why = report.check_schema(saved, "recipe")
    if not ok then error(("report.compare: refusing to compare with %s: %s"):format(opts.file or "saved JSON", why), 2) end
  end
  local st = saved
  if saved.tables then
    st = nil
    for _, x in ipairs(saved.tables) do if x.id == t.id then st = x end end
    if not st and #saved.tables == 1 then st = saved.tables[1] end
  end
  local keys, cmp = {}, {}
  for _, c in ipairs(t.columns) do
    if c.key then keys[#keys + 1] = c.name end
    if c.compare then cmp[#cmp + 1] = c.name end
  end
  if #keys == 0 and t.columns[1] then keys[1] = t.columns[1].name end
  if st and st.columns then
    -- match on the key columns both runs have (a --device all run has a device column)
    local has, kept = {}, {}
    for _, c in ipairs(st.columns) do has[c.name] = true end
    for _, k in ipairs(keys) do if has[k] then kept[#kept + 1] = k end end
    if #kept > 0 then keys = kept end
  end
  if #cmp == 0 then
    for _, c in ipairs(t.columns) do
      if not c.key and c.name ~= keys[1] and not c.value and is_numeric(t, c) then cmp[1] = c.name; break end
    end
  end
  local index = {}
  local function key_of(row)
    local parts = {}
    for i, k in ipairs(keys) do parts[i] = key_string(row[k]) end
    return table.concat(parts, "\0")
  end
  for _, row in ipairs(st and st.rows or {}) do index[key_of(row)] = row end

  -- The table's first spread column (clua.noise), the figure's own (one
  -- further right may be another side's, as the C program's in
  -- recipes/launch.lua), if the saved run has it too: a difference is beyond
  -- the noise when the ranges the two spreads span around the two values do
  -- not overlap: |now - old| > (spread now + spread saved) / 2 % of old.
  local spread_col
  for _, c in ipairs(t.columns) do
    if c.spread then
      for _, sc in ipairs(st and st.columns or {}) do if sc.name == c.name then spread_col = c.name end end
      break
    end
  end
  local columns, is_cmp = {}, {}
  for _, n in ipairs(cmp) do is_cmp[n] = true end
  -- which way is better, from each compared column's unit: a time above 1 is slower, a rate faster
  local function way_of(c)
    local u = tostring(c.unit or "")
    return (u:match("^[num]?s$") or u == "µs") and "slower" -- (µ is two bytes: not in a character class)
      or ((u:find("/s", 1, true) or u:match("FLOPS$") or u:match("OPS$")) and "faster") or nil
  end
  for _, c in ipairs(t.columns) do
    columns[#columns + 1] = c
    if is_cmp[c.name] then
      local name = c.name
      local function ratio(row)
        local old = index[key_of(row)]
        old = old and old[name]
        local now = row[name]
        if type(old) == "number" and type(now) == "number" and old ~= 0 then return now / old end
      end
      columns[#columns + 1] = {
        name = #cmp == 1 and "vs saved" or name .. " vs saved", unit = "ratio", format = "%.3f", value = ratio,
        ratio = name, better = ({ slower = "lower", faster = "higher" })[way_of(c)],
      }
      if spread_col then
        columns[#columns + 1] = {
          name = #cmp == 1 and "vs noise" or name .. " vs noise", verdict = columns[#columns].name,
          value = function(row)
            local r, old = ratio(row), index[key_of(row)]
            local s_now, s_old = row[spread_col], old and old[spread_col]
            if not r or type(s_now) ~= "number" or type(s_old) ~= "number" then return nil end
            return math.abs(r - 1) * 100 > (s_now + s_old) / 2 and "beyond" or "within"
          end,
        }
      end
    end
  end
  local out = report.new{ title = t.title, id = t.id, columns = columns, meta = t.meta,
    notes = t.notes, theoretical = t.theoretical }
  out.rows = t.rows
  local sm = st and st.meta or saved.meta or {}
  -- a document's own meta.device (a label such as "NAME [P:D]") names the device first
  local device = saved.meta and saved.meta.device or sm.device
  local ways = {}
  for _, c in ipairs(t.columns) do
    if is_cmp[c.name] then
      local way = way_of(c)
      local label = #cmp == 1 and "" or (c.name .. ": ")
      ways[#ways + 1] = label .. (way and ("above 1 is " .. way) or ("above 1 is a larger " .. c.name))
    end
  end
  out:note(("vs saved = this run / saved run (%s%s%s); %s"):format(opts.file or "saved JSON",
    device and (", " .. tostring(device)) or "", sm.date and (", " .. tostring(sm.date)) or "",
    table.concat(ways, "; ")))
  if not st then out:note("no saved table '" .. t.id .. "' to compare with") end
  local schema_note = saved.schema_note or (st and st.schema_note)
  if schema_note then out:note(("%s: %s"):format(opts.file or "saved JSON", schema_note)) end
  if spread_col then
    out:note(("vs noise: beyond when the change is larger than half the sum of the two runs' %s (the ranges "
      .. "their repetitions span do not overlap), within otherwise: within, a ratio is noise, not a change")
      :format(spread_col))
  end
  return out
end

--- Calls f(...) with the C locale's numbers, and restores the locale after:
-- whatever os.setlocale a recipe or module called, "%.2f" and tostring write
-- "1.50", not "1,50", so that CSV, JSON, Markdown and text read the same
-- everywhere (clua itself never leaves the C locale).
-- @func f the function
-- @return what f returns
function report.c_numeric(f, ...)
  local old = os.setlocale(nil, "numeric")
  if old == nil or old == "C" or old == "POSIX" then return f(...) end
  os.setlocale("C", "numeric")
  local r = table.pack(pcall(f, ...))
  os.setlocale(old, "numeric")
  if not r[1] then error(r[2], 0) end
  return table.unpack(r, 2, r.n)
end

-- Every rendering writes its numbers in the C locale.
for _, name in ipairs({ "text", "csv", "markdown", "json", "csv_meta" }) do
  local f = report[name]
  report[name] = function(...) return report.c_numeric(f, ...) end
end
do
  local data = Report.data
  Report.data = function(self) return report.c_numeric(data, self) end
end

return report
