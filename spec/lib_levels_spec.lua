-- clua.levels: the levels of a sweep, fed synthetic latency curves.
local levels = require("clua.levels")

local KiB, MiB = 1024, 1024 * 1024

-- the H100's pointer chase (spec/support/h100chase.lua)
local h100 = require("spec.support.h100chase")
local H100, reps, curve = h100.LATENCY, h100.reps, h100.curve

describe("clua.levels", function()
  it("finds the H100's four levels: L1, the L2's near and far partitions, HBM", function()
    local lv, tr = levels.find(curve(H100, 0.005))
    assert.are.equal(4, #lv)
    local want = { { 1 * KiB, 128 * KiB, 20, 21 }, { 512 * KiB, 8 * MiB, 142, 145 }, { 16 * MiB, 64 * MiB, 238, 266 },
      { 128 * MiB, 4096 * MiB, 313, 318 } }
    for i, w in ipairs(want) do
      assert.are.equal(w[1], lv[i].from, "level " .. i)
      assert.are.equal(w[2], lv[i].to, "level " .. i)
      assert.is_true(lv[i].value >= w[3] and lv[i].value <= w[4], "level " .. i .. ": " .. lv[i].value)
    end
    assert.are.equal(238, lv[3].lo)
    assert.are.equal(266, lv[3].hi)
    -- 256 KiB is a transition between L1 and L2, not a level
    assert.are.equal(1, #tr)
    assert.are.equal(256 * KiB, tr[1].x)
    assert.are.equal(1, tr[1].after)
  end)

  it("keeps the far partition a level of its own (1.26x: a 1.5x knee would miss it)", function()
    local lv = levels.find(curve(H100, 0.005), { step = 1.5 })
    assert.are.equal(3, #lv) -- the old rule's levels: L1, L2, "DRAM from 16 MiB"
    assert.are.equal(16 * MiB, lv[3].from)
  end)

  it("finds one level in a flat curve whose repetitions spread widely", function()
    local pts = {}
    math.randomseed(7)
    for i = 1, 24 do
      local y = 100 * (1 + (math.random() - 0.5) * 0.24) -- +-12 %
      pts[i] = { x = 2 ^ i, y = y, times = reps(y, 0.15) }
    end
    local lv, tr = levels.find(pts)
    assert.are.equal(1, #lv)
    assert.are.equal(0, #tr)
    assert.are.equal(24, lv[1].points)
    assert.are.equal(2, lv[1].from)
  end)

  it("does not split a steady curve's small drift, yet splits a 20 % step between steady plateaus", function()
    local pts = {}
    for i = 1, 10 do pts[i] = { x = i, y = 100 + i, lo = 99 + i, hi = 101 + i } end -- 101 .. 110
    assert.are.equal(1, #levels.find(pts))
    for i = 11, 20 do pts[i] = { x = i, y = 130, lo = 129, hi = 131 } end
    local lv = levels.find(pts)
    assert.are.equal(2, #lv)
    assert.are.equal(10, lv[1].to)
    assert.are.equal(11, lv[2].from)
  end)

  it("lets noise hide a step: a 20 % step within repetitions spread by 30 % is no level", function()
    local pts = {}
    for i = 1, 12 do
      local y = i <= 6 and 100 or 120
      pts[i] = { x = i, y = y, times = reps(y, 0.3) }
    end
    assert.are.equal(1, #levels.find(pts))
  end)

  it("finds falling levels too (bandwidth)", function()
    local pts = {}
    local ys = { 32000, 32100, 31900, 22000, 16500, 16800, 16600, 11500, 8100, 8000, 8200, 3100, 3100, 3050 }
    for i, y in ipairs(ys) do pts[i] = { x = 2 ^ i, y = y, times = reps(y, 0.01) } end
    local lv, tr = levels.find(pts)
    assert.are.equal(4, #lv)
    assert.are.equal(2, #tr) -- 22000 and 11500
  end)

  it("estimates the L2's capacity from the working sets it holds in part", function()
    local lv = levels.find(curve(H100, 0.005))
    -- the far partition's 251 ns, HBM's 316 ns: 64 MiB at 266 ns hits 77 %
    local c, used = levels.capacity(lv[3], lv[4], curve(H100, 0.005))
    assert.are.same({ 64 * MiB }, used)
    local h = (lv[4].value - 266) / (lv[4].value - lv[3].value)
    assert.near(-64 * (1 - h) / math.log(h), c / MiB, 1e-9)
    assert.is_true(c > 40 * MiB and c < 64 * MiB, c / MiB)
    -- points added between 64 and 128 MiB each give an estimate; the median
    local all = curve(H100, 0.005)
    for _, p in ipairs(curve({ { 80 * MiB, 283 }, { 96 * MiB, 296 }, { 112 * MiB, 312 } }, 0.005)) do
      all[#all + 1] = p
    end
    c, used = levels.capacity(lv[3], lv[4], all)
    assert.are.same({ 64 * MiB, 80 * MiB, 96 * MiB }, used) -- 112 MiB is within HBM's noise
    assert.is_true(c > 50 * MiB and c < 60 * MiB, c / MiB)
    -- the L1's, from the transition at 256 KiB (91 ns): about 172 KiB
    c, used = levels.capacity(lv[1], lv[2], curve(H100, 0.005))
    assert.are.same({ 256 * KiB }, used)
    assert.is_true(c > 128 * KiB and c < 256 * KiB, c / KiB)
    -- none between: nil
    assert.is_nil((levels.capacity(lv[2], lv[3], curve(H100, 0.005))))
  end)

  it("refuses a bad value or step, and gives nothing for no points", function()
    assert.has_error(function() levels.find({ { x = 1, y = 0 } }) end)
    assert.has_error(function() levels.find({ { x = 1, y = 1 } }, { step = 1 }) end)
    local lv, tr = levels.find({})
    assert.are.same({}, lv)
    assert.are.same({}, tr)
  end)
end)
