-- What the specs that run clua (or a shell) as a subprocess share:
--
--   local shell = require "spec.support.shell"
--   shell.quote("it's")  --> 'it'\''s'     shell.slurp(path)  --> text or nil
--   shell.write_temp(text [, suffix])  --> the path of a new temporary file holding text
--   shell.write_script(text)          --> the same, executable (a stand-in program for a spec)
--   shell.run(cmd)       --> its output (stderr included), its exit status
local M = {}

-- s (or tostring(s)) as one word for sh, in single quotes.
function M.quote(s)
  return "'" .. tostring(s):gsub("'", [['\'']]) .. "'"
end

-- Runs a shell command, stderr into stdout; returns that output and the exit status.
function M.run(cmd)
  local p = assert(io.popen(cmd .. " 2>&1; echo \"exit=$?\""))
  local out = p:read("a")
  p:close()
  return (out:gsub("exit=%d+%s*$", "")), tonumber(out:match("exit=(%d+)%s*$"))
end

-- A file's text, or nil when it cannot be opened.
M.slurp = require("clua.files").read

-- A file's text; raises when it cannot be opened.
function M.read(path)
  local f = assert(io.open(path))
  local s = f:read("a")
  f:close()
  return s
end

-- A new temporary file (os.tmpname() .. suffix) holding text; returns its
-- path. The caller removes it.
function M.write_temp(text, suffix)
  local path = os.tmpname() .. (suffix or "")
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  return path
end

-- The same, made executable: a stand-in program (a shell script) for a spec.
function M.write_script(text)
  local path = M.write_temp(text)
  assert(os.execute("chmod +x " .. path))
  return path
end

return M
