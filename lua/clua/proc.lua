--- clua.proc: starting programs from a script: the interpreter that runs
-- it (to start another clua script: a benchmark's twin, a recipe per
-- submission or per card) and quoting for the shell.
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

return proc
