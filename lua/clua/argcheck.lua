--- clua.argcheck: the values of command-line options, checked when the
-- command line is parsed, before anything is measured: numbers in range
-- (a negative number is read as a value, `--size -5`, and refused as one),
-- every documented number form (4096, 1e6, 64K, 256MiB), output files that
-- can be written and input files that can be read. Each check is an argparse
-- converter; `argcheck.install` gives a parser's options theirs and makes
-- every message name the option: `--reps 0: must be a whole number >= 1`.
-- @module clua.argcheck
local units = require("clua.units")

local argcheck = {}

-- The largest number an option takes: beyond it, a value is "too large"
-- (2^53: every integer below it is exact as a float).
local HUGE = 2 ^ 53

local function negative(s) return type(s) == "string" and s:match("^%s*%-%s*[%d.]") ~= nil end

-- A count: a whole number, in any form a size takes (4096, 1e6, 64K: K, M, G are powers of 1024).
local function whole_number(s)
  if negative(s) then return nil, "must be positive" end
  local x = tonumber(s)
  if x == nil then
    local v, why = units.parse_size(s)
    if v == nil then
      if why and why:find("too large", 1, true) then return nil, "too large" end
      return nil, "a whole number expected (4096, 1e6, 64K)"
    end
    x = v
  end
  if x ~= x then return nil, "a whole number expected (4096, 1e6, 64K)" end
  if x < 0 then return nil, "must be positive" end
  if x >= HUGE then return nil, ("too large (at most 2^53)") end
  local n = math.tointeger(x)
  if not n then return nil, "must be a whole number" end
  return n
end

--- A whole number >= 1 (a count of repetitions, work-items, steps).
-- @string s the option's text
-- @treturn[1] int the number
-- @treturn[2] nil
-- @treturn[2] string why not (`must be positive`, `must be a whole number >= 1`, `too large`)
function argcheck.count(s)
  local n, why = whole_number(s)
  if n == nil then return nil, why end
  if n < 1 then return nil, "must be a whole number >= 1" end
  return n
end

--- A grader's count option, a number or its text: a whole number >= 1
-- (the jobs and rounds options, and the course file's keys).
-- @string option the option's name for the message, as it is typed
-- @param v the value
-- @treturn[1] int the number
-- @treturn[2] nil
-- @treturn[2] string why not ("OPTION must be a whole number >= 1, got V")
function argcheck.at_least_one(option, v)
  local n = math.tointeger(tonumber(v))
  if not n or n < 1 then return nil, ("%s must be a whole number >= 1, got %s"):format(option, tostring(v)) end
  return n
end

--- A whole number >= 0 (warm-up runs, an offset).
-- @string s the option's text
-- @treturn ?int the number, or nil and why not
-- @treturn ?string why not
function argcheck.whole(s)
  local n, why = whole_number(s)
  if n == nil then return nil, why == "must be positive" and "must be positive or 0" or why end
  return n
end

--- A number > 0 (seconds, milliseconds, a scalar factor).
-- @string s the option's text
-- @treturn ?number the number, or nil and why not
-- @treturn ?string why not
function argcheck.positive(s)
  if negative(s) then return nil, "must be positive" end
  local x = tonumber(s)
  if x == nil or x ~= x then return nil, "a number expected" end
  if x <= 0 then return nil, "must be positive" end
  if x >= HUGE then return nil, "too large" end
  return x
end

--- Any finite number (a factor that may be negative).
-- @string s the option's text
-- @treturn ?number the number, or nil and why not
-- @treturn ?string why not
function argcheck.number(s)
  local x = tonumber(s)
  if x == nil or x ~= x then return nil, "a number expected" end
  if math.abs(x) >= HUGE then return nil, "too large" end
  return x
end

--- A size in bytes > 0, in any form clua.units.parse_size reads (4096, 1e6,
-- 64K, 256MiB, 1.5GiB); more than 2^53 is too large.
-- @string s the option's text
-- @treturn ?int the bytes, or nil and why not
-- @treturn ?string why not
function argcheck.size(s)
  if negative(s) then return nil, "must be positive" end
  local n, why = units.parse_size(s)
  if n == nil then return nil, why and why:find("too large", 1, true) and "too large (at most 2^53 bytes)" or why end
  if n <= 0 then return nil, "must be positive" end
  if n >= HUGE then return nil, "too large (at most 2^53 bytes)" end
  return n
end

--- A file that can be written, checked without changing it: an existing
-- file is opened for update and closed, a new one is made and removed.
-- @string path the file
-- @treturn ?string the path, or nil and why not
-- @treturn ?string why not (`cannot write it: No such file or directory`)
function argcheck.writable(path)
  local f = io.open(path, "r")
  if f then
    f:close()
    local g, err = io.open(path, "r+")
    if not g then return nil, "cannot write it: " .. tostring(err):gsub("^.-: ", "") end
    g:close()
    return path
  end
  local g, err = io.open(path, "w")
  if not g then return nil, "cannot write it: " .. tostring(err):gsub("^.-: ", "") end
  g:close()
  os.remove(path)
  return path
end

--- A file that can be written once its missing folders are made (as the
-- card makes the folder of its --out): the file itself where its folder
-- exists (argcheck.writable), else the nearest folder above it that exists
-- must be one that a file can be made in. Nothing is left behind.
-- @string path the file
-- @treturn ?string the path, or nil and why not
-- @treturn ?string why not
function argcheck.creatable(path)
  local parent = path:match("^(.*)/[^/]*$")
  if parent == nil or parent == "" then return argcheck.writable(path) end
  local ok, lfs = pcall(require, "lfs")
  if not ok then return argcheck.writable(path) end
  local dir = parent
  while dir ~= "" and lfs.attributes(dir) == nil do dir = dir:match("^(.*)/[^/]*$") or "" end
  if dir == parent then return argcheck.writable(path) end
  if dir == "" then dir = path:sub(1, 1) == "/" and "/" or "." end
  if lfs.attributes(dir, "mode") ~= "directory" then return nil, ("cannot write it: %s is not a folder"):format(dir) end
  local probe = dir:gsub("/$", "") .. "/.clua-write-check-" .. tostring(os.time()) .. tostring(math.random(1e9))
  local f, err = io.open(probe, "w")
  if not f then return nil, ("cannot write it: cannot make a folder in %s: %s"):format(dir, tostring(err):gsub("^.-: ", "")) end
  f:close()
  os.remove(probe)
  return path
end

--- A file that can be read.
-- @string path the file
-- @treturn ?string the path, or nil and why not
-- @treturn ?string why not
function argcheck.readable(path)
  local f, err = io.open(path, "r")
  if not f then return nil, "cannot read it: " .. tostring(err):gsub("^.-: ", "") end
  local ok, rerr = f:read(0)
  f:close()
  if ok == nil and rerr then return nil, "cannot read it: " .. tostring(rerr) end
  return path
end

-- The checked converter in place of a plain one (a recipe's `:convert(math.tointeger)`).
local PLAIN = { [math.tointeger] = argcheck.count, [tonumber] = argcheck.positive,
  [units.parse_size] = argcheck.size }

local function option_name(opt)
  local long
  for _, a in ipairs(opt._aliases or {}) do if a:sub(1, 2) == "--" then long = long or a end end
  return long or (opt._aliases or {})[1] or opt._name or "?"
end

--- Gives every option of `parser` its check: an option converted by
-- `math.tointeger` takes a whole number >= 1 (argcheck.count), by
-- `tonumber` a number > 0 (argcheck.positive), by clua.units.parse_size a
-- size > 0 (argcheck.size); the options named in `files.write` a file that
-- can be written, in `files.create` one that can be written once its
-- folders are made (argcheck.creatable), in `files.read` one that can be
-- read (`none` and `-` are let through). Every refusal names the option and its value.
-- @tparam argparse.Parser parser the parser, its options declared
-- @tab[opt] files `{write = {"--json", ...}, create = {...}, read = {"--compare", ...}}`
-- @treturn argparse.Parser the parser
function argcheck.install(parser, files)
  local writes, reads = {}, {}
  for _, n in ipairs(files and files.write or {}) do writes[n] = argcheck.writable end
  for _, n in ipairs(files and files.create or {}) do writes[n] = argcheck.creatable end
  for _, n in ipairs(files and files.read or {}) do reads[n] = true end
  for _, opt in ipairs(parser._options or {}) do
    local name = option_name(opt)
    local f = opt._convert
    if type(f) == "function" then f = PLAIN[f] or f end
    if writes[name] and f == nil then f = writes[name] end
    if reads[name] and f == nil then f = argcheck.readable end
    if type(f) == "function" then
      local check = f
      local skip = (writes[name] or reads[name]) and { none = true, ["-"] = true } or {}
      opt._convert = function(s)
        if skip[s] then return s end
        local v, why = check(s)
        if v == nil then return nil, ("%s %s: %s"):format(name, tostring(s), why or "malformed value") end
        return v
      end
    end
  end
  return parser
end

--- The command line with a negative number after an option that takes a
-- value joined to it (`--size -5` becomes `--size=-5`), so that argparse
-- reads it as the value (and its check refuses it), not as an option `-5`.
-- @tparam argparse.Parser parser the parser
-- @tab argv the words
-- @treturn tab a new list of words
function argcheck.join_negatives(parser, argv)
  local takes = {}
  for _, opt in ipairs(parser._options or {}) do
    if (opt._maxargs or 0) > 0 then
      for _, a in ipairs(opt._aliases or {}) do
        if a:sub(1, 2) == "--" then takes[a] = true end
      end
    end
  end
  local out, i = {}, 1
  while i <= #argv do
    local w, nxt = argv[i], argv[i + 1]
    if w == "--" then
      table.move(argv, i, #argv, #out + 1, out)
      break
    end
    if takes[w] and type(nxt) == "string" and nxt:match("^%-[%d.]") then
      out[#out + 1] = w .. "=" .. nxt
      i = i + 2
    else
      out[#out + 1] = w
      i = i + 1
    end
  end
  return out
end

--- Parses `argv` with `parser` (negative numbers joined to their options):
-- the parsed table, or, on a bad option, the usage and `NAME: why` on
-- stderr and exit status 2, as a recipe's options do.
-- @tparam argparse.Parser parser the parser (its checks installed)
-- @tab argv the words
-- @string name the program's name, for the message
-- @treturn tab the options
function argcheck.parse(parser, argv, name)
  local ok, a = parser:pparse(argcheck.join_negatives(parser, argv))
  if ok then return a end
  io.stderr:write(parser:get_usage(), "\n", name, ": ", tostring(a), "\n")
  os.exit(2)
end

return argcheck
