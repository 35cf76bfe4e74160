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

return files
