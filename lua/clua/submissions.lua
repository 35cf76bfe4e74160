--- clua.submissions: the students of the folder of submissions and each one's
-- kernel file, read safely. The folder is listed through the file system's
-- API (clua.paths), so every name is kept exactly (spaces, commas, quotes,
-- accents, a newline, a CR, escape codes, a leading dash, a leading dot);
-- only regular files are read (a symbolic link, a named pipe, a device or a
-- socket is refused, and a named pipe is never opened); a student's files and
-- logs get a name of their own (`a b` and `a_b` do not share one); and each
-- kernel gets its verdict before any run when it cannot be one: empty, binary,
-- not UTF-8, over 1 MiB, without a kernel, or including a file that is not the
-- submission's (clua.includes).
-- @module clua.submissions
local paths = require("clua.paths")
local includes = require("clua.includes")

local submissions = {}

--- The largest kernel file read (bytes): a larger one did not build.
submissions.MAX_BYTES = 1024 * 1024

local KINDS = { link = "a symbolic link", ["named pipe"] = "a named pipe", socket = "a socket",
  ["char device"] = "a device", ["block device"] = "a device", directory = "a folder", other = "not a file" }

--- Why a path of the kind given is not read.
-- @string kind what paths.kind says
-- @treturn string e.g. "not a regular file: a symbolic link"
function submissions.not_regular(kind)
  return "not a regular file: " .. (KINDS[kind] or kind)
end

local names_in = paths.names

--- The students: DIR/NAME.cl (not for a course), or DIR/NAME/ (a folder, or
-- a git repository; `.git` itself is none). A `.cl` entry that is not a
-- regular file, or a symbolic link to a folder, is a student whose
-- submission is refused (`refused`, the reason). A name that two entries
-- give (`bob.cl` and `bob/`) is kept for the first; the next is `bob (2)`.
-- Each gets `stem`, a name for its files of its own (clua.submissions.stems).
-- @string dir the submissions' folder
-- @bool[opt] course true for a course (folders only)
-- @treturn tab a list of `{name, path, file}`, `{name, path, dir, git}` or
-- `{name, path, refused}`, in the order of their names' bytes
function submissions.list(dir, course)
  local students, used = {}, {}
  local function add(s)
    local base, k = s.name, 1
    while used[s.name] do k = k + 1; s.name = ("%s (%d)"):format(base, k) end
    used[s.name] = true
    students[#students + 1] = s
  end
  for _, name in ipairs(names_in(dir)) do
    local path = dir .. "/" .. name
    local kind = paths.kind(path)
    if kind == "directory" then
      if name ~= ".git" then add{ name = name, path = path, dir = true, git = paths.kind(path .. "/.git") ~= nil } end
    elseif kind == "link" and paths.is_dir(path) then
      add{ name = name, path = path, refused = "not a folder of its own: a symbolic link" }
    elseif not course and name:sub(-3) == ".cl" then
      local s = { name = name:sub(1, -4), path = path }
      if kind == "file" then s.file = path else s.refused = submissions.not_regular(kind) end
      add(s)
    end
  end
  submissions.stems(students)
  return students
end

--- Gives each student `stem`: a name for its log and feedback files, made of
-- letters, digits, `.`, `_` and `-` (other bytes become `_`), at most 64
-- bytes, never starting with `.` or `-`, and unique (ignoring case): a
-- second `a_b` (from `a b`) is `a_b-2`.
-- @tab students the list (`name` each)
function submissions.stems(students)
  local used = {}
  for _, s in ipairs(students) do
    local base = s.name:gsub("[^%w%._%-]", "_"):sub(1, 64)
    if base == "" or base:match("^[%.%-]") then base = "_" .. base end
    local stem, k = base, 1
    while used[stem:lower()] do k = k + 1; stem = ("%s-%d"):format(base, k) end
    used[stem:lower()] = true
    s.stem = stem
  end
end

--- The kernel file of a student for an assignment: the student's file, or
-- in a student's folder the file the assignment names, else its only `.cl`
-- file.
-- @tab s a student (`submissions.list`)
-- @string[opt] kernel the file the assignment names (a course's `kernel =`)
-- @treturn[1] string the path
-- @treturn[2] nil
-- @treturn[2] string why there is none ("no reduce.cl in the folder", "2 .cl files in the folder")
function submissions.kernel(s, kernel)
  if s.file then return s.file end
  if kernel then
    local f = s.path .. "/" .. kernel
    if paths.kind(f) then return f end
    return nil, ("no %s in the folder"):format(kernel)
  end
  local cls = {}
  for _, name in ipairs(names_in(s.path)) do
    if name:sub(-3) == ".cl" then cls[#cls + 1] = name end
  end
  if #cls == 1 then return s.path .. "/" .. cls[1] end
  return nil, ("%d .cl files in the folder"):format(#cls)
end

-- The first byte at which `s` is not UTF-8, or nil.
local function bad_utf8(s)
  local _, at = utf8.len(s)
  return at
end

--- A kernel file read, or why it gets `did not build` before any run: not a
-- regular file (nor any folder on its way inside the submission), empty,
-- over `MAX_BYTES`, binary (a NUL byte), not UTF-8, without a `kernel` or
-- `__kernel`, or including a file that is not the submission's.
-- @string path the kernel file
-- @string[opt] root the student's folder (nil: a submission of one file)
-- @treturn[1] string the source
-- @treturn[2] nil
-- @treturn[2] string why not, e.g. "an empty file", "not UTF-8 text (byte 7 is not)"
-- @treturn[2] string|nil the source when it is text (an include refused)
function submissions.read(path, root)
  local inside = root and path:sub(#root + 2) or nil
  local p = root
  for part in (inside or ""):gmatch("[^/]+") do
    p = p .. "/" .. part
    local kind = paths.kind(p)
    if kind ~= "directory" and p ~= path then return nil, submissions.not_regular(kind or "other") end
  end
  local kind, attr = paths.kind(path)
  if kind ~= "file" then return nil, submissions.not_regular(kind or "other") end
  if attr.size == 0 then return nil, "an empty file" end
  if attr.size > submissions.MAX_BYTES then
    return nil, ("over %d MiB (%d bytes)"):format(submissions.MAX_BYTES // 1048576, attr.size)
  end
  local f = io.open(path, "rb")
  if not f then return nil, "cannot be read" end
  local src = f:read(submissions.MAX_BYTES + 1) or ""
  f:close()
  if #src > submissions.MAX_BYTES then return nil, ("over %d MiB"):format(submissions.MAX_BYTES // 1048576) end
  local nul = src:find("\0", 1, true)
  if nul then return nil, ("a binary file, not OpenCL C (a NUL byte at byte %d)"):format(nul) end
  local bad = bad_utf8(src)
  if bad then return nil, ("not UTF-8 text (byte %d is not)"):format(bad) end
  local code = includes.code(src)
  if not code:find("%f[%w_]__kernel%f[^%w_]") and not code:find("%f[%w_]kernel%f[^%w_]") then
    return nil, "no kernel in it (no `kernel` or `__kernel` function)", src
  end
  local why = includes.check(src, path, root)
  if why then return nil, why, src end
  return src
end

return submissions
