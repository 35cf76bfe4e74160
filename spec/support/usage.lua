-- The @usage examples of a module's LDoc comments, run: each example is the
-- comment lines from `-- @usage` to the next tag or the end of the comment,
-- without their leading "-- ", run as a chunk in `env` (with the globals
-- beside), so that an example in the docs cannot go stale.
local usage = {}

--- The examples of a file, each a string of Lua.
function usage.examples(path)
  local out, cur = {}, nil
  for line in io.lines(path) do
    local first = line:match("^%-%-%-? ?@usage ?(.*)$")
    if first then
      cur = { first }
      out[#out + 1] = cur
    elseif cur and line:match("^%-%-") and not line:match("^%-%-%-? ?@") then
      cur[#cur + 1] = line:gsub("^%-%-%-? ?", "", 1)
    else
      cur = nil
    end
  end
  for i, lines in ipairs(out) do out[i] = table.concat(lines, "\n") end
  return out
end

--- Runs every example of `path` marked to run (its first line ends with
-- `-- runs`, or names no variable the env lacks: all of them, here) in
-- `env`; raises naming the example that failed. Returns how many ran.
function usage.run(path, env, only)
  local n = 0
  for i, code in ipairs(usage.examples(path)) do
    if not only or only(code) then
      local e = setmetatable({}, { __index = function(_, k) if env[k] ~= nil then return env[k] end return _G[k] end })
      local f, err = load(code, ("%s @usage %d"):format(path, i), "t", e)
      if not f then error(err, 0) end
      local ok, why = pcall(f)
      if not ok then error(("%s @usage %d:\n%s\n--> %s"):format(path, i, code, tostring(why)), 0) end
      n = n + 1
    end
  end
  return n
end

return usage
