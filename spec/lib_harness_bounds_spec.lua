-- R:measure holds every figure against its physical bound (clua.bounds), with
-- stand-ins for the device: a `run` whose "event" is a Lua table (start and
-- end in ns, as a cl.event reads), a queue that does nothing and a facts
-- table whose bounds are whatever the test needs. The headline defect of
-- issue 34: NVIDIA's event for clEnqueueMigrateMemObjects lasts 0 ns, and
-- multigpu printed 268435456.0 GB/s in every cell of its matrix. Here: an
-- event of 0 ns falls back to the host clock (with a note), a figure above
-- its bound by events is timed again by the host clock, and one above it by
-- the host clock too ends the run with no table printed.
package.path = "lua/?.lua;" .. package.path
local recipe = require("clua.recipe")
local bounds = require("clua.bounds")
local cl = require("cl")

local function sink()
  local s = { text = "" }
  function s:write(...) for _, x in ipairs({ ... }) do self.text = self.text .. tostring(x) end return self end
  function s:flush() return self end
  return s
end

-- A recipe on stand-ins: no OpenCL is touched.
local function make(facts)
  local R = recipe.new{ name = "bounds", args = { "--reps", "5", "--warmup", "1" }, out = sink(), err = sink(),
    exit = function() end }
  R.exit = function(code) R.exit_code = code end
  rawset(R, "facts", facts)
  rawset(R, "queue", { finish = function() end, fill = function() end })
  return R
end

-- A stand-in repetition: an "event" of `ns` by the device's clock, after
-- `host_ns` of host time (a busy wait: what the host clock sees).
local function run_of(ns, host_ns)
  return function()
    local t0 = cl.now()
    while cl.now() - t0 < (host_ns or 0) do end
    return { start = 1000, ["end"] = 1000 + ns }
  end
end

local function measure(R, spec)
  spec.finish = function() end
  return R:measure(spec)
end

describe("R:measure against the bounds", function()
  it("times a command whose event lasts 0 ns by the host clock, and says so", function()
    local R = make({ pcie_bps = 25e9 })
    local res = measure(R, { label = "0:0 -> 0:1", run = run_of(0, 200e3), bytes = 1e6, bound = "pcie" })
    assert.are.equal("host", res.clock)
    assert.is_true(res.median >= 200e3, "the host clock saw the busy wait: " .. res.median)
    assert.is_true(res.per_s <= 25e9 * bounds.SLACK)
    assert.matches("an event reports 0 ns: the driver does not time this command; timed by the host clock",
      res.notes[1], 1, true)
  end)

  it("never gives 268435456 GB/s for an event of 0 ns clamped to 1 ns", function()
    -- what multigpu printed: 256 MiB / 1 ns
    local R = make({ pcie_bps = 25e9 })
    local res = measure(R, { label = "migrate", run = run_of(1, 20e6), bytes = 256 * 2 ^ 20, bound = "pcie" })
    assert.are.equal("host", res.clock) -- 268435 GB/s by its event is above the link: timed again
    assert.is_true(res.per_s <= 25e9 * bounds.SLACK, "printed " .. res.per_s / 1e9 .. " GB/s")
    assert.matches("by its events 268435456 GB/s, above the theoretical PCIe (per direction) bandwidth, 25.00 GB/s",
      res.notes[1], 1, true)
  end)

  it("uses the sanity cap of the kind when the device's link is not known", function()
    local R = make({})
    local res = measure(R, { label = "migrate", run = run_of(1, 200e3), bytes = 1e5, bound = "pcie" })
    assert.are.equal("host", res.clock)
    assert.matches("the sanity cap for pcie figures", res.notes[1], 1, true)
  end)

  it("refuses a figure above its bound by the host clock too", function()
    local R = make({ pcie_bps = 1e3 }) -- a tiny bound: 1 kB/s
    local ok, err = pcall(measure, R, { label = "0:0 -> 0:1", run = run_of(0), bytes = 1e6, bound = "pcie" })
    assert.is_false(ok)
    assert.matches("0:0 %-> 0:1: [%d.]+ GB/s by the host clock is above the theoretical PCIe %(per direction%) "
      .. "bandwidth, 1e%-06 GB/s", err)
    assert.matches("not a result", err, 1, true)
  end)

  it("holds a number given as the bound, and the memory bound", function()
    local R = make({ memory_bps = 1e3 })
    assert.has_error(function() measure(R, { label = "copy", run = run_of(10), bytes = 1e6 }) end)
    assert.has_error(function() measure(R, { label = "both", run = run_of(10), bytes = 1e6, bound = 2e3 }) end)
    local res = measure(R, { label = "slow", run = run_of(1e9), bytes = 1, bound = 2e3 })
    assert.are.equal("event", res.clock)
    assert.are.same({}, res.notes)
  end)

  it("holds operations against the compute bound", function()
    local R = make({})
    local ok, err = pcall(measure, R, { label = "fma", run = run_of(1), ops = 1e9 })
    assert.is_false(ok)
    assert.matches("fma: [%d.]+ Gop/s is above the sanity cap for compute figures", err)
  end)

  it("prints no figure above its bound: the run ends non-zero with no table", function()
    local R = make({ pcie_bps = 1e3 })
    R:main(function()
      local res = measure(R, { label = "0:1 -> 0:0", run = run_of(0), bytes = 256 * 2 ^ 20, bound = "pcie" })
      local t = R:table{ title = "Device to device", id = "matrix", columns = { { name = "source", key = true },
        { name = "0:0", unit = "GB/s", format = "%.1f" } } }
      t:add{ source = "0:1", ["0:0"] = res.bw }
      R:emit(t)
    end)
    assert.are.equal(1, R.exit_code)
    assert.are.equal("", R.out.text)
    assert.matches("recipe bounds: 0:1 %-> 0:0: .* by the host clock is above", R.err.text)
  end)

  it("keeps every printed figure within its bound, whatever the events say", function()
    for _, ns in ipairs({ 0, 1, 10, 1000, 1e6 }) do
      local R = make({ pcie_bps = 10e9 })
      local ok, res = pcall(measure, R, { label = "x", run = run_of(ns, 50e3), bytes = 1e5, bound = "pcie" })
      if ok then
        assert.is_true(res.per_s <= 10e9 * bounds.SLACK, ("%d ns: %s B/s printed"):format(ns, res.per_s))
      else
        assert.matches("not a result", res, 1, true)
      end
    end
  end)
end)
