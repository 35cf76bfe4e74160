-- What the specs that validate clua's JSON share (not a spec): running
-- spec/support/schema_check.py on files against the JSON Schema each names
-- (schema/, docs/schema.md).
--
--   local schema = require "spec.support.schema"
--   local out, ok = schema.check({ path1, path2 })    -- ok: true, false, or nil (skipped)
--
-- In a source tree the check needs python3-jsonschema (.ci/setup installs
-- it): without it, ok is false and out says so. A bundle (make bundle-test:
-- no .ci/setup) may run on a machine without it: there the check is
-- skipped (ok nil).
local shell = require("spec.support.shell")

local M = {}

local available
-- Whether python3 can import jsonschema.
function M.available()
  if available == nil then
    local _, code = shell.run("python3 -c 'import jsonschema'")
    available = code == 0
  end
  return available
end

M.source_tree = io.open(".ci/setup") ~= nil

-- Validates files (paths) against the schema each names, or, with legacy
-- ("clua.recipe/1"), that one for a file without "schema". Returns the
-- checker's output and true/false, or a reason and nil where it is skipped.
function M.check(files, legacy)
  if not M.available() then
    if M.source_tree then return "python3-jsonschema is not installed (sh .ci/setup)", false end
    return "python3-jsonschema is not installed", nil
  end
  local q = {}
  for i, f in ipairs(files) do q[i] = shell.quote(f) end
  local out, code = shell.run(("python3 spec/support/schema_check.py %s%s")
    :format(legacy and ("--legacy " .. legacy .. " ") or "", table.concat(q, " ")))
  return out, code == 0
end

return M
