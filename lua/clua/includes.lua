--- clua.includes: the `#include` lines of a student's kernel, checked before
-- the compiler sees it. A submission may include only its own files: an
-- include that names an absolute path, goes up with `..`, passes through a
-- symbolic link, or (a submission of one file) names another file beside it
-- is refused, as is one whose file is a macro (`#include F`). The source is
-- read as the preprocessor reads it: trigraphs (`??=`), digraphs (`%:`),
-- line splices (`\` at a line's end), comments, and a lone CR as a line's end.
-- The sandbox (clua.sandbox) hides the grader's files anyway; this check says
-- why, as a build failure the student can read.
-- @module clua.includes
local paths = require("clua.paths")

local includes = {}

--- The largest file an include may bring in (bytes), as for a submission.
includes.MAX_BYTES = 1024 * 1024

local TRIGRAPHS = { ["="] = "#", ["/"] = "\\", ["'"] = "^", ["("] = "[", [")"] = "]", ["!"] = "|", ["<"] = "{",
  [">"] = "}", ["-"] = "~" }

-- The logical lines of a source: {text, line} with trigraphs replaced, lines
-- spliced and comments gone (a comment is a space), `line` the physical line
-- where each begins.
local function logical_lines(src)
  src = src:gsub("%?%?([=/'()!<>%-])", TRIGRAPHS):gsub("\r\n", "\n"):gsub("\r", "\n")
  local out, acc, start, n = {}, nil, nil, 0
  for l in (src .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    local body = l:match("^(.-)\\[ \t\f\v]*$") -- a splice: the next line goes on
    acc, start = (acc or "") .. (body or l), start or n
    if not body then
      out[#out + 1] = { text = acc, line = start }
      acc, start = nil, nil
    end
  end
  if acc then out[#out + 1] = { text = acc, line = start } end
  -- comments, across lines; quoted text is kept as it is
  local in_block = false
  for _, ll in ipairs(out) do
    local s, res, i = ll.text, {}, 1
    while i <= #s do
      if in_block then
        local e = s:find("*/", i, true)
        if not e then i = #s + 1 else in_block, i = false, e + 2; res[#res + 1] = " " end
      else
        local c = s:sub(i, i)
        if c == '"' or c == "'" then
          local j = i + 1
          while j <= #s and s:sub(j, j) ~= c do j = j + (s:sub(j, j) == "\\" and 2 or 1) end
          res[#res + 1] = s:sub(i, j)
          i = j + 1
        elseif s:sub(i, i + 1) == "/*" then in_block, i = true, i + 2
        elseif s:sub(i, i + 1) == "//" then i = #s + 1
        else res[#res + 1] = c; i = i + 1 end
      end
    end
    ll.text = table.concat(res)
  end
  return out
end

-- Why `name` may not be included, or nil.
local function bad_name(name)
  if name == "" then return "names no file" end
  if name:sub(1, 1) == "/" then return "names an absolute path" end
  for part in name:gmatch("[^/]+") do
    if part == ".." then return "goes up out of the submission's folder (..)" end
  end
end

-- The first link, or other file that is not a folder or a regular file, on
-- the way from `dir` to `dir/name`; or "file" with the path when it is a
-- regular file there, or nil when nothing is there.
local function walk(dir, name)
  local p = dir
  for part in name:gmatch("[^/]+") do
    if part ~= "." then
      p = p .. "/" .. part
      local kind = paths.kind(p)
      if not kind then return nil end
      if kind == "link" then return "link", p end
      if kind ~= "directory" and kind ~= "file" then return kind, p end
    end
  end
  return paths.kind(p), p
end

local check_file

-- Checks one source text; `file` is its path, `root` the submission's
-- folder (nil: a submission of one file), `seen` the files already checked.
local function check_source(src, file, root, seen)
  local dir = file:match("^(.*)/[^/]*$") or "."
  local label = file:match("[^/]*$")
  for _, ll in ipairs(logical_lines(src)) do
    local t = ll.text
    local dname, rest = t:match("^%s*#%s*([%a_][%w_]*)(.*)$")
    if not dname then dname, rest = t:match("^%s*%%:%s*([%a_][%w_]*)(.*)$") end
    local function refuse(why, what)
      return ("%s line %d: %s %s: a submission may include only its own files"):format(label, ll.line,
        what or ("#" .. dname), why)
    end
    if dname == "include" or dname == "include_next" or dname == "import" or dname == "embed" then
      local q, name = rest:match('^%s*(")([^"]*)"%s*$')
      if not q then q, name = rest:match("^%s*(<)([^>]*)>%s*$") end
      if not q then
        return refuse("does not name its file between quotes or <> (a macro, or more on the line)")
      end
      local what = ('#%s %s%s%s'):format(dname, q, name, q == "<" and ">" or '"')
      local why = bad_name(name)
      if why then return refuse(why, what) end
      if q == '"' then
        local kind, p = walk(dir, name)
        if kind and not root then
          return refuse("names a file beside the kernel (a submission of one file includes no other)", what)
        elseif kind == "link" then
          return refuse("passes through a symbolic link (" .. p:sub(#dir + 2) .. ")", what)
        elseif kind and kind ~= "file" and kind ~= "directory" then
          return refuse("names a " .. kind .. ", not a regular file", what)
        elseif kind == "file" then
          local err = check_file(p, root, seen)
          if err then return err end
        end
      end
    end
    -- __has_include("/etc/x") tells whether a file is there: the same rule for its name
    for q, name in t:gmatch('__has_include[_%w]*%s*%(%s*([<"])([^">]*)') do
      local why = bad_name(name)
      if why then return refuse(why, ("__has_include(%s%s%s)"):format(q, name, q == "<" and ">" or '"')) end
    end
  end
end

check_file = function(path, root, seen)
  if seen[path] then return nil end
  seen[path] = true
  local f = io.open(path, "rb")
  if not f then return ("%s: cannot be read"):format(path:match("[^/]*$")) end
  local src = f:read(includes.MAX_BYTES + 1)
  f:close()
  if src and #src > includes.MAX_BYTES then
    return ("%s: an included file over %d bytes"):format(path:match("[^/]*$"), includes.MAX_BYTES)
  end
  return check_source(src or "", path, root, seen)
end

--- Checks the includes of a kernel's source, and of the submission's files it
-- includes, in turn.
-- @string src the kernel's text
-- @string file its path
-- @string[opt] root the submission's folder (its files may include one
-- another); nil for a submission of one file
-- @treturn string|nil why the source is refused (`k.cl line 1: #include
-- "/etc/passwd" names an absolute path: a submission may include only its own
-- files`), nil when it is not
function includes.check(src, file, root)
  return check_source(src, file, root, { [file] = true })
end

--- The code of a source as the compiler's tokens see it: trigraphs
-- replaced, lines spliced, comments gone (each a space), a line a line.
-- @string src the text
-- @treturn string
function includes.code(src)
  local out = {}
  for i, ll in ipairs(logical_lines(src)) do out[i] = ll.text end
  return table.concat(out, "\n")
end

return includes
