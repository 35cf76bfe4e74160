--- clua.proc: starting programs from a script: the interpreter that runs
-- it (to start another clua script: a benchmark's twin, a recipe per
-- submission or per card), a plain C program's run (a recipe's C twin
-- under build/bench/) and quoting for the shell.
-- @module clua.proc
local proc = {}

--- The interpreter running this script, as it was invoked: `arg`'s lowest
-- index. (`arg[-1]` is that only when no option came before the script:
-- `clua -W x.lua` gives `arg[-1] == "-W"`, `arg[-2] == "clua"`.)
-- @treturn string its path, or `"clua"` when `arg` holds none (a script
-- run by `dofile` or `-e` alone)
function proc.interpreter()
  if type(arg) ~= "table" then return "clua" end
  local i = 0
  while arg[i - 1] ~= nil do i = i - 1 end
  return i < 0 and tostring(arg[i]) or "clua"
end

--- A string quoted for the POSIX shell, as one word: `it's` gives `'it'\''s'`.
-- @param s a string (or any value, through `tostring`)
-- @treturn string
function proc.quote(s)
  return "'" .. tostring(s):gsub("'", "'\\''") .. "'"
end

--- Runs a program and waits for it: its standard output and error, or nil
-- and why not ("not built" where `path` is no file; "failed (exit N): " and
-- its standard error where it exits non-zero).
-- @string path the program
-- @string args its arguments, already quoted for the shell
-- @treturn string|nil its standard output
-- @treturn string its standard error, or why it gave none
function proc.run(path, args)
  local f = io.open(path)
  if not f then return nil, "not built" end
  f:close()
  local errf = os.tmpname()
  local p = io.popen(proc.quote(path) .. " " .. args .. " 2>" .. proc.quote(errf))
  local out = p:read("a")
  local ok, _, code = p:close()
  local ef = io.open(errf)
  local err = ef and ef:read("a") or ""
  if ef then ef:close() end
  os.remove(errf)
  if not ok then return nil, ("failed (exit %s): %s"):format(tostring(code), (err:gsub("%s+$", ""))) end
  return out, err
end

return proc
