--- clua.jsonin: JSON read from outside, bounded and checked (a saved run
-- to compare with, a saved card to render). A file larger than
-- jsonin.MAX_BYTES or nested deeper than jsonin.MAX_DEPTH is refused with a
-- message before it is decoded (no stack overflow, no minutes of work), and
-- jsonin.check holds a decoded document to a shape, naming the field at
-- fault ("recipes[3].seconds: a number expected, found a string") where a
-- renderer would otherwise fail deep inside with a traceback.
-- @module clua.jsonin
local json = require("dkjson")

local jsonin = {}

--- The largest JSON file read, in bytes (a device report card is about
-- 0.4 MiB; decoding 16 MiB takes about 3 s).
jsonin.MAX_BYTES = 16 * 1024 * 1024

--- The deepest nesting of arrays and objects read (clua's files nest 8 deep).
jsonin.MAX_DEPTH = 100

-- The deepest nesting of `text` outside its strings, or nil and the offset
-- where it passes `max`.
local function depth(text, max)
  local d, deepest, pos = 0, 0, 1
  while true do
    pos = text:find('[%[%]{}"]', pos)
    if not pos then return deepest end
    local c = text:byte(pos)
    if c == 34 then -- a string: to its closing quote, over escapes
      local q = pos + 1
      while true do
        q = text:find('["\\]', q)
        if not q then return deepest end -- unterminated: the decoder says so
        if text:byte(q) == 92 then q = q + 2 else break end
      end
      pos = q + 1
    else
      if c == 91 or c == 123 then
        d = d + 1
        if d > max then return nil, pos end
        if d > deepest then deepest = d end
      else
        d = d - 1
      end
      pos = pos + 1
    end
  end
end

--- Decodes JSON text, refusing text nested deeper than jsonin.MAX_DEPTH.
-- @string text the JSON text
-- @string[opt="JSON"] what what it is, for the messages ("card.json")
-- @return the decoded value
-- @raise "WHAT: bad JSON: ..." or "WHAT: nested deeper than N arrays and objects (at byte B)"
function jsonin.decode(text, what)
  what = what or "JSON"
  if type(text) ~= "string" then error(what .. ": no JSON text", 2) end
  local ok, at = depth(text, jsonin.MAX_DEPTH)
  if not ok then
    error(("%s: nested deeper than %d arrays and objects (at byte %d): not a file clua wrote"):format(what,
      jsonin.MAX_DEPTH, at), 2)
  end
  local d, _, err = json.decode(text, 1, nil)
  if err then error(what .. ": bad JSON: " .. err, 2) end
  return d
end

--- Reads and decodes a JSON file, refusing one larger than jsonin.MAX_BYTES
-- (or nested too deep: jsonin.decode).
-- @string path the file
-- @return the decoded value
-- @raise "PATH: cannot read ...", "PATH: N bytes, more than ... a JSON input may have", or jsonin.decode's
function jsonin.read(path)
  local f, err = io.open(path, "rb")
  if not f then error("cannot read " .. tostring(err), 2) end
  local size = f:seek("end")
  if not size then f:close(); error(path .. ": cannot read it: not a regular file", 2) end
  if size > jsonin.MAX_BYTES then
    f:close()
    error(("%s: %d bytes, more than the %d a JSON input may have (jsonin.MAX_BYTES)"):format(path, size,
      jsonin.MAX_BYTES), 2)
  end
  f:seek("set")
  local text = f:read(jsonin.MAX_BYTES + 1)
  f:close()
  local ok, d = pcall(jsonin.decode, text or "", path)
  if not ok then error(d, 2) end
  return d
end

local function kind_of(v)
  if type(v) ~= "table" then return type(v) end
  local mt = getmetatable(v)
  if mt and (mt.__jsontype == "object" or mt.__jsontype == "array") then return mt.__jsontype end
  if next(v) == nil then return "empty" end -- a table not from the decoder: {} or []
  return (rawget(v, 1) ~= nil) and "array" or "object"
end

local function fail(where, msg) error(("%s: %s"):format(where, msg), 0) end

--- Checks a decoded value against a shape, naming the first field at fault.
-- A shape is a type name ("string", "number", "integer", "boolean",
-- "object", "array", "any"), a list of type names (any of them), or a table
-- {type=, fields= {name = shape}, required= {names}, values= shape (of
-- every field of an object), items= shape, max= (the most items), min= (the
-- least number)}. A field not in `fields` is left as it is (it is not read).
-- @param v the value
-- @param shape its shape
-- @string where the value's name for the messages ("card.json")
-- @raise "WHERE.field[3]: a number expected, found a string"
function jsonin.check(v, shape, where)
  if type(shape) == "string" then shape = { type = shape } end
  if shape[1] then shape = { type = shape } end
  local want = shape.type
  local k = kind_of(v)
  local function is(t)
    if t == "any" then return true end
    if t == "integer" then return math.type(v) == "integer" or (type(v) == "number" and v == math.floor(v)) end
    if t == "object" or t == "array" then return k == t or k == "empty" end
    return k == t
  end
  local ok = false
  for _, t in ipairs(type(want) == "table" and want or { want }) do ok = ok or is(t) end
  if not ok then
    local names = type(want) == "table" and table.concat(want, " or ") or want
    fail(where, ("%s %s expected, found %s"):format(names:match("^[aeiou]") and "an" or "a", names,
      k == "empty" and "an empty table" or (k:match("^[aeiou]") and "an " or "a ") .. k))
  end
  if shape.min and type(v) == "number" and v < shape.min then
    fail(where, ("%s is below %s"):format(tostring(v), tostring(shape.min)))
  end
  if shape.fields and type(v) == "table" then
    for _, name in ipairs(shape.required or {}) do
      if v[name] == nil then fail(where, ("no field \"%s\""):format(name)) end
    end
    for name, s in pairs(shape.fields) do
      if v[name] ~= nil then jsonin.check(v[name], s, where .. "." .. name) end
    end
  end
  if shape.values and kind_of(v) == "object" then
    for name, x in pairs(v) do jsonin.check(x, shape.values, ("%s.%s"):format(where, tostring(name))) end
  end
  if shape.items and type(v) == "table" then
    if shape.max and #v > shape.max then fail(where, ("%d items, more than %d"):format(#v, shape.max)) end
    for i, x in ipairs(v) do jsonin.check(x, shape.items, ("%s[%d]"):format(where, i)) end
  end
  return v
end

return jsonin
