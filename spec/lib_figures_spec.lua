-- clua.figures and clua.rows on the default device (PoCL in CI): a
-- measurement's several figures summarised, bounded and cache-marked by the
-- library, bad figure specs refused naming the figure, and R:add_row
-- writing a figure's value, spread and cache mark into its cell.
package.path = "lua/?.lua;" .. package.path
local cl = require("cl")
local recipe = require("clua.recipe")
local figures = require("clua.figures")
local report = require("clua.report")
local usage = require("spec.support.usage")

local function make(args)
  local R = recipe.new{ name = "figures", args = args or { "--reps", "3", "--warmup", "1" } }
  local sink = { write = function(s) return s end, flush = function(s) return s end }
  R.out, R.err = sink, sink
  return R
end

local SRC = [[
__kernel void fill(__global float *out, float v) { out[get_global_id(0)] = v; }
]]
local N = 4096

-- Two kernels a repetition, each writing its own output.
local function two(R)
  local prog = R.ctx:program(SRC):build()
  local a, b = R:output("a", "float", N), R:output("b", "float", N)
  local ka, kb = prog:kernel("fill"):args(a, cl.float(1)), prog:kernel("fill"):args(b, cl.float(2))
  return a, b, ka, kb
end

describe("clua.figures", function()
  it("summarises a list of times: median, min, max, mean, spread, bandwidth", function()
    local f = figures.new({ 1200, 1000, 1100 }, { bytes = 4096 })
    assert.are.same({ 1100, 1000, 1200, 1100 }, { f.median, f.min, f.max, f.mean })
    assert.is_true(math.abs(f.spread - 200 / 1100 * 100) < 1e-9)
    assert.is_true(math.abs(f.bw - 4096 / 1100) < 1e-9)
    assert.is_true(figures.is(f))
  end)

  it("takes a summary made elsewhere (a C program's median, min, max), its spread nil without min and max", function()
    local f = figures.new{ median = 2000, min = 1000, max = 3000 }
    assert.are.equal(100, f.spread)
    assert.is_nil(figures.new{ median = 2000 }.spread)
    assert.has_error(function() figures.new(7) end, "figures.new: a list of times or a summary expected, got number")
  end)

  it("runs the @usage examples of clua.figures and clua.rows", function()
    local env = { figures = figures, R = make() }
    assert.are.equal(3, usage.run("lua/clua/figures.lua", env))
    assert.are.equal(2, usage.run("lua/clua/rows.lua", env))
  end)

  it("gives each of a repetition's figures: its own events summarised and bounded, in order and by name", function()
    local R = make()
    local a, b, ka, kb = two(R)
    local res = R:measure{ label = "two", bytes = 8 * N, outputs = { { a, expect = function() return 1 end },
      { b, expect = function() return 2 end } },
      figures = { { "a", event = 1, bytes = 4 * N }, { "b", event = 2, bytes = 4 * N },
        { "host", clock = "host" }, { "both", value = function(evs) return evs end } },
      run = function() return { R.queue:launch(ka, N), R.queue:launch(kb, N) } end }
    local fa, fb, host, both = res.figures.a, res.figures.b, res.figures.host, res.figures.both
    assert.are.equal(fa, res.figures[1])
    assert.are.equal("two a", fa.label)
    assert.are.equal(3, #fa.times)
    assert.is_true(fa.min > 0 and fa.min <= fa.median and fa.median <= fa.max)
    assert.is_true(math.abs(fa.bw - R:bw(4 * N, fa.median)) < 1e-9)
    assert.are.equal("event", fa.clock)
    -- the host clock waits for the events: no shorter than their span
    assert.is_true(host.median >= both.median * 0.5)
    -- a value of a list of events is their span, the measurement's own time
    assert.are.same(res.t.times, both.times)
    assert.is_true(fb.median > 0)
  end)

  it("raises when a figure is above its bound by its fastest repetition, naming it", function()
    local R = make()
    local a, _, ka = two(R)
    local ok, err = pcall(R.measure, R, { label = "fast", outputs = { { a, expect = function() return 1 end } },
      figures = { { "claim", event = 1, bytes = 1e15, bound = "pcie" } },
      run = function() return { R.queue:launch(ka, N) } end })
    assert.is_false(ok)
    -- the device's own PCIe link where it reports one (a GPU), else the sanity cap (PoCL)
    err = tostring(err)
    assert.truthy(err:find("fast claim: .* GB/s by its fastest repetition is above the sanity cap for pcie")
      or err:find("fast claim: .* GB/s by its fastest repetition is above the theoretical PCIe"), err)
  end)

  it("does not raise for an event that must agree with the host clock: it says why it does not", function()
    local R = make()
    local a, _, ka = two(R)
    local res = R:measure{ label = "agree", outputs = { { a, expect = function() return 1 end } },
      figures = { { "zero", agree = true, value = function() return 0 end },
        { "same", agree = true, value = function(_, _, span) return span end, bytes = 4 * N } },
      run = function() return { R.queue:launch(ka, N) } end }
    assert.is_false(res.figures.zero.agrees)
    assert.are.equal("0 ns", res.figures.zero.disagree)
    assert.is_true(res.figures.same.agrees)
  end)

  it("marks a figure of a cached measurement as a cache figure", function()
    local R = make()
    rawset(R, "facts", setmetatable({ global_mem_cache = 2 ^ 30 }, { __index = R.facts }))
    local a, _, ka = two(R)
    local res = R:measure{ label = "c", bytes = 4 * N, outputs = { { a, expect = function() return 1 end } },
      figures = { { "k", event = 1, bytes = 4 * N } }, run = function() return { R.queue:launch(ka, N) } end }
    assert.is_true(res.figures.k.cache)
    assert.truthy(res.figures.k.cache_note:find("^c: a cache figure"))
  end)

  it("refuses a bad figure, naming it and the fault", function()
    local R = make()
    local function bad(figs)
      local ok, err = pcall(R.measure, R, { label = "x", run = function() end, figures = figs })
      assert.is_false(ok)
      return tostring(err)
    end
    assert.truthy(bad({ { "a", event = 1, colour = 1 } }):find("figures%[1%] %(a%): unknown option 'colour'"))
    assert.truthy(bad({ { event = 1 } }):find("figures%[1%] has no name"))
    assert.truthy(bad({ { "a" } }):find("give one of event = N, clock = \"host\" or value", 1, true))
    assert.truthy(bad({ { "a", event = 1, clock = "host" } }):find("give one of", 1, true))
    assert.truthy(bad({ { "a", event = 0 } }):find("event must be an index from 1"))
    assert.truthy(bad({ { "a", clock = "device" } }):find("clock must be \"host\"", 1, true))
    assert.truthy(bad({ { "a", event = 1 }, { "a", event = 2 } }):find("figures%[2%] %(a%): a second figure"))
    assert.truthy(bad({ { "a", event = 1, bytes = -1 } }):find("bytes must be a number >= 0"))
    assert.truthy(bad("a"):find("figures must be a list of figures"))
  end)

  it("names the figure whose event a repetition did not return", function()
    local R = make()
    local _, _, ka = two(R)
    local ok, err = pcall(R.measure, R, { label = "x", figures = { { "second", event = 2 } },
      run = function() return { R.queue:launch(ka, N) } end })
    assert.is_false(ok)
    assert.truthy(tostring(err):find("figure second: repetition 1 returned no event 2"), tostring(err))
  end)
end)

describe("clua.rows: R:add_row", function()
  local R = make()
  local function fig(times, bytes, cache)
    local f = R:figure(times, { bytes = bytes })
    if cache then f.cache, f.footprint, f.cache_note = true, 1024, "c: a cache figure" end
    return f
  end

  it("puts figures in cells: the bandwidth, its own spread column, a cache mark on its cell only", function()
    local t = R:table{ title = "t", columns = { { name = "device", key = true },
      R:cache_column{ name = "H2D", unit = "GB/s", format = "%.1f" }, R:spread_column("H2D spread"),
      R:cache_column{ name = "copy", unit = "GB/s", format = "%.1f" }, R:spread_column("copy spread") } }
    local h, c = fig({ 100, 200 }, 1000), fig({ 100, 100 }, 1000, true)
    local row = R:add_row(t, nil, { device = "d", H2D = h, copy = c })
    assert.are.equal(h.bw, row.H2D)
    assert.are.equal(h.spread, row["H2D spread"])
    assert.are.equal(0, row["copy spread"])
    local text = report.text(t)
    assert.truthy(text:find("6.7  ", 1, true), text)
    assert.truthy(text:find("10.0 c", 1, true), text)
    assert.are.same({ "c: a cache figure" }, t.notes)
  end)

  it("writes the widest spread of the row's figures into a single spread column, and a time column's median", function()
    local t = R:table{ title = "t", columns = { { name = "size", key = true }, R:bw_column("a", { cache = "A" }),
      R:bw_column("b"), { name = "at", unit = "ns", ns = true }, R:spread_column() } }
    local a, b = fig({ 100, 110 }, 1000, true), fig({ 100, 150 }, 1000)
    local row = R:add_row(t, nil, { size = 1, a = a, b = b, at = a })
    assert.are.equal(b.spread, row.spread)
    assert.are.equal(a.median, row.at)
    assert.are.same({ "c: a cache figure (A)" }, t.notes)
  end)

  it("fills time, min, max, spread and bandwidth from a measurement, and marks the whole row of a cache figure", function()
    local t = R:table{ title = "t", columns = { { name = "v", key = true }, R:time_columns(), R:bw_column("bandwidth"),
      R:spread_column() } }
    local f = fig({ 1000, 2000, 3000 }, 4000, true)
    local row = R:add_row(t, f, { v = "x" })
    assert.are.same({ 2000, 1000, 3000, 100, f.bw }, { row.time, row.min, row.max, row.spread, row.bandwidth })
    assert.truthy(report.text(t):find("2.0 c", 1, true))
  end)
end)
