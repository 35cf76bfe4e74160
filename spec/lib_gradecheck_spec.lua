-- clua.gradecheck through the grader's runner: the check of a submission runs
-- as the timed runs do. A stand-in recipe (run under Oclgrind, as a recipe is)
-- reports what the checked run sees: a planted secret file, the variables of
-- the grader's and of the Oclgrind wrapper it runs through (a script on PATH
-- that sets LD_LIBRARY_PATH, as an Oclgrind installed under /usr/local is),
-- then floods its output and runs a racy kernel (spec/fixtures/check/race.cl);
-- asked to, it plants a link to the secret where Oclgrind writes its log. In
-- the box the secret is hidden, the race still found with the file's line,
-- the output capped, and the link not followed; without the box (--no-sandbox)
-- the secret is seen, so the first can fail. Then the probe says where
-- Oclgrind cannot run in the box. Pending where Oclgrind is not installed.
local shell = require("spec.support.shell")
local box = require("spec.support.sandbox")
local lfs = require("lfs")

local CLUA = os.getenv("CLUA") or "build/clua"
local TOKEN = "CHECKSECRET-9e41b7"
local have = os.execute("command -v oclgrind >/dev/null 2>&1") == true

-- The stand-in recipe: arg holds --kernel FILE and the grader's check options.
local RECIPE = [[
local SECRET = %q
local f = io.open(SECRET)
print(f and ("SEEN " .. f:read("l")) or "HIDDEN")
for _, v in ipairs({ "LD_LIBRARY_PATH", "GRADER_TOKEN", "OCLGRIND_MAX_ERRORS", "CLUA_DEVICE" }) do
  print(v .. "=" .. tostring(os.getenv(v)))
end
local kernel, plant
for i = 1, #arg do
  if arg[i] == "--kernel" then kernel = arg[i + 1] end
  if arg[i] == "--plant-link" then plant = true end
end
if plant then
  local log = os.getenv("OCLGRIND_LOG")
  os.remove(log)
  os.execute(("ln -s '%%s' '%%s'"):format(SECRET, log))
  return
end
for i = 1, 60000 do io.write("flood line ", i, " of the checked run's printing\n") end
local cl = require("cl")
local ctx = cl.context()
local q = ctx:queue()
local k = ctx:program_file(kernel):build():kernel("sum")
local n, L = 256, 64
k:args(ctx:buffer(cl.array("float", n):fill(1)), ctx:buffer(4 * (n // L)), cl.localmem(4 * L))
q:launch(k, n, L):wait()
]]

-- The grader's side: a runner (boxed or not) and one check through it.
local DRIVER = [[
package.path = "lua/?.lua;" .. package.path
local runner = require("clua.runner")
local gradecheck = require("clua.gradecheck")
local paths = require("clua.paths")
local root, mode, options = arg[1], arg[2], arg[3]
local work = assert(paths.tempdir("clua-gradecheck-spec"))
local r = runner.new{ clua = arg[4], root = ".", recipes = root .. "/recipes", wall = 120,
  sandboxed = mode == "box", work = work }
print("probe", gradecheck.probe(r))
local o = gradecheck.submission{ script = root .. "/recipes/standin.lua", file = root .. "/class/race.cl", box = r,
  wall = 120, options = options, timeout = 5, log = root .. "/logs/" .. mode .. options:gsub("%W", "") }
print("verdict", o and o.verdict)
print("reason", o and o.reason)
print("message", o and o.message)
paths.remove_tree(work)
]]

local function put(path, text, mode)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  if mode then assert(os.execute("chmod " .. mode .. " " .. shell.quote(path))) end
end

describe("clua.gradecheck through the grader's runner", function()
  if not have then
    pending("oclgrind is not installed (apt-get install oclgrind): the grader's check is not run")
    return
  end
  local root, env

  setup(function()
    root = shell.run("mktemp -d"):match("[^\n]+")
    for _, d in ipairs({ "recipes/bin", "recipes/lib", "class", "logs" }) do
      assert(os.execute("mkdir -p " .. shell.quote(root .. "/" .. d)))
    end
    put(root .. "/secret.txt", TOKEN .. " root:x:0:0\n")
    put(root .. "/recipes/standin.lua", RECIPE:format(root .. "/secret.txt"))
    put(root .. "/recipes/bin/oclgrind", ('#!/bin/sh\nLD_LIBRARY_PATH=%s/recipes/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\n'
      .. 'export LD_LIBRARY_PATH\nexec %s "$@"\n'):format(root, shell.run("command -v oclgrind"):match("[^\n]+")), "755")
    put(root .. "/class/race.cl", shell.read("spec/fixtures/check/race.cl"))
    put(root .. "/driver.lua", DRIVER)
    env = ("GRADER_TOKEN=xyz PATH=%s"):format(shell.quote(root .. "/recipes/bin:" .. os.getenv("PATH")))
  end)
  teardown(function() os.execute("rm -rf " .. shell.quote(root)) end)

  local function check(mode, options)
    local clua = CLUA:sub(1, 1) == "/" and CLUA or (lfs.currentdir() .. "/" .. CLUA)
    return shell.run(("%s %s %s %s %s %s %s"):format(env, shell.quote(CLUA), shell.quote(root .. "/driver.lua"),
      shell.quote(root), mode, shell.quote(options), shell.quote(clua)))
  end

  it("runs the check in the box: the secret hidden, the wrapper's variables kept, the race found, the output capped",
    function()
    if not box.ok then pending("the sandbox cannot start here: " .. tostring(box.why)) return end
    local out, code = check("box", "")
    assert.are.equal(0, code, out)
    assert.matches("probe\ttrue", out, 1, true)
    assert.matches("verdict\tunsafe", out, 1, true)
    assert.matches("reason\tdata race (read-write, local memory) in kernel 'sum' at " .. root .. "/class/race.cl:8:27",
      out, 1, true)
    local log = shell.read(root .. "/logs/box.log")
    local head = log:sub(1, 400)
    assert.matches("^HIDDEN\n", head)
    -- the wrapper's folder, where Oclgrind put its own before it
    assert.matches(("\nLD_LIBRARY_PATH=[^\n]*%s/recipes/lib\n"):format(root:gsub("%p", "%%%0")), head)
    assert.matches("\nGRADER_TOKEN=nil\n", head, 1, true)
    assert.matches("\nOCLGRIND_MAX_ERRORS=" .. require("clua.checker").MAX_REPORTS .. "\n", head, 1, true)
    assert.matches("\nCLUA_DEVICE=\n", head, 1, true)
    assert.is_true(#log <= 1024 * 1024 + 200, #log)
    assert.matches("%[clua grade: %d+ bytes %(%d+ lines%) of output cut here", log)
    for _, f in ipairs({ "box.log", "box.err" }) do
      assert.falsy(shell.read(root .. "/logs/" .. f):find(TOKEN, 1, true), f)
    end
  end)

  it("does not follow a link the checked run planted where Oclgrind writes its log", function()
    if not box.ok then pending("the sandbox cannot start here: " .. tostring(box.why)) return end
    local out, code = check("box", "--plant-link")
    assert.are.equal(0, code, out)
    assert.matches("verdict\tnil", out, 1, true)
    assert.falsy(out:find(TOKEN, 1, true))
    for name in lfs.dir(root .. "/logs") do
      if name:match("^boxplantlink") then
        assert.falsy(shell.read(root .. "/logs/" .. name):find(TOKEN, 1, true), name)
      end
    end
  end)

  it("runs it without the box under --no-sandbox (the secret then seen), its output capped all the same", function()
    local out, code = check("nobox", "")
    assert.are.equal(0, code, out)
    assert.matches("probe\ttrue", out, 1, true)
    assert.matches("verdict\tunsafe", out, 1, true)
    local log = shell.read(root .. "/logs/nobox.log")
    assert.are.equal("SEEN " .. TOKEN, log:sub(1, 5 + #TOKEN))
    assert.matches("\nGRADER_TOKEN=xyz\n", log:sub(1, 400), 1, true)
    assert.is_true(#log <= 1024 * 1024 + 200, #log)
  end)

  it("says where Oclgrind is not in the box: a program outside /usr", function()
    if not box.ok then pending("the sandbox cannot start here: " .. tostring(box.why)) return end
    local bin = root .. "/elsewhere"
    assert(os.execute("mkdir -p " .. shell.quote(bin)))
    put(bin .. "/oclgrind", ('#!/bin/sh\nexec %s "$@"\n'):format(shell.run("command -v oclgrind"):match("[^\n]+")), "755")
    local out = shell.run(("PATH=%s %s -e %s"):format(shell.quote(bin .. ":" .. os.getenv("PATH")), shell.quote(CLUA),
      shell.quote(([[package.path = "lua/?.lua;" .. package.path
local paths = require("clua.paths")
local work = assert(paths.tempdir("clua-gradecheck-spec"))
local r = require("clua.runner").new{ clua = %q, recipes = "recipes", wall = 60, sandboxed = true, work = work }
print(require("clua.gradecheck").probe(r))
paths.remove_tree(work)]]):format(CLUA))))
    assert.matches("nil\toclgrind (" .. bin .. "/oclgrind) did not run clua in the sandbox: ", out, 1, true)
    assert.matches("; the sandbox shows only /usr of this machine's programs: install Oclgrind under /usr or /usr/local",
      out, 1, true)
  end)
end)
