--- clua.complete: the REPL's tab completion (host/lineedit.c asks it).
-- `candidates("cl.dev")` → `{"cl.device", "cl.devices"}`;
-- `candidates("q:la")` → `{"q:launch"}` when `q` is a queue. Names are looked
-- up from the globals along a chain of fields (`a.b.c`); a table's own keys
-- and those its metatable's `__index` tables give (or, where `__index` is a
-- function, its `methods` table: the methods of a cl object) are offered, after `:` only functions. Nothing is called but
-- `__index` lookups along the chain, each protected: completion never raises.
-- @module clua.complete
local complete = {}

local KEYWORDS = { "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if",
  "in", "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while" }

local function is_name(s) return type(s) == "string" and s:match("^[%a_][%w_]*$") ~= nil end

-- The value of the chain "a.b.c" from the globals, or nil.
local function resolve(chain)
  local v = _G
  for name in chain:gmatch("[^.]+") do
    if not is_name(name) then return nil end
    local kind = type(v)
    if kind ~= "table" and kind ~= "userdata" and kind ~= "string" then return nil end
    local ok, field = pcall(function() return v[name] end)
    if not ok then return nil end
    v = field
  end
  return v
end

-- Adds to `found` the names starting with `prefix` that `v` offers: its own
-- keys (a table) and those of the __index tables of its metatables.
local function collect(v, prefix, methods_only, found)
  for _ = 1, 8 do -- a bounded walk up the __index chain
    if type(v) == "table" then
      for k, x in next, v do
        if is_name(k) and k:sub(1, #prefix) == prefix and (not methods_only or type(x) == "function") then
          found[k] = true
        end
      end
    end
    local mt = debug.getmetatable(v)
    local index = type(mt) == "table" and rawget(mt, "__index")
    -- a cl object's __index is a function; its methods are in mt.methods
    if type(index) == "function" then index = rawget(mt, "methods") end
    if type(index) ~= "table" or index == v then return end
    v = index
  end
end

--- The completions of `text` (the word before the cursor), sorted: each the
-- whole word (`"cl.device"`, not `"device"`).
-- @string text e.g. `"pri"`, `"cl.dev"`, `"q:la"`, `"string.fo"`
-- @treturn {string,...}
function complete.candidates(text)
  local out = {}
  if type(text) ~= "string" then return out end
  local head, sep, prefix = text:match("^(.-)([.:])([%w_]*)$")
  local found = {}
  if head then
    if head == "" or not head:match("^[%a_][%w_.]*$") or head:match("%.%.") or head:match("%.$") then
      return out
    end
    local v = resolve(head)
    if v == nil then return out end
    collect(v, prefix, sep == ":", found)
  else
    if not text:match("^[%a_]?[%w_]*$") then return out end
    prefix = text
    collect(_G, prefix, false, found)
    for _, k in ipairs(KEYWORDS) do
      if k:sub(1, #prefix) == prefix then found[k] = true end
    end
  end
  for k in pairs(found) do out[#out + 1] = (head and head .. sep or "") .. k end
  table.sort(out)
  return out
end

return complete
