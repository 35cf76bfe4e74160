-- clua.cluster: a card's figures, their medians over the GPUs, and the GPUs
-- worse than the median by more than the figure's noise (the repetitions'
-- spread, the scatter across GPUs, a floor); on made-up cards of healthy
-- GPUs the flag rate is near zero and a slowed GPU is flagged alone; a
-- --quick card flags nothing.
local cluster = require("clua.cluster")
local roofline = require("clua.roofline")

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

  it("takes a spread column right after the figure's as its noise (transfer's batched host clock)", function()
    local f = cluster.figures({ { name = "transfer", tables = { { id = "batched", columns = {
        { name = "transfers", key = true }, { name = "events", unit = "ns" }, { name = "events spread", unit = "%", spread = true },
        { name = "host clock", unit = "ns", compare = true }, { name = "host spread", unit = "%", spread = true },
        { name = "spread", unit = "%", spread = true } },
      rows = { { transfers = 16, events = 900, ["events spread"] = 40, ["host clock"] = 1000, ["host spread"] = 3,
        spread = 50 } } } } } })
    assert.are.equal(1, #f)
    assert.are.equal("transfer / batched / 16 / host clock", f[1].id)
    assert.are.equal(3, f[1].spread)
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

  -- Made-up cards: n GPUs of F figures each, every figure the median of R
  -- repetitions that scatter by `jitter` (uniform, relative) around a true
  -- value, each GPU off by its own small factor (silicon, clocks); `slow`
  -- maps a GPU to a factor on all its figures.
  local function made_up(n, F, R, jitter, seed, slow)
    math.randomseed(seed)
    local gpus = {}
    for g = 1, n do
      local own = 1 + (math.random() - 0.5) * 0.01 -- within ±0.5 %
      local rows = {}
      for f = 1, F do
        local truth = 100 + f
        local times = {}
        for r = 1, R do times[r] = 1 + (math.random() - 0.5) * 2 * jitter end
        table.sort(times)
        local lo, mid, hi = times[1], times[(R + 1) // 2], times[R]
        local v = truth * own * (slow and slow[g] or 1) / mid
        rows[f] = { figure = "f" .. f, best = v, ["min time"] = lo, ["median time"] = mid, ["max time"] = hi }
      end
      gpus[g] = { rank = g - 1, host = "h", index = "0:" .. (g - 1), device = "GPU", failed = {},
        figures = cluster.figures({ { name = "made", tables = { { id = "t", rows = rows, columns = {
          { name = "figure", key = true }, { name = "best", unit = "GB/s", compare = true },
          { name = "min time", unit = "ns" }, { name = "median time", unit = "ns" },
          { name = "max time", unit = "ns" } } } } } }) }
    end
    return gpus
  end

  local function flagged_of(sum)
    local per, total = {}, 0
    for i, g in ipairs(sum.gpus) do per[i] = #g.flagged; total = total + #g.flagged end
    return per, total
  end

  it("flags under 1 % of the figures of four healthy GPUs, whatever their noise, and a slowed GPU alone", function()
    for _, case in ipairs{ { R = 10, jitter = 0.01 }, { R = 3, jitter = 0.05 }, { R = 3, jitter = 0.2 } } do
      for seed = 1, 5 do
        local sum = cluster.summarize(made_up(4, 400, case.R, case.jitter, seed))
        local _, total = flagged_of(sum)
        assert.is_true(total < 0.01 * 4 * 400, ("%d of 1600 flagged (reps %d, jitter %g, seed %d)")
          :format(total, case.R, case.jitter, seed))
      end
    end
    -- one GPU at half speed (a co-running load): flagged on every figure, no other GPU on any
    for _, n in ipairs{ 3, 4, 8 } do
      local sum = cluster.summarize(made_up(n, 200, 10, 0.02, n, { [2] = 0.5 }))
      local per = flagged_of(sum)
      for i = 1, n do assert.are.equal(i == 2 and 200 or 0, per[i], ("GPU %d of %d"):format(i, n)) end
    end
  end)

  it("holds a figure to the scatter across GPUs where the repetitions' spread understates it", function()
    -- no spread measured on a row, five GPUs scattered by ±15 %: the scatter, not 10 %, is the noise
    local function gpu(i, v)
      return { rank = i - 1, host = "h", index = "0:" .. (i - 1), device = "GPU", failed = {},
        figures = { { id = "x / t / a / v", recipe = "x", unit = "GB/s", value = v, spread = 1, lower = false } } }
    end
    local sum = cluster.summarize({ gpu(1, 100), gpu(2, 115), gpu(3, 85), gpu(4, 110), gpu(5, 88) })
    local s = sum.figures[1]
    assert.near(3 * 1.4826 * 12 / 100 * 100, s.scatter, 1e-9) -- deviations 0 15 15 10 12: MAD 12
    assert.are.equal(s.scatter, s.noise)
    local _, total = flagged_of(sum)
    assert.are.equal(0, total) -- the old rule (1 % spread) flagged 85 and 88
    assert.matches("| x / t / a / v | 5 | 100 GB/s | 115 GB/s | 85 GB/s | 53.4 % † | 0 |",
      table.concat(cluster.markdown(sum), "\n"), 1, true)
    -- two GPUs: no majority, the repetitions' spread and the floor only
    sum = cluster.summarize({ gpu(1, 100), gpu(2, 97) })
    assert.is_nil(sum.figures[1].scatter)
    assert.are.equal(cluster.FLOOR, sum.figures[1].noise)
  end)

  it("holds CPU devices to a floor of clua.noise's threshold: two healthy cores 10 % apart unflagged, a slowed one flagged",
    function()
      local function cpu(i, v)
        return { rank = i - 1, host = "h", index = "0:" .. (i - 1), device = "CPU", failed = {},
          figures = { { id = "peak / peak / int 1 / peak", recipe = "peak", unit = "G/s", value = v, spread = 4,
            lower = false } } }
      end
      -- 3.31 against 3.65: 4.9 % below the median of two, beyond the 4 % spread and a GPU's 2 % floor
      local healthy = { cpu(1, 3.31), cpu(2, 3.65) }
      local _, total = flagged_of(cluster.summarize(healthy))
      assert.are.equal(1, total)
      local sum = cluster.summarize(healthy, { cpu = true })
      _, total = flagged_of(sum)
      assert.are.equal(0, total)
      assert.are.equal(cluster.CPU_FLOOR, sum.figures[1].noise)
      assert.matches("and 10 % (the devices are CPUs, whose cores the host's other work shares).",
        table.concat(cluster.markdown(sum), "\n"), 1, true)
      -- a rank at a quarter of the other's speed: 60 % below the median of two
      local flagged
      flagged, total = flagged_of(cluster.summarize({ cpu(1, 3.5), cpu(2, 0.875) }, { cpu = true }))
      assert.are.equal(1, total)
      assert.are.equal(1, flagged[2])
    end)

  it("flags nothing on --quick cards, and says they are too short to flag", function()
    local sum = cluster.summarize(made_up(4, 50, 3, 0.02, 7, { [4] = 0.5 }), { quick = true })
    assert.is_true(sum.quick)
    local _, total = flagged_of(sum)
    assert.are.equal(0, total)
    local md = table.concat(cluster.markdown(sum), "\n")
    assert.matches("Not flagged: a --quick card is too short to flag a GPU", md, 1, true)
  end)
end)
