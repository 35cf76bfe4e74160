-- clua.harness on the default device (PoCL in CI): the measurement cycle's
-- checks each fail a kernel that breaks its contract, naming what it broke:
-- a write inside an output buffer outside the part it owns, an input it
-- changed, a wrong owned part, CLUA_CORRUPT's injected element; a write past
-- the allocation in assignment mode; and a working set within the caches
-- reads as a cache figure.
package.path = "lua/?.lua;" .. package.path
local cl = require("cl")
local recipe = require("clua.recipe")

local function sink()
  local s = { text = "" }
  function s:write(...) for _, x in ipairs({ ... }) do self.text = self.text .. tostring(x) end return self end
  function s:flush() return self end
  return s
end

local function make(args, spec)
  spec = spec or {}
  spec.name, spec.args = spec.name or "harness", args or { "--reps", "2", "--warmup", "1" }
  local R = recipe.new(spec)
  R.out, R.err = sink(), sink()
  return R
end

-- out[i] = in[i] for i < n, and, when `extra` >= 0, out[extra] = -1 too.
local SRC = [[
__kernel void copy_extra(__global const float *in, __global float *out, uint n, int extra) {
  size_t i = get_global_id(0);
  if (i < n) out[i] = (int)i == extra ? -1.0f : in[i];
  if (i == 0 && extra >= (int)n) out[extra] = -1.0f;
}
__kernel void copy_stride(__global const float *in, __global float *out, uint n, uint s, int extra) {
  size_t i = get_global_id(0);
  if (i < n) out[i * s] = i * s == extra ? -1.0f : in[i * s];
  if (i == 0 && extra >= 0 && extra % s != 0) out[extra] = -1.0f;
}
__kernel void scribble(__global float *in, uint n) {
  if (get_global_id(0) == 0) in[n / 2] = 42.0f;
}
]]

local N = 1024

local function setup_copy(R, extra, out_n)
  local k = R.ctx:program(SRC):build():kernel("copy_extra")
  local host = cl.array("float", N):ramp(1, 1)
  local din = R:input("in", host)
  local dout = R:output("out", "float", out_n or 2 * N)
  k:args(din, dout, cl.uint(N), cl.int(extra))
  return k, host, din, dout
end

local function measure_copy(R, k, host, din, dout)
  return R:measure{ label = "copy", run = function() return R.queue:launch(k, N) end, reads = { din },
    outputs = { { dout, owns = { 0, N }, expect = host } }, bytes = 2 * 4 * N }
end

describe("clua.harness", function()
  it("measures a kernel that keeps its contract: figures, spread, and the owned part verified", function()
    local R = make()
    local res = measure_copy(R, setup_copy(R, -1))
    assert.are.equal("copy", res.label)
    assert.is_true(res.median > 0 and res.min <= res.median and res.median <= res.max)
    assert.is_number(res.spread)
    assert.is_true(res.bw > 0)
  end)

  it("fails a write inside the output buffer but outside the part the kernel owns, naming the element", function()
    local R = make()
    local ok, err = pcall(measure_copy, R, setup_copy(R, N + 5))
    assert.is_false(ok)
    assert.truthy(tostring(err):find("copy: out[1029] written outside the part the kernel owns (out[0 .. 1024) "
      .. "of 2048 elements", 1, true), err)
  end)

  it("refuses declared writes past the output buffer before the kernel runs, naming buffer, size and range", function()
    local R = make()
    local k, host, din, dout = setup_copy(R, -1, N // 2) -- the kernel writes N elements, the buffer holds N / 2
    local launched = false
    local function measure(outputs)
      return pcall(R.measure, R, { label = "copy", reads = { din }, outputs = outputs,
        run = function() launched = true; return R.queue:launch(k, N) end })
    end
    local ok, err = measure({ { dout, owns = { 0, N }, expect = host } })
    assert.is_false(ok)
    assert.are.equal("R:measure copy: outputs[1]: the kernel owns out[0 .. 1024), past the end of the buffer out of "
      .. "512 float elements (2 KiB): make the buffer hold 1024 elements (R:output) or the range what it holds; the "
      .. "kernel was not launched", err)
    -- no owns: the whole buffer, against which the expected result is too long
    ok, err = measure({ { dout, expect = host } })
    assert.is_false(ok)
    assert.are.equal("R:measure copy: outputs[1]: the expected result has 1024 elements, the part the kernel owns "
      .. "out[0 .. 512) 512 (the buffer out holds 512 float elements (2 KiB)): a kernel writing them all would write "
      .. "past its end; the kernel was not launched", err)
    ok, err = measure({ { dout, owns = { 0, 100 }, expect = host:slice(0, 99) } })
    assert.is_false(ok)
    assert.matches("the expected result has 99 elements, the part the kernel owns out[0 .. 100) 100 (the buffer out "
      .. "holds 512 float elements (2 KiB)); the kernel was not launched", err, 1, true)
    for _, bad in ipairs({ { 10, 5 }, { -1, 4 }, { 0, 1.5 }, "all" }) do
      ok, err = measure({ { dout, owns = bad } })
      assert.is_false(ok)
      assert.matches("R:measure copy: outputs[1] (out): owns must be {lo, hi}, two integers with 0 <= lo <= hi, got ",
        err, 1, true)
    end
    assert.is_false(launched)
    -- R:try_launch with the same declaration refuses the same way, and launches nothing
    ok, err = pcall(R.try_launch, R, k, N, nil, { outputs = { { dout, owns = { 0, N } } } })
    assert.is_false(ok)
    assert.matches("R:try_launch kernel 'copy_extra': outputs[1]: the kernel owns out[0 .. 1024), past the end of "
      .. "the buffer out of 512 float elements (2 KiB)", err, 1, true)
    -- within the buffer: accepted, and launched
    dout = R:output("out", "float", N)
    k:args(din, dout, cl.uint(N), cl.int(-1))
    assert.is_true(R:try_launch(k, N, nil, { outputs = { { dout, owns = { 0, N }, expect = host } } }))
    ok, err = measure({ { dout, owns = { 0, N }, expect = host } })
    assert.is_true(ok, err)
    assert.is_true(launched)
  end)

  it("fails a wrong owned part with the verification's first wrong element", function()
    local R = make()
    local ok, err = pcall(measure_copy, R, setup_copy(R, 7))
    assert.is_false(ok)
    assert.truthy(tostring(err):find("verify copy: out[0 .. 1024): 1 of 1024 elements differ", 1, true), err)
    assert.truthy(tostring(err):find("index 7: got -1", 1, true), err)
  end)

  it("fails a kernel that changes an input it only reads", function()
    local R = make()
    local k = R.ctx:program(SRC):build():kernel("scribble")
    local host = cl.array("float", N):fill(1)
    local din = R:input("in", host, "read_write")
    k:args(din, cl.uint(N))
    local ok, err = pcall(R.measure, R, { label = "scribble", run = function() return R.queue:launch(k, 1) end,
      reads = { din } })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("scribble: in: an input changed: 1 of 1024 elements, the first in[512] "
      .. "(42.0, was 1.0)", 1, true), err)
  end)

  it("corrupts one element under CLUA_CORRUPT, once a run, so that verification fails", function()
    local R = make()
    R.corrupt = true
    local ok, err = pcall(measure_copy, R, setup_copy(R, -1))
    assert.is_false(ok)
    assert.truthy(tostring(err):find("1 of 1024 elements differ", 1, true), err)
    local again = measure_copy(R, setup_copy(R, -1)) -- once a run: the next verification passes
    assert.is_true(again.median > 0)
  end)

  -- R:measure's `device` option (R:device_strided): out[i*S] = in[i*S], the
  -- poison between them, checked by kernels/harness.cl's first_strided; the
  -- host check (a Lua loop here) runs only to name what the device found.
  local S = 3
  local function measure_strided(R, extra)
    local k = R.ctx:program(SRC):build():kernel("copy_stride")
    local host = cl.array("float", N * S):ramp(1, 1)
    local din = R:input("in", host)
    local dout = R:output("out", "float", N * S)
    k:args(din, dout, cl.uint(N), cl.uint(S), cl.int(extra))
    local host_checked = false
    local poison = require("clua.harness").POISON
    local pf = string.unpack("<f", string.char(poison):rep(4))
    local res = R:measure{ label = "strided", run = function() return R.queue:launch(k, N) end, reads = { din },
      outputs = { { dout, owns = { 0, (N - 1) * S + 1 }, device = R:device_strided(din, S), check = function(got)
        host_checked = true
        for i = 0, #got - 1 do
          local want = i % S == 0 and host[i] or pf
          if got[i] ~= want then error(("verify strided: out[%d] is %s"):format(i, tostring(got[i])), 0) end
        end
        return 0
      end } }, bytes = 2 * 4 * N }
    return res, host_checked
  end

  it("checks an output on the device, reading it back only to name a difference", function()
    local res, host_checked = measure_strided(make(), -1)
    assert.are.equal(0, res.err)
    assert.is_false(host_checked)
  end)

  it("fails a wrong element the device check finds, named by the host check: a copied one or a gap", function()
    for _, at in ipairs({ 3 * 100, 3 * 100 + 1, 3 * 100 + 2, 0, (N - 1) * S }) do
      local ok, err = pcall(measure_strided, make(), at)
      assert.is_false(ok)
      assert.truthy(tostring(err):find(("verify strided: out[%d] is -1.0"):format(at), 1, true), err)
    end
  end)

  it("fails when the device finds a difference that the host check passes", function()
    local R = make()
    local k = R.ctx:program(SRC):build():kernel("copy_extra")
    local host = cl.array("float", N):ramp(1, 1)
    local din = R:input("in", host)
    local dout = R:output("out", "float", N)
    k:args(din, dout, cl.uint(N), cl.int(9))
    local ok, err = pcall(R.measure, R, { label = "lenient", run = function() return R.queue:launch(k, N) end,
      outputs = { { dout, device = R:device_strided(din), check = function() return 0 end } } })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("found out[0 .. 1024) wrong at its element 9", 1, true), err)
  end)

  it("refuses a device check of a write_only output, which no kernel may read", function()
    local R = make()
    local din = R:input("in", cl.array("float", N):ramp(1, 1))
    local dout = R:output("out", "float", N, "write_only")
    local ok, err = pcall(R.measure, R, { label = "wo", run = function() end,
      outputs = { { dout, device = R:device_strided(din), check = function() return 0 end } } })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("R:measure: outputs[1] (out): the device check reads it in a kernel, and it was "
      .. "made write_only (R:output's flags), which no kernel may read: leave write_only out", 1, true), err)
  end)

  it("puts CLUA_CORRUPT's wrong element in a device-checked buffer, which the device check must find", function()
    local R = make()
    R.corrupt = true
    local ok, err = pcall(measure_strided, R, -1)
    assert.is_false(ok)
    assert.truthy(tostring(err):find(("verify strided: out[%d] is"):format(((N - 1) * S + 1) // 2), 1, true), err)
    local again = measure_strided(R, -1) -- once a run
    assert.are.equal(0, again.err)
  end)

  it("guards assignment mode's buffers: a write past the allocation fails", function()
    local f = os.tmpname()
    local h = assert(io.open(f, "w")); h:write(SRC); h:close()
    local R = make({ "--reps", "1", "--warmup", "0", "--kernel", f, "--kernel-name", "copy_extra" },
      { student = "a test contract" })
    local k = R:student_kernel()
    local host = cl.array("float", N):ramp(1, 1)
    local din = R:input("in", host)
    local dout = R:output("out", "float", N)
    k:args(din, dout, cl.uint(N), cl.int(N + 1))
    local ok, err = pcall(measure_copy, R, k, host, din, dout)
    os.remove(f)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("student: out: 4 bytes written at offset 4100, past the end (4096 bytes)",
      1, true), err)
  end)

  it("leaves no guard zones on a device that checks every access (Oclgrind), the inputs still checked", function()
    local guard = require("clua.guard")
    assert.are.equal(0, guard.zone_bytes({ info = { name = "Oclgrind Simulator" } }))
    assert.is_true(guard.zone_bytes({ info = { name = "pthread-cpu", mem_base_addr_align = 1024 } }) >= 4096)
    local R = make()
    local g = guard.new(R.ctx, R.queue)
    g.zone = 0 -- as on Oclgrind: a read or write past the buffer is past its allocation
    local host = cl.array("float", N):ramp(1, 1)
    local sub = g:buffer("in", host, { input = true })
    assert.are.equal(N * 4, g.buffers[1].parent.size)
    g:check("k") -- nothing changed
    g:reset()
    R.queue:write(sub, cl.array("float", 1):fill(-1))
    local ok, err = pcall(g.check, g, "after k")
    assert.is_false(ok)
    assert.truthy(tostring(err):find("student: in: an input changed: 1 of " .. N .. " elements, the first at index 0", 1,
      true), err)
  end)

  it("names the variant when the driver refuses its launch", function()
    local R = make()
    local k, host, din, dout = setup_copy(R, -1)
    local too_big = R.device.info.max_work_group_size * 2
    local ok, err = pcall(R.measure, R, { label = "student: k (k.cl)", reads = { din },
      run = function() return R.queue:launch(k, too_big, too_big) end,
      outputs = { { dout, owns = { 0, N }, expect = host } } })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("^student: k %(k%.cl%): .*queue:launch"), err)
  end)

  it("marks a working set within the device's caches as a cache figure", function()
    local R = make()
    rawset(R, "facts", setmetatable({ global_mem_cache = 2 ^ 20 }, { __index = R.facts }))
    local res = measure_copy(R, setup_copy(R, -1))
    assert.is_true(res.cache)
    local t = R:table{ title = "t", columns = { { name = "variant", key = true }, R:time_columns(),
      R:bw_column("bandwidth") } }
    R:add_row(t, res, { variant = "copy" })
    assert.truthy(t.notes[1]:find("^c: a cache figure"), t.notes[1])
    assert.truthy(require("clua.report").text(t):find("%d c%s"))
  end)
  it("adds a measurement's notes once each, and one cache note naming the largest cached working set", function()
    local R = make()
    local t = R:table{ title = "t", columns = { { name = "variant", key = true }, R:time_columns() } }
    local small = { notes = { "host clock" }, cache = true, footprint = 1024, cache_note = "c: 1 KiB" }
    local large = { notes = { "host clock" }, cache = true, footprint = 4096, cache_note = "c: 4 KiB" }
    R:add_notes(t, small)
    R:add_notes(t, large)
    R:add_notes(t, small)
    assert.are.same({ "host clock", "c: 4 KiB" }, t.notes)
  end)

  it("measures on another device's context and queue with R:on, and gives R's own back, also after an error", function()
    local R = make()
    local dev, ctx, q, facts = R.device, R.ctx, R.queue, R.facts
    local ctx2 = cl.context({ dev })
    local rig = { device = dev, ctx = ctx2, q = ctx2:queue(dev, { profiling = true }), facts = facts }
    local res = R:on(rig, function()
      assert.are.equal(ctx2, R.ctx)
      local k, host, din, dout = setup_copy(R, -1)
      return measure_copy(R, k, host, din, dout)
    end)
    assert.is_true(res.median > 0)
    assert.are.equal(ctx, R.ctx)
    assert.are.equal(q, R.queue)
    local ok, err = pcall(R.on, R, rig, function() error("inside") end)
    assert.is_false(ok)
    assert.truthy(tostring(err):find("inside", 1, true))
    assert.are.equal(ctx, R.ctx)
    assert.are.equal(dev, R.device)
  end)
  it("gives time columns in a unit, with the format asked for", function()
    local R = make()
    local cols = R:time_columns("ms", { format = "%.4f", compare = false })
    assert.are.same({ "time", "min", "max" }, { cols[1].name, cols[2].name, cols[3].name })
    assert.are.equal("1.2346", cols[1].format(1234567))
    assert.are.equal("1.2346", cols[3].format(1234567))
    assert.is_false(cols[1].compare)
    assert.are.equal("1.235", R:time_columns("ms")[1].format(1234567))
    assert.are.equal("1234.6", R:time_columns()[2].format(1234567))
  end)
end)
