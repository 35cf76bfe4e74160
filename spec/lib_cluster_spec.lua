-- clua.cluster: a card's figures, their medians over the GPUs, and the GPUs
-- worse than the median by more than the figure's noise.
local cluster = require "clua.cluster"
local roofline = require "clua.roofline"

-- A card's recipes as report.lua's JSON holds them.
local function card(bw, spread, latency, lat_min, lat_max)
  return {
    { name = "stream", tables = {
      { id = "stream", columns = {
          { name = "kernel", key = true }, { name = "best", unit = "GB/s", compare = true },
          { name = "min time", unit = "ns" }, { name = "median time", unit = "ns" }, { name = "max time", unit = "ns" } },
        rows = { { kernel = "triad", best = bw, ["min time"] = 100, ["median time"] = 100 + spread / 2,
          ["max time"] = 100 + spread } } },
      { id = roofline.ID, columns = { { name = "kernel", key = true }, { name = "time", unit = "ns" } },
        rows = { { kernel = "triad", time = 5 } } },
    } },
    { name = "launch", tables = {
      { id = "launch", columns = {
          { name = "call", key = true }, { name = "time", unit = "ns", compare = true },
          { name = "min", unit = "ns" }, { name = "max", unit = "ns" } },
        rows = { { call = "launch", time = latency, min = lat_min, max = lat_max } } },
      { id = "plain", columns = { { name = "what", key = true }, { name = "count" } },
        rows = { { what = "a", count = 7 } } },
    } },
    { name = "broken", error = "exit 1: no tables" },
  }
end

describe("clua.cluster", function()
  it("takes each compared figure of a card, named by recipe, table, row key and column, with its noise", function()
    local f = cluster.figures(card(1000, 4, 20000, 19000, 23000))
    assert.are.equal(3, #f)
    assert.are.equal("stream / stream / triad / best", f[1].id)
    assert.are.equal("GB/s", f[1].unit)
    assert.is_false(f[1].lower)
    assert.near(4 / 102 * 100, f[1].spread, 1e-9) -- (max - min) / median time
    assert.are.equal("launch / launch / launch / time", f[2].id)
    assert.is_true(f[2].lower)                        -- a time: less is better
    assert.near(4000 / 20000 * 100, f[2].spread, 1e-9) -- min and max of the time's unit
    assert.are.equal("launch / plain / a / count", f[3].id) -- no compared column: the first numeric one
    assert.is_nil(f[3].spread)
    for _, x in ipairs(f) do assert.are_not.equal(roofline.ID, x.table) end
  end)

  it("flags a GPU worse than the median by more than the noise, in the figure's direction", function()
    local gpus = {}
    local bws = { 1000, 1010, 990, 800 } -- the 4th is slow: 20 % below, beyond a 4 % spread
    local lats = { 20000, 20100, 26000, 19900 } -- the 3rd launches slowly: 30 % above, beyond 20 %
    for i = 1, 4 do
      gpus[i] = { rank = i - 1, host = "node" .. (i - 1) // 2, index = "0:" .. (i - 1) % 2, device = "GPU",
        figures = cluster.figures(card(bws[i], 4, lats[i], lats[i] * 0.95, lats[i] * 1.15)), failed = {} }
    end
    local sum = cluster.summarize(gpus)
    assert.are.equal(3, #sum.figures)
    local bw, lat, count = sum.figures[1], sum.figures[2], sum.figures[3]
    assert.near(995, bw.median, 1e-9)
    assert.are.equal(1010, bw.best)
    assert.are.equal(800, bw.worst)
    assert.is_true(bw.measured_noise)
    assert.are.equal(1, bw.flagged)
    assert.are.equal(1, lat.flagged)
    assert.are.equal(19900, lat.best)
    assert.are.equal(0, count.flagged)
    assert.is_false(count.measured_noise)
    assert.are.equal(10, count.noise) -- clua.noise's threshold where nothing was measured
    assert.are.same({}, gpus[1].flagged)
    assert.are.same({}, gpus[2].flagged)
    assert.are.equal(1, #gpus[3].flagged)
    assert.are.equal("launch / launch / launch / time", gpus[3].flagged[1].figure)
    assert.is_true(gpus[3].flagged[1].ratio > 1.25)
    assert.are.equal(1, #gpus[4].flagged)
    assert.are.equal("stream / stream / triad / best", gpus[4].flagged[1].figure)
    assert.near(800 / 995, gpus[4].flagged[1].ratio, 1e-9)

    local md = table.concat(cluster.markdown(sum), "\n")
    assert.matches("| 3 | node1 | 0:1 | GPU | 3 | 1 | stream / stream / triad / best: 0.804× the median |", md, 1, true)
    assert.matches("| node1 | 0:0 | launch / launch / launch / time |", md, 1, true)
    assert.matches("| launch / plain / a / count | 4 | 7 | 7 | 7 | 10.0 % * | 0 |", md, 1, true)

    local csv = cluster.csv(sum)
    local lines = {}
    for l in csv:gmatch("[^\r\n]+") do lines[#lines + 1] = l end
    assert.are.equal(5, #lines)
    assert.are.equal("rank,host,index,device,flagged,stream / stream / triad / best (GB/s),"
      .. "launch / launch / launch / time (ns),launch / plain / a / count", lines[1])
    assert.are.equal("3,node1,0:1,GPU,1,800,19900,7", lines[5])
  end)

  it("flags nothing with one GPU, and says so", function()
    local sum = cluster.summarize({ { rank = 0, host = "h", index = "0:0", device = "GPU",
      figures = cluster.figures(card(10, 1, 5, 4, 6)), failed = { "broken" } } })
    assert.are.same({}, sum.gpus[1].flagged)
    local md = table.concat(cluster.markdown(sum), "\n")
    assert.matches("One GPU: nothing to compare it with.", md, 1, true)
    assert.matches("(did not run: broken)", md, 1, true)
  end)
end)
