--- clua.saved: the runs saved as JSON, read back, and a table compared with
-- one (a recipe's and the card's `--compare FILE`): each compared column's
-- ratio to the saved run's, judged against both runs' noise where they
-- have a spread. clua.report re-exports these as report.decode, report.load
-- and report.compare.
-- @module clua.saved
local options = require("clua.options")
local jsonin = require("clua.jsonin")
local schema = require("clua.schema")
local tablemodel = require("clua.tablemodel")

local saved = {}
local is_numeric = tablemodel.is_numeric

--- Decodes JSON text (raises on a parse error, or on text nested deeper
-- than clua.jsonin allows).
function saved.decode(text)
  local ok, d = pcall(jsonin.decode, text, "report")
  if not ok then error(d, 2) end
  return d
end

--- Reads and decodes a JSON file.
-- A file written by clua.render.json or a recipe's --json, at most
-- clua.jsonin.MAX_BYTES and nested no deeper than it allows. Given `kind` (a key
-- of clua.schema.SCHEMAS), a file of another kind or of another version of its
-- schema is refused with the reason (clua.schema.check), so that no
-- column is compared with one of another name or unit.
-- @string path the file
-- @string[opt] kind the kind of file wanted: "recipe", "card", ...
function saved.load(path, kind)
  local ok, doc = pcall(jsonin.read, path)
  if not ok then error("report: " .. doc, 2) end
  if kind then
    local fits, why = schema.check(doc, kind)
    if not fits then error(("report: refusing to compare with %s: %s"):format(path, why), 0) end
    -- a card's tables are compared one recipe at a time: each carries the note
    for _, r in ipairs(doc.schema_note and doc.recipes or {}) do
      for _, x in ipairs(r.tables or {}) do x.schema_note = doc.schema_note end
    end
  end
  return doc
end

local function key_string(v)
  if type(v) == "number" then return ("%.10g"):format(v) end
  return tostring(v)
end

--- A copy of `t` with, after each compared column, its ratio to the matching
-- row of `doc` (decoded JSON: one table, or a document with `tables`, where
-- the table of the same id is used). Rows match on the key columns (the
-- columns marked key=true, else the first column) that the saved table has. The compared columns are
-- those marked compare=true, else the first numeric non-key column.
-- ratio = this run / saved run; "-" where no saved row matches.
function saved.compare(t, doc, opts)
  opts = options.check(opts, "report.compare", { "file" })
  if doc.schema ~= nil then
    local ok, why = schema.check(doc, "recipe")
    if not ok then error(("report.compare: refusing to compare with %s: %s"):format(opts.file or "saved JSON", why), 2) end
  end
  local st = doc
  if doc.tables then
    st = nil
    for _, x in ipairs(doc.tables) do if x.id == t.id then st = x end end
    if not st and #doc.tables == 1 then st = doc.tables[1] end
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
  local out = tablemodel.new{ title = t.title, id = t.id, columns = columns, meta = t.meta,
    notes = t.notes, theoretical = t.theoretical }
  out.rows = t.rows
  local sm = st and st.meta or doc.meta or {}
  -- a document's own meta.device (a label such as "NAME [P:D]") names the device first
  local device = doc.meta and doc.meta.device or sm.device
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
  local schema_note = doc.schema_note or (st and st.schema_note)
  if schema_note then out:note(("%s: %s"):format(opts.file or "saved JSON", schema_note)) end
  if spread_col then
    out:note(("vs noise: beyond when the change is larger than half the sum of the two runs' %s (the ranges "
      .. "their repetitions span do not overlap), within otherwise: within, a ratio is noise, not a change")
      :format(spread_col))
  end
  return out
end


return saved
