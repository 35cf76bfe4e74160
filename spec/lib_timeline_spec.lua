package.path = "lua/?.lua;" .. package.path
local timeline = require("clua.timeline")
local json = require("dkjson")

-- Two queues: q0 writes, computes, reads; q1 does the same half a step later.
local function two_queues()
  local tl = timeline.new("pipeline")
  local t = 5000000
  local function ev(a, b) return { start = t + a, ["end"] = t + b } end
  tl:add("q0", "write", "A0", ev(0, 500000))
  tl:add("q0", "kernel", "k0", ev(500000, 900000))
  tl:add("q0", "read", "C0", ev(900000, 1400000))
  tl:add("q1", "write", "A1", ev(500000, 1000000))
  tl:add("q1", "kernel", "k1", ev(1000000, 1400000))
  tl:add("q1", "read", "C1", ev(1400000, 1900000))
  return tl
end

describe("clua.timeline", function()
  it("writes a Chrome trace that parses, with one lane per queue", function()
    local d = json.decode(two_queues():trace())
    assert.is_table(d.traceEvents)
    local lanes, names, x = {}, {}, 0
    for _, e in ipairs(d.traceEvents) do
      if e.ph == "X" then
        x = x + 1
        lanes[e.tid] = true
        assert.is_number(e.ts); assert.is_number(e.dur); assert.equal(1, e.pid)
      elseif e.name == "thread_name" then
        names[e.tid] = e.args.name
      end
    end
    assert.equal(6, x)
    local n = 0
    for tid in pairs(lanes) do n = n + 1; assert.truthy(names[tid]) end
    assert.equal(2, n)
    assert.same({ "q0", "q1" }, { names[1], names[2] })
  end)

  it("puts times in microseconds from the first start", function()
    local d = json.decode(two_queues():trace())
    local k1
    for _, e in ipairs(d.traceEvents) do if e.name == "k1" then k1 = e end end
    assert.equal(1000, k1.ts)
    assert.equal(400, k1.dur)
    assert.equal("kernel", k1.cat)
  end)

  it("draws one line per lane within 80 columns, copies and kernels apart", function()
    local text = two_queues():text(80)
    local lines = {}
    for l in text:gmatch("[^\n]+") do lines[#lines + 1] = l end
    assert.equal("pipeline", lines[1])
    assert.matches("^q0 +|>+#+<+ *|$", lines[2])
    assert.matches("^q1 +| +>+#+<+|$", lines[3])
    assert.matches("1.90 ms$", lines[4])
    for _, l in ipairs(lines) do assert.is_true(utf8.len(l) <= 80) end
    assert.equal(utf8.len(lines[2]), utf8.len(lines[4]) + 1)
  end)

  it("derives the kind from an event's command", function()
    local tl = timeline.new()
    tl:add("q", nil, nil, { command = "ndrange_kernel", start = 0, ["end"] = 10 })
    tl:add("q", nil, nil, { command = "read_buffer", start = 10, ["end"] = 20 })
    local r = tl:resolve()
    assert.equal("kernel", r[1].kind)
    assert.equal("read", r[2].kind)
    assert.equal("read_buffer", r[2].label)
  end)
end)
