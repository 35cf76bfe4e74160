-- What the recipe specs (spec/recipe_*_spec.lua, spec/assignment_spec.lua)
-- share: running recipes/NAME.lua as a subprocess and reading back what it
-- wrote. Not a spec (no _spec in the name): a spec loads it from the
-- repository root, where busted runs, with
--
--   local support = require "spec.support.recipe"
--   local run = support.runner("aat")          -- run(args, env) -> out, code, err
--
-- The interpreter is $CLUA (make test sets it per binary), else build/clua.
local json = require("dkjson")
local shell = require("spec.support.shell")

local M = {}

M.clua = os.getenv("CLUA") or "build/clua"

M.slurp, M.read = shell.slurp, shell.read -- a file's text: or nil; or raise

-- Runs `ENV CLUA recipes/NAME.lua --quick ARGS` in a shell (ENV and ARGS may
-- be nil). Returns stdout without the "exit=N" line the shell appends, the
-- exit status, and stderr (through a temporary file). With opts.merge, stderr
-- goes into stdout (2>&1) and it returns that whole output, "exit=N" line
-- included, and the status.
function M.run(name, args, env, opts)
  local cmd = ("%s %s recipes/%s.lua --quick %s"):format(env or "", M.clua, name, args or "")
  if opts and opts.merge then
    local p = assert(io.popen(cmd .. " 2>&1; echo \"exit=$?\""))
    local out = p:read("a")
    p:close()
    return out, tonumber(out:match("exit=(%d+)%s*$"))
  end
  local errf = os.tmpname()
  local p = assert(io.popen(("%s 2>%s; echo \"exit=$?\""):format(cmd, errf)))
  local out = p:read("a")
  p:close()
  local err = M.slurp(errf) or ""
  os.remove(errf)
  local code = tonumber(out:match("exit=(%d+)%s*$"))
  return (out:gsub("exit=%d+%s*$", "")), code, err
end

-- A function that runs recipe NAME: run(args, env) -> out, code, err (M.run).
-- opts.env_first: run(env, args) instead. opts.code_first: returns code, out,
-- err instead. opts.merge: as M.run's.
function M.runner(name, opts)
  opts = opts or {}
  return function(a, b)
    local args, env = a, b
    if opts.env_first then args, env = b, a end
    local out, code, err = M.run(name, args, env, opts)
    if opts.code_first then return code, out, err end
    return out, code, err
  end
end

-- The decoded JSON file at path, removed; nil when it cannot be opened.
function M.load_json(path)
  local f = io.open(path)
  local doc = f and json.decode(f:read("a"))
  if f then f:close() end
  os.remove(path)
  return doc
end

-- The table of a report document (a recipe's --json) with that id, or nil.
function M.table_of(doc, id)
  for _, t in ipairs(doc.tables) do if t.id == id then return t end end
end

-- The tables of a report document by id.
function M.by_id(doc)
  local t = {}
  for _, tab in ipairs(doc.tables) do t[tab.id] = tab end
  return t
end

-- The tables of the JSON file at path by id, the file removed; raises when it
-- cannot be read.
function M.tables_of(path)
  local doc = json.decode(M.slurp(path))
  os.remove(path)
  return M.by_id(doc)
end

-- Runs recipe NAME --quick with --json (raising "the recipe failed: STDERR"
-- unless it exits 0); returns its tables by id (read by clua.report) and its
-- stdout.
function M.tables(name)
  local report = require("clua.report")
  local path = os.tmpname()
  local out, code, err = M.run(name, "--json " .. path, "")
  assert(code == 0, "the recipe failed: " .. err)
  local d = report.load(path)
  os.remove(path)
  return M.by_id(d), out
end

return M
