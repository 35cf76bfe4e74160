-- The API reference (`make doc`, LDoc, config.ld) cannot drift from the code:
-- every public function, method and field of the `cl` module and every
-- exported function of lua/clua/*.lua must have a doc comment.
--
--   cl module      each function of require "cl" has `@function NAME` (or
--                  `@field`/`@table`) in host/cl.c; each method of a "cl.*"
--                  metatable in the registry has `@function TYPE:NAME` in
--                  host/*.c; each key a host/*.c __index function answers
--                  (strcmp(k, "NAME")) has `@field NAME` under the file's
--                  `@type` in effect there.
--   clua.*         each function of a module table and each method of the
--                  objects it makes (report.new, plot.new, timeline.new,
--                  device.facts, recipe.new) is defined by a line
--                  `function M.NAME(` / `function Class:NAME(` preceded by a
--                  comment block holding a `---` line; each file has `@module`.
--                  A function a module re-exports from another (clua.report
--                  from clua.tablemodel, ...) is documented where it is
--                  defined.
--   LDoc output    where ldoc is installed, `ldoc -d TMP .` runs and every
--                  name above appears as an anchor of its page (LDoc drops a
--                  doc comment silently, e.g. when its first line holds "--").
package.path = "lua/?.lua;lua/?/init.lua;" .. package.path

local cl = require("cl")

local function slurp(path)
  local f = assert(io.open(path))
  local s = f:read("a")
  f:close()
  return s
end

local function lines_of(path)
  local t = {}
  for line in (slurp(path) .. "\n"):gmatch("([^\n]*)\n") do t[#t + 1] = line end
  return t
end

local function listdir(dir, pattern)
  local p = assert(io.popen(("ls %s"):format(dir)))
  local out = {}
  for name in p:lines() do if name:match(pattern) then out[#out + 1] = dir .. "/" .. name end end
  p:close()
  table.sort(out)
  return out
end

local function sorted_keys(t)
  local k = {}
  for name in pairs(t) do k[#k + 1] = name end
  table.sort(k)
  return k
end

-- ---------------------------------------------------------------- host/*.c

-- The doc comments of a C file: blocks /*** ... */, each with its tags, in
-- order; the module and type in effect go with each tag.
local function c_docs(path)
  local text = slurp(path)
  local docs = { module = nil, entries = {}, by_pos = {} }
  local module, typ
  for pos, block in text:gmatch("()/%*%*%*(.-)%*/") do
    module = block:match("@module%s+([%w_.]+)") or module
    local t = block:match("@type%s+([%w_]+)")
    if t then typ = t end
    if block:match("@module") then typ = nil end
    for kind, name in block:gmatch("@(%a+)%s+([%w_.:]+)") do
      if kind == "function" or kind == "field" or kind == "table" then
        docs.entries[#docs.entries + 1] = { kind = kind, name = name, module = module, type = typ, pos = pos }
      end
    end
    docs.by_pos[#docs.by_pos + 1] = { pos = pos, type = typ, module = module }
  end
  docs.module = module
  return docs, text
end

local HOST = listdir("host", "%.c$")
local C = {} -- path -> docs
local C_FUNCTIONS = {} -- "type:method" or "name" (module cl) -> module
local C_FIELDS = {} -- "type.field" -> module
for _, path in ipairs(HOST) do
  local d = c_docs(path)
  C[path] = d
  for _, e in ipairs(d.entries) do
    if e.kind == "function" then
      C_FUNCTIONS[e.name] = e.module
    elseif e.type then
      C_FIELDS[e.type .. "." .. e.name] = e.module
    else
      C_FIELDS[e.name] = e.module
    end
  end
end

-- The type in effect at a position of a C file.
local function type_at(d, pos)
  local typ
  for _, b in ipairs(d.by_pos) do
    if b.pos > pos then break end
    typ = b.type
  end
  return typ
end

-- ---------------------------------------------------------------- lua/clua/*.lua

local LUA = listdir("lua/clua", "%.lua$")

-- "M.name" / "Class:name" defined in a file, each with whether its comment
-- block holds a --- line.
local function lua_defs(path)
  local lines = lines_of(path)
  local defs = {}
  for i, line in ipairs(lines) do
    local owner, sep, name = line:match("^function ([%a_][%w_]*)([.:])([%a_][%w_]*)%s*%(")
    if owner then
      local j, documented = i - 1, false
      while j >= 1 and lines[j]:match("^%-%-") do
        if lines[j]:match("^%-%-%-") then documented = true end
        j = j - 1
      end
      defs[#defs + 1] = { owner = owner, sep = sep, name = name, documented = documented, line = i }
    end
  end
  return defs, lines
end

-- Whether `f`, exported as `name` by the module at `path`, is a function of
-- another lua/clua file documented there: the definition on the line it
-- starts at, else (a wrapper made in a loop) the one of the same name.
local function documented_elsewhere(f, name, path)
  local info = debug.getinfo(f, "S")
  local file = info.source:match("(lua/clua/[%w_]+%.lua)$")
  if not file or file == path then return false end
  local defs = lua_defs(file)
  for _, d in ipairs(defs) do
    if d.line == info.linedefined and d.sep == "." then return d.documented end
  end
  for _, d in ipairs(defs) do
    if d.sep == "." and d.name == name then return d.documented end
  end
  return false
end

local fake_device = { info = { name = "Fake GPU", vendor = "Fake", platform = "Fake CL", driver_version = "1",
  version = "OpenCL 3.0", compute_units = 4, max_clock_mhz = 1000, global_mem_size = 2 ^ 30,
  local_mem_size = 65536, max_work_item_sizes = { 256, 256, 64 }, timer_resolution_ns = 1 } }

-- The objects each module makes, whose methods must be documented too.
local MAKERS = {
  ["clua.tablemodel"] = function(m) return m.new{ title = "t", columns = { "a" } } end,
  ["clua.plot"] = function(m) return m.new{ title = "p" } end,
  ["clua.timeline"] = function(m) return m.new("t") end,
  ["clua.device"] = function(m) return m.facts(fake_device, { nvml = false }) end,
  ["clua.recipe"] = function(m) return m.new{ name = "doc", args = {} } end,
  ["clua.runner"] = function(m) return m.new{ clua = "clua", recipes = "recipes", wall = 1, work = "/tmp" } end,
}

local function methods_of(obj)
  local mt = getmetatable(obj)
  local out = {}
  local idx = mt and (type(mt.__index) == "table" and mt.__index or mt)
  for k, v in pairs(idx or {}) do
    if type(v) == "function" and not k:match("^__") then out[#out + 1] = k end
  end
  table.sort(out)
  return out
end

describe("API reference (docs/api, make doc)", function()
  describe("cl module (host/*.c)", function()
    it("documents every function and field of require 'cl' in host/cl.c", function()
      local missing = {}
      for _, name in ipairs(sorted_keys(cl)) do
        local m = C_FUNCTIONS[name] or C_FIELDS[name]
        if m ~= "cl" then missing[#missing + 1] = "cl." .. name end
      end
      assert.are.same({}, missing)
    end)

    it("documents every method of every cl.* metatable as @function TYPE:NAME", function()
      local missing, seen = {}, 0
      for tname, mt in pairs(debug.getregistry()) do
        if type(tname) == "string" and tname:match("^cl%.") and type(mt) == "table" then
          local typ = tname:sub(4)
          local methods = type(mt.methods) == "table" and mt.methods or type(mt.__index) == "table" and mt.__index
          for name, v in pairs(methods or {}) do
            if type(v) == "function" then
              seen = seen + 1
              if not C_FUNCTIONS[typ .. ":" .. name] then missing[#missing + 1] = typ .. ":" .. name end
            end
          end
        end
      end
      table.sort(missing)
      assert.is_true(seen > 50, "expected the methods of the cl types, found " .. seen)
      assert.are.same({}, missing)
    end)

    it("documents every key an __index function answers as @field under its @type", function()
      local missing, seen = {}, 0
      for _, path in ipairs(HOST) do
        local d, text = C[path], slurp(path)
        for pos, fname, body in text:gmatch("()\nstatic int ([%w_]+_index)%(lua_State %*L%) (%b{})") do
          local typ = type_at(d, pos)
          for key in body:gmatch('strcmp%(%s*[%w_]+%s*,%s*"([%w_]+)"%s*%)') do
            seen = seen + 1
            if not typ then
              missing[#missing + 1] = ("%s: %s answers '%s' but no @type is in effect"):format(path, fname, key)
            elseif not (C_FIELDS[typ .. "." .. key] or C_FUNCTIONS[typ .. ":" .. key]) then
              missing[#missing + 1] = ("%s: %s.%s (%s)"):format(path, typ, key, fname)
            end
          end
        end
      end
      assert.is_true(seen > 30, "expected the fields of the cl types, found " .. seen)
      assert.are.same({}, missing)
    end)
  end)

  describe("measurement library (lua/clua/*.lua)", function()
    for _, path in ipairs(LUA) do
      local modname = "clua." .. path:match("([%w_]+)%.lua$")
      it("documents every function of " .. modname, function()
        local defs, lines = lua_defs(path)
        assert.truthy(table.concat(lines, "\n"):find("\n%-%- @module " .. modname:gsub("%.", "%%.") .. "\n")
          or lines[1]:find("@module " .. modname, 1, true), path .. " has no '-- @module " .. modname .. "'")
        local doc = {}
        for _, d in ipairs(defs) do doc[d.sep .. d.name] = doc[d.sep .. d.name] or d.documented end
        if modname == "clua.recipe" then
          -- R's methods from the modules of one concern each, documented there
          for _, other in ipairs({ "harness", "assign", "output", "rows", "figures" }) do
            for _, d in ipairs((lua_defs("lua/clua/" .. other .. ".lua"))) do
              if d.sep == ":" then doc[":" .. d.name] = doc[":" .. d.name] or d.documented end
            end
          end
        end
        local m = require(modname)
        local missing = {}
        for _, name in ipairs(sorted_keys(m)) do
          if type(m[name]) == "function" and not (doc["." .. name] or documented_elsewhere(m[name], name, path)) then
            missing[#missing + 1] = modname .. "." .. name
          end
        end
        if MAKERS[modname] then
          for _, name in ipairs(methods_of(MAKERS[modname](m))) do
            if not doc[":" .. name] then missing[#missing + 1] = modname .. " :" .. name end
          end
        end
        assert.are.same({}, missing)
      end)
    end
  end)

  describe("LDoc output", function()
    local ldoc_ok = os.execute("command -v ldoc >/dev/null 2>&1")
    local run = ldoc_ok and it or pending
    run("ldoc renders every documented name (config.ld)", function()
      local dir = os.tmpname()
      os.remove(dir)
      local p = assert(io.popen(("ldoc -d %s . 2>&1; echo \"exit=$?\""):format(dir)))
      local out = p:read("a")
      p:close()
      assert.truthy(out:find("exit=0", 1, true), out)
      local warnings = {}
      for line in out:gmatch("[^\n]+") do
        if not line:match("^reading configuration") and not line:match("^output written") and
          not line:match("^exit=") then warnings[#warnings + 1] = line end
      end
      assert.are.same({}, warnings)
      local pages = {}
      local function anchors(module)
        if not pages[module] then
          local f = io.open(("%s/%s"):format(dir, module == "cl" and "modules/cl.html" or "modules/" .. module .. ".html"))
          local set = {}
          if f then
            for a in f:read("a"):gmatch('<a name = "([^"]+)"></a>') do set[a] = true end
            f:close()
          end
          pages[module] = set
        end
        return pages[module]
      end
      local missing = {}
      for name, module in pairs(C_FUNCTIONS) do
        if not anchors(module)[name] then missing[#missing + 1] = module .. ": " .. name end
      end
      for name, module in pairs(C_FIELDS) do
        if not anchors(module)[name] then missing[#missing + 1] = module .. ": " .. name end
      end
      for _, path in ipairs(LUA) do
        local modname = "clua." .. path:match("([%w_]+)%.lua$")
        local defs = lua_defs(path)
        for _, d in ipairs(defs) do
          if d.documented then
            local a = d.sep == ":" and (d.owner .. ":" .. d.name) or d.name
            if not anchors(modname)[a] then missing[#missing + 1] = modname .. ": " .. a end
          end
        end
      end
      os.execute(("rm -rf %s"):format(dir))
      table.sort(missing)
      assert.are.same({}, missing)
    end)
  end)
end)
