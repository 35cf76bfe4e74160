-- clua on Oclgrind (the checking device): a wait with a deadline completes
-- (clua flushes the queue before it polls, as OpenCL asks), and `clua check`
-- finds a race, a divergent barrier and an out-of-bounds write, each with
-- its kernel file's line, and nothing in a correct kernel; a buffer made in
-- a released one's place reads as written; commands held behind a user
-- event run (a flush before it ends does not wait for it). Pending where
-- Oclgrind is not installed.
local shell = require("spec.support.shell")

local CLUA = os.getenv("CLUA") or "build/clua"
local FIX = "spec/fixtures/check/"
local have = os.execute("command -v oclgrind >/dev/null 2>&1") == true

-- Runs a shell command under timeout 120; returns its exit status and output.
local function sh(cmd)
  local p = assert(io.popen(("timeout -k 5 120 %s 2>&1; echo \"exit=$?\""):format(cmd)))
  local out = p:read("a")
  p:close()
  return tonumber(out:match("exit=(%d+)%s*$")), out
end

local function check(file)
  return sh(("%s check %srun.lua %s%s.cl"):format(shell.quote(CLUA), FIX, FIX, file))
end

describe("clua on Oclgrind", function()
  if not have then
    pending("oclgrind is not installed (apt-get install oclgrind): the checks of clua check are not run")
    return
  end

  it("ends a wait with a deadline: the queue is flushed before the event is polled", function()
    local script = [[local cl = require "cl"
local ctx = cl.context()
local q = ctx:queue()
local k = ctx:program("kernel void k(global float *a) { a[get_global_id(0)] = 1.0f; }"):build():kernel("k")
local b = ctx:buffer(4 * 64)
local e = q:launch(k:args(b), 64)
e:wait()
print("waited", e.status, e.duration >= 0, cl.device().name)
local f = q:launch(k, 64)
q:finish()
print("finished", f.status)]]
    local code, out = sh(("env CLUA_TIMEOUT=10 ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0\" "
      .. "oclgrind %s -e %s"):format(shell.quote(CLUA), shell.quote(script)))
    assert.are.equal(0, code, out)
    assert.matches("waited\tcomplete\ttrue\tOclgrind Simulator", out, 1, true)
    assert.matches("finished\tcomplete", out, 1, true)
  end)

  it("runs commands held behind a user event: a flush before the event ends does not wait for it", function()
    -- Oclgrind's clFlush runs the queue and would wait for the gate for ever (host/sim.c)
    local script = [[local cl = require "cl"
local ctx = cl.context()
local q = ctx:queue()
local k = ctx:program("kernel void k(global float *a) { a[get_global_id(0)] += 1.0f; }"):build():kernel("k")
local b = ctx:buffer(4 * 64)
local gate = ctx:user_event()
q:write(b, cl.array("float", 32):fill(2), { blocking = false, wait = gate })
q:launch(k:args(b), 32)
local got = cl.array("float", 32)
q:read(b, got, { blocking = false })
q:flush()
gate:complete()
q:finish()
print("gated", got[0], got[31])]]
    local code, out = sh(("env CLUA_TIMEOUT=10 ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0\" "
      .. "oclgrind --uninitialized %s -e %s"):format(shell.quote(CLUA), shell.quote(script)))
    assert.are.equal(0, code, out)
    assert.matches("gated\t3.0\t3.0", out)
    assert.not_matches("Uninitialized", out)
  end)

  it("finds a race with the kernel file's line and column, and the other work-item", function()
    local code, out = check("race")
    assert.are.equal(1, code, out)
    assert.matches("clua check: 1 finding", out, 1, true)
    assert.matches("data race (read-write, local memory) in kernel 'sum' at " .. FIX .. "race.cl:8:27 and line 8:30, "
      .. "first by work-item (", out, 1, true)
    assert.matches("race.cl:8:27 and line 8:30, first by work%-item %(%d+,0,0%) %(local %(%d+,0,0%)%) of group "
      .. "%(%d,0,0%) against work%-item %(%d+,0,0%), %d+ times", out)
  end)

  it("finds a barrier that only some work-items reach", function()
    local code, out = check("divergent")
    assert.are.equal(1, code, out)
    assert.matches("barrier divergence (Only 32 out of 64 work-items executed barrier) in kernel 'sum' at "
      .. FIX .. "divergent.cl:10:13", out, 1, true)
  end)

  it("finds a write past the end of a buffer", function()
    local code, out = check("oob")
    assert.are.equal(1, code, out)
    assert.matches("out-of-bounds write (4 bytes, global memory) in kernel 'sum' at " .. FIX .. "oob.cl:6:12", out, 1, true)
    assert.matches("\n      out[i] = in[i];\n", out, 1, true)
  end)

  it("finds nothing in a correct kernel, and exits 0", function()
    local code, out = check("clean")
    assert.are.equal(0, code, out)
    assert.matches("sums\t64.0\t64.0", out, 1, true)
    assert.matches("clua check: no findings", out, 1, true)
  end)

  it("keeps a buffer in a released one's place whole, and still finds a read of bytes nothing wrote", function()
    -- Oclgrind 21.10 leaves a released buffer's record of defined bytes to the next in its place (host/sim.c)
    local code, out = sh(("%s check %sreuse.lua"):format(shell.quote(CLUA), FIX))
    assert.are.equal(0, code, out)
    assert.matches("done\nclua check: no findings", out, 1, true)
    code, out = sh(("%s check %sreuse.lua unwritten"):format(shell.quote(CLUA), FIX))
    assert.are.equal(1, code, out)
    assert.matches("uninitialized value (an undefined value written to global memory) in kernel 'use' at "
      .. FIX .. "reuse.cl:5:8, first by work-item (", out, 1, true)
    assert.matches("1024 times", out, 1, true) -- every work-item
  end)

  it("refuses what it cannot run, with the reason", function()
    local code, out = sh(("%s check nosuch"):format(shell.quote(CLUA)))
    assert.are.equal(2, code)
    assert.matches("clua check: no file or experiment named 'nosuch'", out, 1, true)
    code, out = sh(("%s check --wall x %srun.lua"):format(shell.quote(CLUA), FIX))
    assert.are.equal(2, code)
    assert.matches("clua check: --wall: a number of seconds > 0 expected, got 'x'", out, 1, true)
    code, out = sh(("%s check"):format(shell.quote(CLUA)))
    assert.are.equal(2, code)
    assert.matches("give a script or an experiment to run", out, 1, true)
  end)

  it("says when the script itself failed", function()
    local code, out = check("nofile")
    assert.are.equal(1, code, out)
    assert.matches("clua check: no findings", out, 1, true)
    assert.matches("clua check: " .. FIX .. "run.lua ended with status 1", out, 1, true)
  end)
end)
