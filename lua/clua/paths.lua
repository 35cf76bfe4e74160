--- clua.paths: the file system through its API (LuaFileSystem, `lfs`), never
-- a shell's text: what a path is (without following a symbolic link), an
-- absolute path, a folder made with its parents, a folder removed with what
-- it holds, a program found on PATH. The grader uses it for every path a
-- student's submission names (clua.submissions) and for its own folders.
-- @module clua.paths
local lfs = require("lfs")

local paths = {}

--- What `path` is, without following a symbolic link at its end.
-- @string path
-- @treturn string|nil "file", "directory", "link", "named pipe", "socket",
-- "char device", "block device" or "other"; nil when there is nothing there
-- @treturn[opt] tab its attributes (lfs.symlinkattributes)
function paths.kind(path)
  local a = lfs.symlinkattributes(path)
  if not a then return nil end
  return a.mode, a
end

--- True when `path` is a folder (a symbolic link to one counts as one).
-- @string path
-- @treturn bool
function paths.is_dir(path)
  return lfs.attributes(path, "mode") == "directory"
end

--- The names in the folder `dir`, sorted by their bytes, less `.` and `..`
-- (each exactly as the file system holds it).
-- @string dir
-- @treturn {string,...} the names (none when `dir` is no folder)
function paths.names(dir)
  local names = {}
  if not paths.is_dir(dir) then return names end
  for name in lfs.dir(dir) do
    if name ~= "." and name ~= ".." then names[#names + 1] = name end
  end
  table.sort(names)
  return names
end

--- `path` made absolute against the current folder (not resolved: a link stays a link).
-- @string path
-- @treturn string
function paths.absolute(path)
  if path:sub(1, 1) == "/" then return path end
  local here = assert(lfs.currentdir())
  path = path:gsub("^%./+", "")
  if path == "." or path == "" then return here end
  return (here == "/" and "" or here) .. "/" .. path
end

--- `path` with every symbolic link on its way followed (as `realpath`), `.`
-- and `..` resolved.
-- @string path
-- @treturn string|nil the absolute path, nil when a link loops (40 links)
function paths.real(path)
  local todo, done, hops = {}, {}, 0
  for part in paths.absolute(path):gmatch("[^/]+") do todo[#todo + 1] = part end
  local i = 1
  while i <= #todo do
    local part = todo[i]
    if part == ".." then done[#done] = nil
    elseif part ~= "." then
      local p = "/" .. table.concat(done, "/") .. (#done > 0 and "/" or "") .. part
      local target = lfs.symlinkattributes(p, "mode") == "link" and lfs.symlinkattributes(p, "target")
      if target then
        hops = hops + 1
        if hops > 40 then return nil end
        local rest = table.move(todo, i + 1, #todo, 1, {})
        todo = {}
        for t in target:gmatch("[^/]+") do todo[#todo + 1] = t end
        table.move(rest, 1, #rest, #todo + 1, todo)
        if target:sub(1, 1) == "/" then done = {} end
        i = 0
      else done[#done + 1] = part end
    end
    i = i + 1
  end
  return "/" .. table.concat(done, "/")
end

--- Makes the folder `path` and its missing parents (`mkdir -p`, with the
-- path as given: a name that starts with `-` is a name).
-- @string path
-- @treturn[1] true
-- @treturn[2] nil
-- @treturn[2] string why not, naming the path
function paths.mkdirs(path)
  if paths.is_dir(path) then return true end
  local parent = path:match("^(.*[^/])/+[^/]+/*$")
  if parent and not paths.is_dir(parent) then
    local ok, err = paths.mkdirs(parent)
    if not ok then return nil, err end
  end
  local ok, err = lfs.mkdir(path)
  if not ok and not paths.is_dir(path) then return nil, ("cannot make the folder %s: %s"):format(path, err) end
  return true
end

--- Removes `path` and, when it is a folder, everything in it (links are
-- removed, never followed).
-- @string path
function paths.remove_tree(path)
  if paths.kind(path) == "directory" then
    for name in lfs.dir(path) do
      if name ~= "." and name ~= ".." then paths.remove_tree(path .. "/" .. name) end
    end
    lfs.rmdir(path)
  else
    os.remove(path)
  end
end

--- A new, empty folder of its own under the system's temporary folder
-- (TMPDIR, else /tmp).
-- @string prefix the start of its name
-- @treturn[1] string its absolute path
-- @treturn[2] nil
-- @treturn[2] string why not
function paths.tempdir(prefix)
  local base = os.getenv("TMPDIR")
  if not base or base == "" or not paths.is_dir(base) then base = "/tmp" end
  base = paths.absolute(base)
  local err
  for _ = 1, 100 do
    local p = ("%s/%s-%06x%04x"):format(base, prefix, math.random(0, 0xffffff), math.random(0, 0xffff))
    local ok, e = lfs.mkdir(p)
    if ok then return p end
    err = e
  end
  return nil, ("cannot make a folder in %s: %s"):format(base, tostring(err))
end

--- The program `name` on PATH.
-- @string name
-- @treturn string|nil its path
function paths.which(name)
  for dir in (os.getenv("PATH") or ""):gmatch("[^:]+") do
    local p = dir .. "/" .. name
    if lfs.attributes(p, "mode") == "file" then return p end
  end
  return nil
end

return paths
