--- clua.checkrule: what the checking device cannot check in an
-- experiment's kernels, declared by the experiment (recipe.new's `unchecked`:
-- a kind of finding, the kernels, and why) and said by `clua check` with
-- every run, never passed over in silence. A run under the checker
-- (clua.checker sets CLUA_CHECK_RULES to a file) writes the experiment's
-- rules there as it starts; the checker reads them back and sets aside the
-- findings they name, counted.
-- @module clua.checkrule
local files = require("clua.files")

local checkrule = {}

--- The kinds of finding a rule may name (clua.checker's).
checkrule.KINDS = { "out-of-bounds read", "out-of-bounds write", "data race", "barrier divergence",
  "uninitialized value" }

local function known(kind)
  for _, k in ipairs(checkrule.KINDS) do if k == kind then return true end end
  return false
end

--- Checks recipe.new's `unchecked`: a list of `{kind =, kernels =, why =}`,
-- `kind` one of checkrule.KINDS, `kernels` a Lua pattern a kernel's name
-- matches (string.find: "_image" for every kernel whose name holds it),
-- `why` the reason. Raises naming the fault.
-- @tab list the rules
-- @treturn tab the list
function checkrule.validate(list)
  if type(list) ~= "table" then
    error(("recipe.new: unchecked must be a list of {kind =, kernels =, why =}, got %s"):format(type(list)), 3)
  end
  for i, r in ipairs(list) do
    local function bad(what) error(("recipe.new: unchecked[%d]: %s"):format(i, what), 4) end
    if type(r) ~= "table" then bad("a table {kind =, kernels =, why =} expected") end
    if not known(r.kind) then
      bad(("kind '%s' is none of %s"):format(tostring(r.kind), table.concat(checkrule.KINDS, ", ")))
    end
    if type(r.kernels) ~= "string" or r.kernels == "" or not pcall(string.find, "", r.kernels) then
      bad("kernels: a Lua pattern of the kernels' names expected")
    end
    if type(r.why) ~= "string" or not r.why:find("%S") then bad("why: the reason, a string, expected") end
    for k in pairs(r) do
      if k ~= "kind" and k ~= "kernels" and k ~= "why" then bad(("unknown field '%s'"):format(tostring(k))) end
    end
  end
  return list
end

--- Writes the rules to the file CLUA_CHECK_RULES names (a run under the
-- checker), one a line: kind, kernels, why (tab-separated); nothing outside
-- the checker.
-- @tab list validated rules
function checkrule.declare(list)
  local path = os.getenv("CLUA_CHECK_RULES")
  if not path or path == "" or #list == 0 then return end
  local f = io.open(path, "a")
  if not f then return end
  for _, r in ipairs(list) do
    f:write(table.concat({ r.kind, r.kernels, (r.why:gsub("%s+", " ")) }, "\t"), "\n")
  end
  f:close()
end

--- The rules a run wrote (`checkrule.declare`), each once.
-- @string path the file
-- @treturn tab `{kind =, kernels =, why =}` each
function checkrule.read(path)
  local out, seen = {}, {}
  for line in (files.read(path) or ""):gmatch("[^\n]+") do
    local kind, kernels, why = line:match("^([^\t]+)\t([^\t]+)\t(.+)$")
    if kind and not seen[line] then
      seen[line] = true
      out[#out + 1] = { kind = kind, kernels = kernels, why = why, count = 0 }
    end
  end
  return out
end

--- Sets aside each finding a rule names (its kind, a kernel whose name the
-- pattern matches): `f.unchecked` is the rule, whose `count` grows by the
-- finding's reports.
-- @tab findings clua.checker.group's
-- @tab rules `checkrule.read`'s
function checkrule.apply(findings, rules)
  for _, f in ipairs(findings) do
    for _, r in ipairs(rules) do
      if f.kind == r.kind and f.kernel and f.kernel:find(r.kernels) then
        f.unchecked = r
        r.count = r.count + (f.count or 1)
        break
      end
    end
  end
end

--- One line for a rule: what is not checked, in which kernels, why, and how
-- many reports it set aside.
-- @tab r a rule (`checkrule.read`'s, after `checkrule.apply`)
-- @treturn string
function checkrule.describe(r)
  return ("%s in the kernels matching '%s': %s (%d report%s set aside)"):format(r.kind, r.kernels, r.why, r.count,
    r.count == 1 and "" or "s")
end

return checkrule
