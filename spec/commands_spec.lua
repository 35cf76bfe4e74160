-- clua's subcommands (clua.commands): `clua stride --quick`, `clua list`,
-- `clua help NAME`, `clua --help`, from any folder, with the checkout's
-- binary and with one installed by `make install PREFIX=…`; a script path
-- and a file named like a subcommand still run as lua would; the bash
-- completion completes names and an experiment's options.
local shell_quote = require("spec.support.shell").quote

local function absolute(path)
  if path:sub(1, 1) == "/" then return path end
  local p = io.popen("pwd")
  local cwd = p:read("l")
  p:close()
  return cwd .. "/" .. path
end

local CLUA = absolute(os.getenv("CLUA") or "build/clua")
local REPO = absolute(".")

local function sh(cmd)
  local p = assert(io.popen("{ " .. cmd .. "; } 2>&1; echo \"exit=$?\""))
  local out = p:read("a")
  p:close()
  local code = tonumber(out:match("exit=(%d+)%s*$"))
  return (out:gsub("exit=%d+%s*$", "")), code
end

local tmpdir
setup(function()
  local p = io.popen("mktemp -d")
  tmpdir = p:read("l")
  p:close()
end)
teardown(function() os.execute("rm -rf " .. shell_quote(tmpdir)) end)

local function in_tmp(exe, args)
  return sh("cd " .. shell_quote(tmpdir) .. " && " .. shell_quote(exe) .. " " .. args)
end

local function subcommands(layout, exe_of)
  describe("subcommands, " .. layout, function()
    it("clua list names every experiment with its purpose, and the tools", function()
      local out, code = in_tmp(exe_of(), "list")
      assert.are.equal(0, code, out)
      assert.matches("\n  stride +Strided accesses: strideCopy", out)
      assert.matches("\n  overlap +Copy/compute overlap", out)
      assert.matches("Tools:\n  check +A script or experiment with every kernel checked on Oclgrind%.\n", out)
      assert.matches("\n  grade +A folder of submissions", out)
      assert.matches("\n  report +One command that characterises a device", out)
      for line in out:gmatch("[^\n]+") do assert.is_true(utf8.len(line) <= 80, line) end
    end)

    it("clua list --names gives the names alone, subcommands included", function()
      local out, code = in_tmp(exe_of(), "list --names")
      assert.are.equal(0, code, out)
      for _, n in ipairs({ "stride", "overlap", "report", "grade", "check", "list", "help" }) do
        assert.matches("\n" .. n .. "\n", "\n" .. out)
      end
    end)

    it("clua stride --quick runs the experiment from another folder", function()
      local out, code = in_tmp(exe_of(), "stride --quick --max-stride 2 --reps 1 --warmup 0")
      assert.are.equal(0, code, out)
      assert.matches("strideCopy: effective bandwidth by stride", out, 1, true)
      assert.matches("recipe stride", out, 1, true)
    end)

    it("clua help NAME prints the experiment's options; clua help and --help the usage", function()
      local out, code = in_tmp(exe_of(), "help stride")
      assert.are.equal(0, code, out)
      assert.matches("^Usage: stride ", out)
      assert.matches("--max-stride", out, 1, true)
      out, code = in_tmp(exe_of(), "help grade")
      assert.are.equal(0, code, out)
      assert.matches("--submissions", out, 1, true)
      for _, args in ipairs({ "--help", "help" }) do
        out, code = in_tmp(exe_of(), args)
        assert.are.equal(0, code, out)
        assert.matches("clua NAME %[options%]", out)
        assert.matches("clua list", out, 1, true)
        assert.matches("--devices", out, 1, true)
      end
    end)

    it("a word naming no file and no experiment fails in one line", function()
      local out, code = in_tmp(exe_of(), "nosuch")
      assert.are.equal(1, code)
      assert.matches("^clua: no file or experiment named 'nosuch' %(looked in .-/recipes; clua list names the experiments%)\n$", out)
    end)
  end)
end

subcommands("the checkout's build/clua", function() return CLUA end)

describe("subcommands, help for a mistake", function()
  it("a mistyped experiment gets a did-you-mean", function()
    local out, code = in_tmp(CLUA, "strde --quick")
    assert.are.equal(1, code)
    assert.matches("^clua: no file or experiment named 'strde'; did you mean stride%? %(looked in .-/recipes; ", out)
    out = in_tmp(CLUA, "help strid")
    assert.matches("did you mean stride?", out, 1, true)
    out = in_tmp(CLUA, "trans")
    assert.matches("did you mean transfer or transpose?", out, 1, true)
  end)

  it("clua --help lists every option the experiments share", function()
    package.path = REPO .. "/lua/?.lua;" .. package.path
    local p = require("clua.cli").parser({ name = "x" })
    local out, code = in_tmp(CLUA, "--help")
    assert.are.equal(0, code, out)
    local n = 0
    for _, o in ipairs(p._options) do
      for _, a in ipairs(o._aliases) do
        if a:sub(1, 2) == "--" then
          n = n + 1
          assert.truthy(out:find(a:gsub("%-", "%%-") .. "[ ,.\n]"), a .. " is missing from clua --help")
        end
      end
    end
    assert.is_true(n >= 15, n .. " shared options")
    assert.matches("--html FILE", out, 1, true)
    local shared = out:match("Every experiment takes\n(.-)\nEnvironment:")
    assert.truthy(shared, out)
    for line in shared:gmatch("[^\n]+") do assert.is_true(#line <= 78, line) end
  end)
end)

describe("subcommands, lua's command line kept", function()
  it("a file named like a subcommand runs as a script, as lua would run it", function()
    local f = assert(io.open(tmpdir .. "/list", "w"))
    f:write("print('the file list', ...)\n")
    f:close()
    local out, code = in_tmp(CLUA, "list a")
    assert.are.equal(0, code, out)
    assert.are.equal("the file list\ta\n", out)
    os.remove(tmpdir .. "/list")
  end)

  it("a script path and -e work as before; a missing script.lua is lua's error", function()
    local f = assert(io.open(tmpdir .. "/s.lua", "w"))
    f:write("print(arg[0], ...)\n")
    f:close()
    local out, code = in_tmp(CLUA, "s.lua x y")
    assert.are.equal(0, code, out)
    assert.are.equal("s.lua\tx\ty\n", out)
    out, code = in_tmp(CLUA, "-e 'print(1)' s.lua z")
    assert.are.equal(0, code, out)
    assert.are.equal("1\ns.lua\tz\n", out)
    out, code = in_tmp(CLUA, "missing.lua")
    assert.are.equal(1, code)
    assert.matches("cannot open missing.lua", out, 1, true)
  end)

  it("an experiment run by name sees its file as arg[0] and its arguments", function()
    local out, code = in_tmp(CLUA, "-e 'os.exit = function() print(arg[0], arg[1]) end' timing --bogus")
    assert.matches("/recipes/timing%.lua\t%-%-bogus", out)
    assert.is_not_nil(code)
  end)
end)

describe("bash completion (completion/clua.bash)", function()
  local function complete(...)
    local words = { ... }
    local q = {}
    for i, w in ipairs(words) do q[i] = shell_quote(w) end
    local script = ("source %s; PATH=%s:$PATH; COMP_WORDS=(clua %s); COMP_CWORD=%d; _clua; "
      .. "printf '%%s\\n' \"${COMPREPLY[@]}\""):format(shell_quote(REPO .. "/completion/clua.bash"),
      shell_quote(CLUA:match("^(.*)/")), table.concat(q, " "), #words)
    return sh("cd " .. shell_quote(tmpdir) .. " && bash -c " .. shell_quote(script))
  end

  it("completes experiment names, help's argument and an experiment's options", function()
    local out = complete("str")
    assert.matches("stream\n", out, 1, true)
    assert.matches("stride\n", out, 1, true)
    out = complete("help", "gr")
    assert.are.equal("grade\n", out)
    out = complete("stride", "--max")
    assert.are.equal("--max-stride\n", out)
    out = complete("--dev")
    assert.are.equal("--devices\n", out)
  end)
end)

-- An installed layout: make install PREFIX=…, run from a folder of no checkout.
-- It needs make and the checkout's Makefile and sources: bundle/test on a GPU
-- machine has neither, and leaves it to the build machine.
local have_make = os.execute("command -v make >/dev/null 2>&1")
local function exists(path)
  local f = io.open(path)
  if f then f:close() end
  return f ~= nil
end
local have_makefile = exists(REPO .. "/Makefile") and exists(REPO .. "/host/main.c")
if have_make and have_makefile then
  local prefix
  describe("make install", function()
    setup(function()
      local p = io.popen("mktemp -d")
      prefix = p:read("l")
      p:close()
      local out, code = sh("make -s install PREFIX=" .. shell_quote(prefix))
      assert.are.equal(0, code, out)
    end)
    teardown(function() os.execute("rm -rf " .. shell_quote(prefix)) end)

    it("installs the bash completion and a man page covering the subcommands and the grader", function()
      assert.truthy(io.open(prefix .. "/share/bash-completion/completions/clua"))
      local f = assert(io.open(prefix .. "/share/man/man1/clua.1"))
      local man = f:read("a")
      f:close()
      assert.matches(".SH SUBCOMMANDS", man, 1, true)
      for _, w in ipairs({ "list", "help", "report", "grade", "\\-\\-submissions", "\\-\\-help" }) do
        assert.matches(w, man, 1, true)
      end
    end)

    subcommands("installed by make install", function() return prefix .. "/bin/clua" end)
  end)
else
  pending("make install: needs make and the checkout's Makefile and host/ (the build machine's; a bundle has neither)")
end
