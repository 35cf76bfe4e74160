--- clua.files: a whole file read into a string, or a string written as a
-- whole file (a gradebook's files, a plot's SVG, a trace, a saved card).
-- @module clua.files
local files = {}

--- The contents of the file `path`.
-- @string path
-- @treturn string|nil its text, nil when it cannot be opened
function files.read(path)
  local f = io.open(path)
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

--- Whether the file `path` can be opened for reading.
-- @string path
-- @treturn boolean
function files.readable(path)
  local f = io.open(path)
  if f then f:close() end
  return f ~= nil
end

--- Writes `text` as the whole of the file `path`.
-- @string path
-- @string text
-- @raise "cannot write PATH: why" when it cannot be opened, written or
-- closed (a full disk: "No space left on device")
function files.write(path, text)
  local f, err = io.open(path, "w")
  if not f then error("cannot write " .. tostring(err), 2) end
  local ok, werr = f:write(text)
  local closed, cerr = f:close()
  if not ok or not closed then error(("cannot write %s: %s"):format(path, tostring(werr or cerr)), 2) end
end

--- Writes `text` as the whole of the file `path`, or ends the program with
-- status 1 and `who: cannot write PATH: why` on stderr (control characters
-- shown as escapes): the checked write of a script's top level (the card),
-- where a raised error would end in a traceback.
-- @string who the program's name, for the message
-- @string path
-- @string text
function files.write_or_exit(who, path, text)
  local ok, err = pcall(files.write, path, text)
  if ok then return end
  io.stderr:write(who, ": ", require("clua.escape").terminal(tostring(err)), "\n")
  os.exit(1)
end

--- Makes a folder and its parents (`mkdir -p`), or ends the process: on
-- failure it prints "WHO: cannot make the folder DIR: why" to stderr and
-- exits with status 1.
-- @string who the command to name (`"report"`)
-- @string dir the folder
function files.mkdir_or_exit(who, dir)
  local escape = require("clua.escape")
  local p = io.popen("mkdir -p -- '" .. dir:gsub("'", "'\\''") .. "' 2>&1")
  local said = p:read("a")
  if p:close() then return end
  -- mkdir: cannot create directory 'x': Permission denied
  io.stderr:write(who, ": cannot make the folder ", escape.terminal(dir), ": ",
    escape.terminal(said:match(":%s*([^:\n]*)%s*$") or said), "\n")
  os.exit(1)
end

return files
