-- What the Gradescope specs share (not a spec): a results.json checked
-- against the fields Gradescope's "Autograder Specifications" document
-- (spec/fixtures/gradescope-results.schema.json), with python3-jsonschema.
local shell = require("spec.support.shell")

local M = {}

-- Validates the file at `path`; returns the checker's output and true/false,
-- or a reason and nil where it is skipped: a bundle (no .ci/setup) on a
-- machine without python3-jsonschema, as spec.support.schema does.
function M.check(path)
  local schema = require("spec.support.schema")
  if not schema.available() and not schema.source_tree then return "python3-jsonschema is not installed", nil end
  local out, code = shell.run(("python3 -c %s spec/fixtures/gradescope-results.schema.json %s 2>&1"):format(shell.quote(
    "import json, sys, jsonschema\n"
    .. "jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))\n"
    .. "print('valid')"), shell.quote(path)))
  return out, code == 0
end

return M
