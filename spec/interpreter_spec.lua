-- The clua program as a command: lua5.4's command line, the cl preload, the
-- library path from the binary's location, --devices. Runs the binary named by
-- $CLUA (make test sets it, so the ASan run tests the ASan binary) as a
-- subprocess.

local shell_quote = require("spec.support.shell").quote

local function absolute(path)
  if path:sub(1, 1) == "/" then return path end
  local p = io.popen("pwd")
  local cwd = p:read("l")
  p:close()
  return cwd .. "/" .. path
end

local CLUA = absolute(os.getenv("CLUA") or "build/clua")

local function read_file(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("a")
  f:close()
  return s
end

local function write_file(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
  return path
end

local tmpdir
local function tmp(name)
  return tmpdir .. "/" .. name
end

-- Runs clua with `args` (a list of words, each quoted for the shell).
-- opts.stdin: text on stdin (default: none, /dev/null); opts.env: a table of
-- variables to set, false to unset; opts.exe: another binary; opts.cwd.
-- LUA_INIT, LUA_INIT_5_4, LUA_PATH, LUA_PATH_5_4 are unset unless given.
-- Returns exit code, stdout, stderr.
local function clua(args, opts)
  opts = opts or {}
  local env = { LUA_INIT = false, LUA_INIT_5_4 = false, LUA_PATH = false, LUA_PATH_5_4 = false }
  for k, v in pairs(opts.env or {}) do env[k] = v end
  local words, sets = { "env" }, {}
  for k, v in pairs(env) do -- env takes its -u options before any NAME=VALUE
    if v == false then
      words[#words + 1] = "-u " .. k
    else
      sets[#sets + 1] = shell_quote(k .. "=" .. v)
    end
  end
  table.move(sets, 1, #sets, #words + 1, words)
  words[#words + 1] = shell_quote(opts.exe or CLUA)
  for _, a in ipairs(args) do words[#words + 1] = shell_quote(a) end
  local stdin = "/dev/null"
  if opts.stdin then stdin = write_file(tmp("stdin"), opts.stdin) end
  local cmd = table.concat(words, " ") .. " <" .. shell_quote(stdin) ..
              " >" .. shell_quote(tmp("out")) .. " 2>" .. shell_quote(tmp("err"))
  if opts.cwd then cmd = "cd " .. shell_quote(opts.cwd) .. " && " .. cmd end
  local ok, how, code = os.execute(cmd)
  if how == "signal" then code = 128 + code end
  if ok then code = 0 end
  return code, read_file(tmp("out")), read_file(tmp("err"))
end

local function lines(s)
  local t = {}
  for l in s:gmatch("[^\n]+") do t[#t + 1] = l end
  return t
end

describe("clua interpreter", function()
  setup(function()
    local p = io.popen("mktemp -d")
    tmpdir = p:read("l")
    p:close()
    assert.truthy(tmpdir and #tmpdir > 0)
  end)

  teardown(function()
    if tmpdir then os.execute("rm -rf " .. shell_quote(tmpdir)) end
  end)

  describe("-e", function()
    it("runs a statement, separate or attached", function()
      local code, out = clua({ "-e", "print(1 + 1)" })
      assert.equal(0, code)
      assert.equal("2\n", out)
      code, out = clua({ "-eprint(3)", "-e", "io.write('x')" })
      assert.equal(0, code)
      assert.equal("3\nx", out)
    end)

    it("reports errors with a traceback and exits 1", function()
      local code, out, err = clua({ "-e", "error('boom')" })
      assert.equal(1, code)
      assert.equal("", out)
      assert.matches(": %(command line%):1: boom\n", err)
      assert.matches("stack traceback:", err, 1, true)
    end)

    it("reports syntax errors and exits 1", function()
      local code, _, err = clua({ "-e", "x = = 1" })
      assert.equal(1, code)
      assert.matches("%(command line%):1: unexpected symbol near '='", err)
    end)

    it("describes non-string error objects", function()
      local code, _, err = clua({ "-e", "error({})" })
      assert.equal(1, code)
      assert.matches("%(error object is a table value%)", err)
      code, _, err = clua({ "-e", "error(setmetatable({}, {__tostring = function() return 'custom' end}))" })
      assert.equal(1, code)
      assert.matches(": custom\n$", err)
    end)

    it("needs an argument", function()
      local code, out, err = clua({ "-e" })
      assert.equal(1, code)
      assert.equal("", out)
      assert.matches("'%-e' needs argument", err)
      assert.matches("usage: ", err, 1, true)
    end)
  end)

  describe("options", function()
    it("-v prints clua's and Lua's versions", function()
      local code, out = clua({ "-v" })
      assert.equal(0, code)
      assert.matches("^clua %d+%.%d+%.%d+", out)
      assert.matches("Lua 5%.4", out)
      assert.equal(1, #lines(out))
    end)

    it("-v runs before -e", function()
      local code, out = clua({ "-v", "-e", "print('after')" })
      assert.equal(0, code)
      local l = lines(out)
      assert.matches("^clua ", l[1])
      assert.equal("after", l[2])
    end)

    it("rejects unknown options with the usage and status 1", function()
      for _, bad in ipairs({ "-x", "--x", "-vx", "-Ex" }) do
        local code, out, err = clua({ bad })
        assert.equal(1, code)
        assert.equal("", out)
        assert.matches("unrecognized option '" .. bad:gsub("%-", "%%-") .. "'", err)
      end
    end)

    it("-l mod sets the global mod", function()
      local code, out = clua({ "-l", "string", "-e", "print(string == require 'string')" })
      assert.equal(0, code)
      assert.equal("true\n", out)
    end)

    it("-l g=mod sets the global g", function()
      local code, out = clua({ "-l", "s=string", "-e", "print(s.rep('ab', 2))" })
      assert.equal(0, code)
      assert.equal("abab\n", out)
    end)

    it("-l of a missing module fails with status 1", function()
      local code, _, err = clua({ "-l", "no_such_module_xyz" })
      assert.equal(1, code)
      assert.matches("module 'no_such_module_xyz' not found", err)
    end)

    it("runs -e and -l in order", function()
      local code, out = clua({ "-e", "x = 1", "-l", "y=string", "-e", "print(x, y ~= nil)" })
      assert.equal(0, code)
      assert.equal("1\ttrue\n", out)
    end)

    it("-W turns warnings on", function()
      local code, _, err = clua({ "-e", "warn('quiet')" })
      assert.equal(0, code)
      assert.equal("", err)
      code, _, err = clua({ "-W", "-e", "warn('loud')" })
      assert.equal(0, code)
      assert.matches("Lua warning: loud", err, 1, true)
    end)
  end)

  describe("scripts", function()
    it("gets its arguments as ... and in arg", function()
      local script = write_file(tmp("args.lua"), [[
        print(select('#', ...), ...)
        for i = -3, #arg do io.write(i, '=', tostring(arg[i]), ' ') end
        print()
      ]])
      local code, out = clua({ "-e", "x=1", script, "a", "b c" })
      assert.equal(0, code)
      local l = lines(out)
      assert.equal("2\ta\tb c", l[1])
      assert.equal("-3=" .. CLUA .. " -2=-e -1=x=1 0=" .. script .. " 1=a 2=b c ", l[2])
    end)

    it("arg[0] is the interpreter when there is no script", function()
      local code, out = clua({ "-e", "print(arg[0], arg[1], arg[-1])" })
      assert.equal(0, code)
      assert.equal(CLUA .. "\t-e\tnil\n", out)
    end)

    it("-- stops options: the next word is the script, even with a dash", function()
      local script = write_file(tmp("dash.lua"), "print(...)")
      local code, out = clua({ "--", script, "-e", "--" })
      assert.equal(0, code)
      assert.equal("-e\t--\n", out)
    end)

    it("- runs stdin as the script, with arguments", function()
      local code, out = clua({ "-", "a", "b" }, { stdin = "print('stdin', ...)\nprint(arg[0])" })
      assert.equal(0, code)
      assert.equal("stdin\ta\tb\n-\n", out)
    end)

    it("runs stdin when there are no arguments and stdin is no terminal", function()
      local code, out = clua({}, { stdin = "print(40 + 2)" })
      assert.equal(0, code)
      assert.equal("42\n", out)
    end)

    it("exits 1 with a traceback on a runtime error", function()
      local script = write_file(tmp("fail.lua"), "local function f() error('deep') end\nf()\n")
      local code, out, err = clua({ script })
      assert.equal(1, code)
      assert.equal("", out)
      assert.matches("fail.lua:1: deep", err, 1, true)
      assert.matches("stack traceback:", err, 1, true)
      assert.matches("in local 'f'", err, 1, true)
    end)

    it("exits with os.exit's status", function()
      local code = clua({ "-e", "os.exit(7)" })
      assert.equal(7, code)
      code = clua({ "-e", "os.exit(false)" })
      assert.equal(1, code)
      code = clua({ "-e", "os.exit(true, true)" })
      assert.equal(0, code)
    end)

    it("exits 1 when the script cannot be opened", function()
      local code, _, err = clua({ tmp("no_such_file.lua") })
      assert.equal(1, code)
      assert.matches("cannot open", err, 1, true)
    end)

    it("skips a #! first line", function()
      local script = write_file(tmp("shebang.lua"), "#!/usr/bin/env clua\nprint('ran')\n")
      local code, out = clua({ script })
      assert.equal(0, code)
      assert.equal("ran\n", out)
    end)
  end)

  describe("the REPL", function()
    it("prints expressions, runs statements, continues lines, survives errors", function()
      local code, out, err = clua({ "-i" }, {
        stdin = "1 + 1, 'two'\n=3\nx = 10\nfor i = 1, 2 do\nprint(i * x)\nend\nerror('oops')\nx\n",
      })
      assert.equal(0, code)
      assert.matches("^clua ", out)
      assert.matches("2\ttwo\n", out, 1, true)
      assert.matches("3\n", out, 1, true)
      assert.matches("10\n.*20\n", out)
      assert.matches(">> ", out, 1, true)
      assert.matches("stdin:1: oops", err, 1, true)
      assert.matches("> 10\n", out, 1, true)
    end)

    it("runs after the script with -i, and honours _PROMPT", function()
      local script = write_file(tmp("repl.lua"), "y = 5\n_PROMPT = 'P$ '")
      local code, out = clua({ "-i", script }, { stdin = "y * 2\n" })
      assert.equal(0, code)
      assert.matches("P$ 10\n", out, 1, true)
    end)
  end)

  describe("environment", function()
    it("runs LUA_INIT before anything else", function()
      local code, out = clua({ "-e", "print(x)" }, { env = { LUA_INIT = "x = 'init'" } })
      assert.equal(0, code)
      assert.equal("init\n", out)
    end)

    it("prefers LUA_INIT_5_4 to LUA_INIT", function()
      local code, out = clua({ "-e", "print(x)" },
        { env = { LUA_INIT = "x = 'plain'", LUA_INIT_5_4 = "x = 'versioned'" } })
      assert.equal(0, code)
      assert.equal("versioned\n", out)
    end)

    it("runs LUA_INIT=@file", function()
      local init = write_file(tmp("init.lua"), "x = 'from file'")
      local code, out = clua({ "-e", "print(x)" }, { env = { LUA_INIT = "@" .. init } })
      assert.equal(0, code)
      assert.equal("from file\n", out)
    end)

    it("fails with status 1 when LUA_INIT fails", function()
      local code, out, err = clua({ "-e", "print('not reached')" }, { env = { LUA_INIT = "error('bad init')" } })
      assert.equal(1, code)
      assert.equal("", out)
      assert.matches("LUA_INIT:1: bad init", err, 1, true)
    end)

    it("-E ignores LUA_INIT and LUA_PATH but keeps clua's library path", function()
      local env = { LUA_INIT = "x = 'init'", LUA_PATH = "/nowhere/?.lua" }
      local code, out = clua({ "-e", "print(x, package.path)" }, { env = env })
      assert.equal(0, code)
      assert.matches("^init\t", out)
      assert.matches("/nowhere/?.lua", out, 1, true)
      code, out = clua({ "-E", "-e", "print(x, package.path)" }, { env = env })
      assert.equal(0, code)
      assert.matches("^nil\t", out)
      assert.is_nil(out:find("/nowhere/", 1, true))
      assert.matches("/lua/?.lua;", out, 1, true)
    end)
  end)

  describe("clua's own parts", function()
    it("preloads the cl module", function()
      local code, out = clua({ "-e", "local cl = require 'cl'; print(type(cl), package.loaded.cl == cl)" })
      assert.equal(0, code)
      assert.equal("table\ttrue\n", out)
    end)

    -- docs/cl.md: the module is the global cl in every mode, the same table require gives
    local SAME = "print(type(cl), cl == require 'cl', cl.platforms()[1].name ~= nil)"
    it("makes cl a global under -e", function()
      local code, out, err = clua({ "-e", SAME })
      assert.equal(0, code, err)
      assert.equal("table\ttrue\ttrue\n", out)
    end)

    it("makes cl a global for a script read from standard input (-)", function()
      local code, out, err = clua({ "-" }, { stdin = SAME .. "\n" })
      assert.equal(0, code, err)
      assert.equal("table\ttrue\ttrue\n", out)
    end)

    it("makes cl a global for a script file", function()
      local code, out, err = clua({ write_file(tmp("global.lua"), SAME) })
      assert.equal(0, code, err)
      assert.equal("table\ttrue\ttrue\n", out)
    end)

    it("makes cl a global at the -i prompt", function()
      local code, out, err = clua({ "-i" }, { stdin = SAME .. "\n" })
      assert.equal(0, code, err)
      assert.matches("table\ttrue\ttrue\n", out, 1, true)
    end)

    it("puts the repository's lua/ first in package.path, from any folder", function()
      local p = io.popen("cd " .. shell_quote(CLUA:match("^(.*)/[^/]*$")) .. " && pwd -P")
      local exedir = p:read("l")
      p:close()
      -- build/clua -> the repository; build/asan/clua -> the repository
      local repo = exedir:gsub("/asan$", ""):gsub("/build$", "")
      local script = write_file(tmp("path.lua"), "print(package.path)")
      local code, out = clua({ script }, { cwd = tmpdir })
      assert.equal(0, code)
      local prefix = repo .. "/lua/?.lua;" .. repo .. "/lua/?/init.lua;"
      assert.equal(prefix, out:sub(1, #prefix))
    end)

    it("finds clua.* modules with no LUA_PATH set", function()
      local code, out = clua({ "-e", "print(package.searchpath('clua.stats', package.path))" },
        { cwd = tmpdir })
      assert.equal(0, code)
      assert.matches("/lua/clua/stats%.lua\n$", out)
    end)

    -- Copies of the binary in a build-tree layout and in an installed layout,
    -- each next to its own lua/clua/probe.lua.
    for _, layout in ipairs({
      { "build tree", "tree/build/clua", "tree/lua/clua/probe.lua" },
      { "ASan build tree", "tree2/build/asan/clua", "tree2/lua/clua/probe.lua" },
      { "installed", "prefix/bin/clua", "prefix/share/clua/lua/clua/probe.lua" },
    }) do
      it("requires clua.* from the binary's location: " .. layout[1], function()
        local exe, probe = tmp(layout[2]), tmp(layout[3])
        os.execute("mkdir -p " .. shell_quote(exe:match("^(.*)/")) .. " " .. shell_quote(probe:match("^(.*)/")))
        assert.is_true(os.execute("cp " .. shell_quote(CLUA) .. " " .. shell_quote(exe)))
        write_file(probe, "return { where = ... }")
        local code, out = clua({ "-e", "print(require('clua.probe').where, package.searchpath('clua.probe', package.path))" },
          { exe = exe, cwd = "/" })
        assert.equal(0, code)
        assert.equal("clua.probe\t" .. probe .. "\n", out)
      end)
    end

    it("--devices lists platforms and devices with their indices", function()
      local code, out, err = clua({ "--devices" })
      assert.equal(0, code, err)
      local l = lines(out)
      assert.matches("^Platform #0: ", l[1])
      assert.matches("^ [`+]%-%- Device #0: .+ %(%u+, 0:0%)$", l[2])
      local pocl = false
      for _, line in ipairs(l) do
        if line:match("^Platform #%d+: Portable Computing Language") then pocl = true end
      end
      assert.is_true(pocl, "no PoCL platform in:\n" .. out)
    end)

    it("--devices runs no REPL and no stdin", function()
      local code, out = clua({ "--devices" }, { stdin = "print('stdin ran')" })
      assert.equal(0, code)
      assert.is_nil(out:find("stdin ran", 1, true))
    end)
  end)
end)
