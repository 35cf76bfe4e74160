-- clua.sandbox: the box a submission runs in (bubblewrap). Pending, saying
-- why, where the box cannot start on this machine.
package.path = "lua/?.lua;" .. package.path
local sandbox = require("clua.sandbox")
local box = require("spec.support.sandbox")
local lfs = require("lfs")
local shell = require("spec.support.shell")

local CLUA = os.getenv("CLUA") or "build/clua"
local TOKEN = "BOXSECRET-51c0de"

describe("clua.sandbox", function()
  local dir, secret

  setup(function()
    dir = shell.run("mktemp -d"):match("[^\n]+")
    secret = dir .. "/secret.txt"
    local f = assert(io.open(secret, "w"))
    f:write(TOKEN, "\n")
    f:close()
    assert(lfs.mkdir(dir .. "/sub"))
    assert(lfs.mkdir(dir .. "/out"))
  end)
  teardown(function() os.execute("rm -rf " .. shell.quote(dir)) end)

  -- Runs a shell script in the box; returns its output (stderr too) and exit status.
  local function inside(script, opts, env)
    opts = opts or {}
    opts.command = { "/bin/sh", "-c", script }
    local words = sandbox.argv(opts)
    for i, w in ipairs(words) do words[i] = shell.quote(w) end
    return shell.run((env or "") .. " " .. table.concat(words, " "))
  end

  it("builds a command line with no network, no capabilities and an emptied environment", function()
    local a = table.concat(sandbox.argv{ command = { "true" }, ro = { "/x" }, rw = { "/y" } }, " ")
    for _, w in ipairs({ "--unshare-net", "--unshare-pid", "--unshare-ipc", "--cap-drop ALL", "--die-with-parent", "--new-session", "--clearenv",
      "--ro-bind /usr /usr", "--proc /proc", "--dev /dev", "--tmpfs /tmp", "--ro-bind /x /x", "--bind /y /y",
      "--setenv HOME /tmp/home", "-- true" }) do
      assert.matches(w, a, 1, true)
    end
    assert.falsy(a:find("--share-net", 1, true))
  end)

  it("hides the grader's files, and a file planted beside them", function()
    if not box.ok then pending("the sandbox cannot start here: " .. tostring(box.why)) return end
    local out, code = inside("cat " .. shell.quote(secret) .. "; ls /; ls /etc", { ro = { dir .. "/sub" } })
    assert.are.equal(0, code, out)
    assert.falsy(out:find(TOKEN, 1, true))
    assert.matches("No such file or directory", out, 1, true)
    -- the box makes the folders on the way to what it binds by design (an
    -- ASan run binds LSAN_OPTIONS's suppressions file: /root/clua/spec/lsan.supp
    -- in .ci/fresh's chroot); such a folder shows that way and nothing else
    local argv, bound = sandbox.argv{ command = { "true" } }, {}
    for i, w in ipairs(argv) do
      if w == "--ro-bind" or w == "--bind" or w == "--ro-bind-try" then bound[#bound + 1] = argv[i + 2] end
    end
    for _, hidden in ipairs({ "root", "home", "var", "passwd", "shadow", "hostname" }) do
      local way
      for _, b in ipairs(bound) do way = way or b:match("^/" .. hidden:gsub("%p", "%%%0") .. "/([^/]+)") end
      if way then
        local seen, c = inside("ls -A /" .. hidden)
        assert.are.equal(0, c, seen)
        assert.are.equal(way .. "\n", seen, hidden)
      else
        assert.falsy(out:find("\n" .. hidden .. "\n", 1, true), hidden)
      end
    end
    assert.matches("\nusr\n", out, 1, true)
    assert.matches("\nOpenCL\n", out, 1, true)
  end)

  it("has no network, no capabilities, a private /tmp and HOME, and the grader's environment emptied", function()
    if not box.ok then pending("the sandbox cannot start here: " .. tostring(box.why)) return end
    -- the box built by a clua whose environment holds a token of the grader's and CLUA_DEVICE
    local tmpname = ("/tmp/clua-sandbox-spec-%d"):format(math.random(1, 1e9))
    local lua = ([[package.path = "lua/?.lua;" .. package.path
local a = require("clua.sandbox").argv{ command = { "/bin/sh", "-c", %q } }
for i, w in ipairs(a) do a[i] = "'" .. w:gsub("'", "'\\''") .. "'" end
os.exit(os.execute(table.concat(a, " ")) and 0 or 1)]]):format(
      "cat /proc/net/dev; grep CapEff /proc/self/status; touch \"$HOME/h\" " .. tmpname .. " && echo wrote; env")
    local out, code = shell.run(("GRADER_TOKEN=xyz CLUA_DEVICE=0:0 %s -e %s"):format(shell.quote(CLUA), shell.quote(lua)))
    assert.are.equal(0, code, out)
    local ifaces = {}
    for name in out:match("^(.-)CapEff"):gmatch("\n%s*([%w_-]+):") do ifaces[#ifaces + 1] = name end
    assert.are.same({ "lo" }, ifaces)
    assert.matches("CapEff:%s+0+\n", out)
    assert.matches("wrote", out, 1, true)
    assert.falsy(out:find("GRADER_TOKEN", 1, true))
    assert.matches("CLUA_DEVICE=0:0", out, 1, true)
    assert.matches("HOME=/tmp/home", out, 1, true)
    assert.is_nil(lfs.attributes(tmpname)) -- written in the box's own /tmp
  end)

  it("shows the submission read-only and the output folder writable", function()
    if not box.ok then pending("the sandbox cannot start here: " .. tostring(box.why)) return end
    local out = inside(("touch %s/x || echo refused; touch %s/y && echo written"):format(shell.quote(dir .. "/sub"),
      shell.quote(dir .. "/out")), { ro = { dir .. "/sub" }, rw = { dir .. "/out" } })
    assert.matches("refused", out, 1, true)
    assert.matches("written", out, 1, true)
    assert.is_nil(lfs.attributes(dir .. "/sub/x"))
    assert.is_not_nil(lfs.attributes(dir .. "/out/y"))
  end)

  it("runs clua and the OpenCL driver, whose compiler cannot reach a file outside", function()
    if not box.ok then pending("the sandbox cannot start here: " .. tostring(box.why)) return end
    local root = lfs.currentdir()
    local script = dir .. "/build.lua"
    local f = assert(io.open(script, "w"))
    f:write(([[local cl = require "cl"
local ok, err = pcall(function() cl.context():program('#include "%s"\nkernel void k(void) {}'):build() end)
print(ok, err)]]):format(secret))
    f:close()
    local clua = CLUA:sub(1, 1) == "/" and CLUA or (root .. "/" .. CLUA)
    local cmd = shell.quote(clua) .. " " .. shell.quote(script)
    -- outside the box the compiler's log holds the secret (so this spec can fail) ...
    local plain = shell.run(cmd)
    assert.matches(TOKEN:match("^%u+"), plain, 1, true)
    -- ... inside, the file is not there
    local out, code = inside(cmd, { ro = { clua, root .. "/lua", root .. "/kernels", script } })
    assert.are.equal(0, code, out)
    assert.matches("false", out, 1, true)
    assert.matches("file not found", out, 1, true)
    assert.falsy(out:find(TOKEN:match("^%u+"), 1, true))
  end)

  it("seeds a private HOME from a folder, and writes a given HOME", function()
    if not box.ok then pending("the sandbox cannot start here: " .. tostring(box.why)) return end
    assert(lfs.mkdir(dir .. "/seed"))
    local f = assert(io.open(dir .. "/seed/cached", "w"))
    f:write("warm\n")
    f:close()
    local out = inside('cat "$HOME/cached"; echo new > "$HOME/more"', { seed = dir .. "/seed" })
    assert.matches("warm", out, 1, true)
    assert.is_nil(lfs.attributes(dir .. "/seed/more"))
    inside('echo kept > "$HOME/more"', { home = dir .. "/seed" })
    assert.are.equal("kept\n", shell.read(dir .. "/seed/more"))
  end)

  it("says why it cannot start where bubblewrap is missing", function()
    local out = shell.run(("PATH=/nonexistent %s -e %s"):format(shell.quote(CLUA),
      shell.quote('package.path = "lua/?.lua;" .. package.path; print(require("clua.sandbox").probe())')))
    assert.matches("nil\tbubblewrap (bwrap) is not installed (Debian: apt-get install bubblewrap)", out, 1, true)
  end)
end)
