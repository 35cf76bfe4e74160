--- clua.commands: the experiments and tools as subcommands. `clua overlap`,
-- `clua stride --quick`, `clua report`, `clua grade …` run `recipes/NAME.lua`
-- of clua's root (the checkout, or the installed share folder) when NAME is
-- no file; `clua list` names them with their purpose, `clua help [NAME]`
-- (and the option help) says how to run them. The interpreter calls `run` for a
-- script argument that is a bare word naming no file.
-- @module clua.commands
local commands = {}

-- clua's root, or nil. The cl module refuses to load where the environment
-- is wrong (CLUA_TIMEOUT=abc): that message is raised as it is, not read as
-- "no root".
local function root()
  local ok, cl = pcall(require, "cl")
  if not ok then
    if cl ~= nil and debug.getregistry()["clua.env_error"] == cl then error(cl, 0) end -- host/clua.h
    return nil
  end
  return cl.root
end

--- The folder of the experiments: ROOT/recipes, or nil where clua found no root.
-- @treturn ?string the folder
function commands.folder()
  local r = root()
  return r and (r .. "/recipes") or nil
end

local function readable(path)
  local f = io.open(path)
  if f then f:close() end
  return f ~= nil
end

--- The path of the experiment or tool NAME, or nil.
-- @string name a bare word (`stride`)
-- @treturn ?string ROOT/recipes/NAME.lua
function commands.find(name)
  local dir = commands.folder()
  if not dir or not name:match("^[%w_%-]+$") then return nil end
  local path = dir .. "/" .. name .. ".lua"
  return readable(path) and path or nil
end

--- Every experiment and tool, sorted by name.
-- @treturn {string,...} their names
function commands.names()
  local dir, out = commands.folder(), {}
  if not dir then return out end
  local p = io.popen("ls -1 '" .. dir:gsub("'", "'\\''") .. "' 2>/dev/null")
  if p then
    for f in p:lines() do
      local n = f:match("^([%w_%-]+)%.lua$")
      if n then out[#out + 1] = n end
    end
    p:close()
  end
  table.sort(out)
  return out
end

local TOOLS = { report = true, grade = true, check = true }

--- The one-line purpose of an experiment: the first sentence of its recipe's
-- `description`, read from the file without running it; for a tool, its
-- first comment line.
-- @string path the recipe's file
-- @treturn string the purpose ("" when none is found)
function commands.purpose(path)
  local f = io.open(path)
  if not f then return "" end
  local src = f:read("a")
  f:close()
  local eq, long = src:match("%f[%w]description%s*=%s*%[(=*)%[()")
  if long then -- a long string: prose, each run of white space one space (as recipe.new reads it)
    local text = src:match("^(.-)%]" .. eq .. "%]", long) or ""
    text = text:gsub("%s+", " "):match("^ ?(.-) ?$")
    return (text:match("^(.-%.)%s") or text)
  end
  local at = src:find("%f[%w]description%s*=%s*\"")
  if at then
    local parts, pos = {}, src:find("\"", at)
    while pos do
      local s, e = src:find('^"(.-[^\\])"', pos)
      if not s then break end
      parts[#parts + 1] = src:sub(s + 1, e - 1)
      local nxt = src:find("^%s*%.%.%s*\"", e + 1)
      if not nxt then break end
      pos = src:find("\"", e + 1)
    end
    local text = table.concat(parts):gsub("\\z%s*", ""):gsub('\\"', '"')
    return (text:match("^(.-%.)%s") or text)
  end
  local line = src:match("^%-%-%s*[%w_]+:%s*([^\n]*)")
  line = line and (line:match("^(.-%.)%s") or line) or ""
  return (line:gsub("^%l", string.upper))
end

-- text on one line of at most width characters, cut at a word ("…" marks the cut).
local function fit(text, width)
  if utf8.len(text) <= width then return text end
  local line = ""
  for word in text:gmatch("%S+") do
    if utf8.len(line) + 1 + utf8.len(word) > width - 2 then break end
    line = #line > 0 and (line .. " " .. word) or word
  end
  return (line:gsub("[,;:]$", "")) .. " …"
end

--- `clua list`: every experiment with its purpose, then the tools; with
-- the option names (two dashes), the names alone, one a line (for shell completion).
-- @param ... the arguments after `list`
function commands.list(...)
  local names = commands.names()
  if select(1, ...) == "--names" then
    for _, n in ipairs(names) do print(n) end
    for _, w in ipairs({ "list", "help" }) do print(w) end
    return
  end
  if #names == 0 then
    io.stderr:write("clua: no experiments found (clua's root: ", tostring(root()), ")\n")
    os.exit(1)
  end
  local w = 0
  for _, n in ipairs(names) do w = math.max(w, #n) end
  local function show(title, pick)
    print(title)
    for _, n in ipairs(names) do
      if pick(n) then
        print(("  %-" .. w .. "s  %s"):format(n, fit(commands.purpose(commands.find(n)), 76 - w)))
      end
    end
  end
  show("Experiments (clua NAME [options]; clua help NAME for the options):", function(n) return not TOOLS[n] end)
  print()
  show("Tools:", function(n) return TOOLS[n] end)
end

-- The options every experiment takes (clua.cli's), as "--quick, --device DEV, ...".
local function shared_options()
  local ok, p = pcall(function() return require("clua.cli").parser({ name = "x" }) end)
  if not ok then return "the shared options (clua help NAME)" end
  local words = {}
  for _, o in ipairs(p._options) do
    local long
    for _, a in ipairs(o._aliases) do if a:sub(1, 2) == "--" then long = long or a end end
    if long then words[#words + 1] = long .. ((o._maxargs or 0) > 0 and (" " .. (o._argname or "X")) or "") end
  end
  -- one line of at most 78 characters after another
  local lines, line = {}, ""
  for i, w in ipairs(words) do
    local piece = w .. (i < #words and "," or ".")
    if #line + 1 + #piece > 78 then lines[#lines + 1] = line; line = piece
    else line = line == "" and piece or (line .. " " .. piece) end
  end
  lines[#lines + 1] = line
  return table.concat(lines, "\n")
end

--- The usage of `clua` itself: the `lua` command line, the subcommands and
-- the options every experiment takes.
-- @treturn string the text
function commands.usage()
  return (([==[
usage: clua [options] [script [args]]
       clua NAME [options]      run the experiment or tool NAME (clua list names them)
       clua list                every experiment with its purpose
       clua help [NAME]         this text, or NAME's options
Options (those of lua5.4):
  -e stat    execute string 'stat'
  -i         enter interactive mode after executing 'script'
  -l mod     require library 'mod' into global 'mod'
  -l g=mod   require library 'mod' into global 'g'
  -v         show version information
  -E         ignore environment variables
  -W         turn warnings on
  --devices  list the OpenCL platforms and devices
  --help     this text
  --         stop handling options
  -          stop handling options and execute stdin
A script argument that names no file and is one word runs the experiment of
that name from clua's recipes folder: clua stride --quick, clua report,
clua grade --recipe reduction --submissions DIR. Every experiment takes
SHARED
Environment: CLUA_DEVICE (the device: part of a name, or P:D), CLUA_TIMEOUT
(seconds, the deadline of every wait for the device). See clua(1).
]==]):gsub("SHARED", shared_options))
end

local function run_file(path, ...)
  local chunk, err = loadfile(path)
  if not chunk then error(err, 0) end
  local args = rawget(_G, "arg")
  if type(args) == "table" then args[0] = path end
  return chunk(...)
end

--- `clua help [NAME]`: the usage, or the help of the experiment NAME.
-- @param name the experiment, or nil
function commands.help(name)
  if name == nil then
    io.write(commands.usage())
    return
  end
  local path = commands.find(name)
  if not path then commands.unknown(name) end
  local args = rawget(_G, "arg")
  if type(args) == "table" then
    args[1] = "--help"
    for i = 2, #args do args[i] = nil end
  end
  return run_file(path, "--help")
end

--- Ends the process with a message: NAME is no file and no experiment
-- (with the experiments it is close to: "did you mean stride?").
-- @string name the word
function commands.unknown(name)
  local dir = commands.folder()
  local names = commands.names()
  table.move({ "list", "help" }, 1, 2, #names + 1, names)
  local hint = require("clua.suggest").hint(name, names)
  io.stderr:write(("clua: no file or experiment named '%s'%s (%s; clua list names the experiments)\n")
    :format(name, hint ~= "" and ("; " .. hint) or "", dir and ("looked in " .. dir) or "clua's recipes folder was not found"))
  os.exit(1)
end

--- Runs the subcommand `word` with the script's arguments: `list`, `help`,
-- or the experiment or tool of that name (its file becomes `arg[0]`).
-- @string word the script argument, a bare word naming no file
-- @param ... the arguments after it
-- @return what the experiment's chunk returns
function commands.run(word, ...)
  if word == "list" then return commands.list(...) end
  if word == "help" then return commands.help(...) end
  local path = commands.find(word)
  if not path then commands.unknown(word) end
  return run_file(path, ...)
end

return commands
