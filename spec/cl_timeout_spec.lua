-- Deadlines on waits (cl.timeout, CLUA_TIMEOUT, a recipe's --timeout): a
-- kernel that never ends makes every kind of wait raise "METHOD: timed out
-- after S s waiting for kernel 'NAME'", and the process ends by itself with a
-- non-zero status, saying the device still runs the command, instead of
-- hanging in the wait, in a release or at exit. Each child runs under
-- `timeout 60`: a hang fails the spec, it does not hang it.
package.path = "lua/?.lua;" .. package.path
local cl = require("cl")
local shell = require("spec.support.shell")

local CLUA = os.getenv("CLUA") or "build/clua"

-- An endless kernel: x[0] stays 0 (nothing writes it), so the loop never
-- ends; x[1] changes each turn, so the compiler keeps the loop.
local LOOP = [[
local cl = require("cl")
local how = arg[1]
local ctx = cl.context()
local q = ctx:queue()
local k = ctx:program("kernel void loop(global int *x) { while (x[0] >= 0) x[1]++; }"):build():kernel("loop")
local b = ctx:buffer(cl.array("int", 4))
k:args(b)
if how ~= "env" then cl.timeout(1) end
local e = q:launch(k, 1)
if how == "wait" then e:wait()
elseif how == "finish" or how == "env" then q:finish()
elseif how == "read" then q:read(b, cl.array("int", 4))
elseif how == "map" then q:map(b)
elseif how == "cl.wait" then cl.wait({ e })
elseif how == "no event" then q:launch(k, 1, nil, { event = false }); q:finish()
elseif how == "pcall" then
  local ok, err = pcall(q.finish, q)
  print("caught:", ok, err)
  local ok2, err2 = pcall(q.read, q, b, cl.array("int", 4))
  print("again:", ok2, err2)
  return
elseif how == "end" then
  print("the script ends while the kernel runs")
  return
end
print("a figure that must not be printed")
]]

-- Runs clua with a script (or args) under timeout 60; returns the exit
-- status, seconds, stdout, stderr.
local function run(args, env)
  local out, errf = os.tmpname(), os.tmpname()
  local cmd = ("%s timeout -k 5 60 %s %s >%s 2>%s; echo \"exit=$?\""):format(env or "", shell.quote(CLUA), args,
    shell.quote(out), shell.quote(errf))
  local t0 = cl.now()
  local p = assert(io.popen(cmd))
  local status = p:read("a")
  p:close()
  local seconds = (cl.now() - t0) / 1e9
  local o, e = shell.read(out), shell.read(errf)
  os.remove(out)
  os.remove(errf)
  return tonumber(status:match("exit=(%d+)")), seconds, o, e
end

local script
setup(function()
  script = os.tmpname()
  local f = assert(io.open(script, "w"))
  f:write(LOOP)
  f:close()
end)
teardown(function() os.remove(script) end)

local STILL = "clua: the device is still running a command that timed out"

describe("a kernel that never ends", function()
  for how, method in pairs { wait = "event:wait", finish = "queue:finish", read = "queue:read", map = "queue:map",
    ["cl.wait"] = "cl.wait" } do
    it(("times out in %s, and the process ends by itself"):format(method), function()
      local code, seconds, out, err = run(shell.quote(script) .. " " .. shell.quote(how))
      assert.are_not.equal(0, code, err)
      assert.are_not.equal(124, code, "killed by timeout 60: " .. err)
      assert.truthy(err:find(method .. ": timed out after 1 s waiting for kernel 'loop'", 1, true), err)
      assert.truthy(err:find(STILL, 1, true), err)
      assert.falsy(out:find("a figure", 1, true))
      assert.is_true(seconds < 20, ("took %.1f s"):format(seconds))
    end)
  end

  it("names the newest launch when the wait is for the queue's commands (a launch without event)", function()
    local code, _, _, err = run(shell.quote(script) .. " 'no event'")
    assert.are_not.equal(0, code)
    assert.truthy(err:find("queue:finish: timed out after 1 s waiting for the queue's commands "
      .. "(the newest launch: kernel 'loop')", 1, true), err)
  end)

  it("takes CLUA_TIMEOUT from the environment", function()
    local code, seconds, _, err = run(shell.quote(script) .. " env", "CLUA_TIMEOUT=0.5")
    assert.are_not.equal(0, code)
    assert.truthy(err:find("queue:finish: timed out after 0.5 s waiting for kernel 'loop'", 1, true), err)
    assert.is_true(seconds < 20)
  end)

  it("refuses a CLUA_TIMEOUT that is not a number of seconds, on one line", function()
    local code, _, _, err = run("-e 'require \"cl\"'", "CLUA_TIMEOUT=soon")
    assert.are.equal(1, code)
    assert.are.equal("CLUA_TIMEOUT='soon' is not a number of seconds (unset it, or set it to e.g. 60 or 0.5)",
      err:gsub("^[^:]*: ", ""):gsub("\n$", ""))
  end)

  it("lets a script catch the timeout; later waits time out too, and the process still ends", function()
    local code, seconds, out, err = run(shell.quote(script) .. " pcall")
    assert.are_not.equal(0, code)
    assert.truthy(out:find("caught:\tfalse\tqueue:finish: timed out after 1 s", 1, true), out)
    assert.truthy(out:find("again:\tfalse\tqueue:read: timed out after 1 s", 1, true), out)
    assert.truthy(err:find(STILL, 1, true), err)
    assert.is_true(seconds < 20)
  end)

  it("bounds the wait for running commands at the end of a script", function()
    local code, seconds, out, err = run(shell.quote(script) .. " end")
    assert.truthy(out:find("the script ends while the kernel runs", 1, true))
    assert.are_not.equal(0, code)
    assert.are_not.equal(124, code, "killed by timeout 60 (a release waited for the kernel): " .. err)
    assert.truthy(err:find(STILL, 1, true), err)
    assert.is_true(seconds < 20)
  end)

  it("ends a recipe in assignment mode with the message, no figure and a non-zero status", function()
    local kernel = os.tmpname()
    local f = assert(io.open(kernel, "w"))
    f:write("kernel void reduce(global const float *in, global float *out, uint n, local float *s) {\n"
      .. "  while (in[0] == in[0] || n > 0) s[get_local_id(0)] = in[get_global_id(0) % n];\n"
      .. "  out[get_group_id(0)] = s[0];\n}\n")
    f:close()
    local code, seconds, out, err = run("recipes/reduction.lua --quick --timeout 2 --kernel " .. shell.quote(kernel))
    os.remove(kernel)
    assert.are.equal(1, code, err)
    assert.truthy(err:find("recipe reduction: .*timed out after 2 s waiting for kernel 'reduce'"), err)
    assert.truthy(err:find(STILL, 1, true), err)
    assert.falsy(out:find("GB/s", 1, true), out)
    assert.is_true(seconds < 30, ("took %.1f s"):format(seconds))
  end)
end)

describe("cl.timeout", function()
  local before
  before_each(function() before = cl.timeout() end)
  after_each(function() cl.timeout(before or false) end)

  it("gets and sets the deadline; 0 and false take it away", function()
    assert.are.equal(2.5, cl.timeout(2.5))
    assert.are.equal(2.5, cl.timeout())
    assert.are.equal(2.5, cl.timeout(nil))
    assert.is_nil(cl.timeout(0))
    cl.timeout(3)
    assert.is_nil(cl.timeout(false))
  end)

  it("refuses what is not a number of seconds", function()
    assert.matches("bad argument #1 to 'cl.timeout' %(a number of seconds, 0 or more%)", select(2, pcall(cl.timeout, -1)))
    assert.matches("bad argument #1 to 'cl.timeout' %(a number of seconds, 0 or more%)",
      select(2, pcall(cl.timeout, 0 / 0)))
    assert.matches("bad argument #1 to 'cl.timeout' %(number expected, got string%)", select(2, pcall(cl.timeout, "x")))
    assert.matches("number expected, got boolean", select(2, pcall(cl.timeout, true)))
  end)

  it("does not end a wait that finishes in time", function()
    local ctx = cl.context()
    local q = ctx:queue()
    local b = ctx:buffer(1 << 20)
    cl.timeout(30)
    q:fill(b, 1, { type = "int" })
    q:finish()
    local a = cl.array("int", 4)
    q:read(b, a)
    assert.are.equal(1, a[3])
  end)

  it("is 60 s in a recipe's assignment mode unless --timeout (or CLUA_TIMEOUT) says otherwise", function()
    local recipe = require("clua.recipe")
    local spec = { name = "demo", student = "any kernel" }
    spec.args = { "--kernel", "x.cl" }
    local R = recipe.new(spec)
    assert.are.equal(os.getenv("CLUA_TIMEOUT") and nil or 60, R.timeout)
    spec.args = { "--kernel", "x.cl", "--timeout", "5" }
    assert.are.equal(5, recipe.new(spec).timeout)
    spec.args = {}
    assert.is_nil(recipe.new(spec).timeout)
    spec.args = { "--timeout", "0.25" }
    R = recipe.new(spec)
    assert.are.equal(0.25, R.timeout)
    local seen
    R:main(function() seen = cl.timeout() end)
    assert.are.equal(0.25, seen)
    assert.are.equal(before, cl.timeout(), "restored after the body")
  end)
end)
