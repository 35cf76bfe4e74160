package.path = "lua/?.lua;" .. package.path
local timing = require("clua.timing")

-- A fake device: a clock that a step advances by its duration.
local function fake(duration_ns)
  local now = 0
  local calls = 0
  local dev = {}
  function dev.clock() return now end
  function dev.event_step()     -- returns an event, like q:launch
    calls = calls + 1
    local ev = { start = now + 100, ["end"] = now + 100 + duration_ns }
    now = now + duration_ns + 200
    return ev
  end
  function dev.host_step()      -- returns nothing: timed by the host clock
    calls = calls + 1
    now = now + duration_ns
  end
  function dev.calls() return calls end
  return dev
end

describe("clua.timing", function()
  it("times a fixed count of event steps after warm-up", function()
    local d = fake(5000)
    local r = timing.run(d.event_step, { reps = 7, warmup = 3, clock = d.clock })
    assert.equal("event", r.mode)
    assert.equal(7, r.reps)
    assert.equal(3, r.warmup)
    assert.equal(10, d.calls())
    assert.equal(7, #r.times)
    assert.equal(5000, r.median)
    assert.equal(5000, r.min)
    assert.equal(5000, r.max)
    assert.equal(0, r.stddev)
  end)

  it("times a list of events from first start to last end", function()
    local step = function()
      return { { start = 10, ["end"] = 20 }, { start = 5, ["end"] = 12 }, { start = 15, ["end"] = 40 } }
    end
    local r = timing.run(step, { reps = 2, warmup = 0, clock = function() return 0 end })
    assert.same({ 35, 35 }, r.times)
  end)

  it("times a step that returns nothing by the host clock, finishing the queue", function()
    local d = fake(2000)
    local finished = 0
    local q = { finish = function() finished = finished + 1 end }
    local r = timing.run(d.host_step, { reps = 4, warmup = 1, queue = q, clock = d.clock })
    assert.equal("host", r.mode)
    assert.same({ 2000, 2000, 2000, 2000 }, r.times)
    assert.equal(5, finished)
  end)

  it("refuses host timing without a queue to finish", function()
    local d = fake(1)
    assert.has_error(function() timing.run(d.host_step, { clock = d.clock }) end)
  end)

  it("calibrates the repeat count from a probe to fill the target time", function()
    local d = fake(100000) -- 0.1 ms a step
    local r = timing.run(d.event_step, { target_ms = 5, warmup = 2, clock = d.clock })
    assert.equal(100000, r.probe_ns)
    assert.equal(50, r.reps)
    assert.equal(50, #r.times)
    assert.equal(2 + 1 + 50, d.calls()) -- warm-up, probe, timed
  end)

  it("bounds the calibrated count", function()
    local slow = fake(1e9)
    local r = timing.run(slow.host_step, { target_ms = 1, warmup = 0, clock = slow.clock,
      finish = function() end })
    assert.equal(3, r.reps)
    local fast = fake(1)
    r = timing.run(fast.event_step, { target_ms = 1000, max_reps = 64, clock = fast.clock })
    assert.equal(64, r.reps)
  end)

  it("also reports host times on request", function()
    local d = fake(3000)
    local r = timing.run(d.event_step, { reps = 3, warmup = 0, host = true, clock = d.clock })
    assert.same({ 3000, 3000, 3000 }, r.times)
    assert.same({ 3200, 3200, 3200 }, r.host_times)
    assert.equal(3200, r.host.median)
  end)
end)

local has_cl, cl = pcall(require, "cl")
if has_cl then
  describe("clua.timing on the default device", function()
    it("times real events and the host clock", function()
      local ctx = cl.context()
      local q = ctx:queue()
      local buf = ctx:buffer(1 << 20)
      local host = cl.array("uint", (1 << 20) // 4)
      local r = timing.run(function() return q:write(buf, host, { blocking = false }) end,
        { reps = 5, warmup = 1 })
      assert.equal("event", r.mode)
      assert.equal(5, #r.times)
      assert.is_true(r.min > 0 and r.min <= r.median and r.median <= r.max)
      local h = timing.run(function() q:write(buf, host, { blocking = false }) end,
        { reps = 3, warmup = 1, queue = q })
      assert.equal("host", h.mode)
      assert.is_true(h.min > 0)
      local c = timing.run(function() return { q:write(buf, host, { blocking = false }),
        q:read(buf, host, { blocking = false }) } end, { target_ms = 20, warmup = 1, host = true })
      assert.is_true(c.reps >= 3)
      assert.is_true(c.probe_ns > 0)
      assert.equal(c.reps, #c.host_times)
    end)
  end)
end
