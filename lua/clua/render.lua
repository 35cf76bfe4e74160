--- clua.render: a results table (clua.tablemodel) as text for a reader:
-- aligned terminal text, CSV (with its metadata sidecar), Markdown and JSON,
-- each written with the C locale's numbers. clua.report re-exports these
-- as report.text, report.csv, report.csv_meta, report.markdown and
-- report.json; the web page of the same tables is clua.html.
-- @module clua.render
local json = require("dkjson")
local escape = require("clua.escape")
local options = require("clua.options")
local tablemodel = require("clua.tablemodel")

local render = {}
local value, cell, is_numeric = tablemodel.value, tablemodel.cell, tablemodel.is_numeric

local function width(s) return utf8.len(s) or #s end

local function pad(s, w, right)
  local fill = (" "):rep(w - width(s))
  return right and fill .. s or s .. fill
end

--- Aligned text for a terminal: title, metadata, a two-line header (names,
-- then units), rows, notes; every control character in them shown as an
-- escape (clua.escape.terminal).
function render.text(t)
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
-- JSON (`render.csv_meta` for a sidecar file); `{comments = true}` puts them
-- before the header as "# title" and "# key: value" lines instead.
function render.csv(t, opts)
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
function render.markdown(t)
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
function render.json(t, extra)
  if tablemodel.is(t) then return encode(t:data(), extra) end
  local doc = { tables = {} }
  for i, x in ipairs(t) do doc.tables[i] = x:data() end
  return encode(doc, extra)
end

--- What a plain CSV file of `t` leaves out, as JSON: the table's id, title,
-- columns (names, units, which are keys), metadata and notes, without the
-- rows, plus the fields of `extra` (recipe, date, options ...). A recipe's
-- --csv writes it beside each CSV file (`FILE.meta.json`).
function render.csv_meta(t, extra)
  local d = t:data()
  d.rows, d.cells = nil, nil
  return encode(d, extra)
end

-- Every rendering writes its numbers in the C locale.
for _, name in ipairs({ "text", "csv", "markdown", "json", "csv_meta" }) do
  local f = render[name]
  render[name] = function(...) return tablemodel.c_numeric(f, ...) end
end

return render
