package.path = "lua/?.lua;" .. package.path
local stats = require("clua.stats")

describe("clua.stats", function()
  it("summarises known data", function()
    local s = stats.summary({ 2, 4, 4, 4, 5, 5, 7, 9 })
    assert.equal(8, s.n)
    assert.equal(4.5, s.median)
    assert.equal(2, s.min)
    assert.equal(9, s.max)
    assert.equal(5, s.mean)
    -- sample standard deviation: sqrt(32 / 7)
    assert.near(math.sqrt(32 / 7), s.stddev, 1e-12)
  end)

  it("takes the middle value of an odd count and leaves the input unsorted", function()
    local xs = { 9, 1, 5 }
    assert.equal(5, stats.median(xs))
    assert.same({ 9, 1, 5 }, xs)
  end)

  it("handles one value and no value", function()
    assert.same({ n = 1, median = 3, min = 3, max = 3, mean = 3.0, stddev = 0.0 }, stats.summary({ 3 }))
    assert.same({ n = 0 }, stats.summary({}))
    assert.is_nil(stats.median({}))
  end)

  it("finds the smallest step between values and a least-squares slope", function()
    assert.are.equal(2, stats.min_step({ 9, 1, 5, 3, 3 }))
    assert.is_nil(stats.min_step({ 4, 4 }))
    assert.is_nil(stats.min_step({}))
    assert.near(2.5, stats.slope({ 0, 1, 2, 3 }, { 1, 3.5, 6, 8.5 }), 1e-12)
    assert.near(2, stats.slope({ 0, 1, 2 }, { 0, 3, 4 }), 1e-12)
    assert.is_nil(stats.slope({ 1, 1 }, { 2, 3 }))
  end)

  it("interpolates percentiles", function()
    local xs = { 10, 20, 30, 40, 50 }
    assert.equal(10, stats.percentile(xs, 0))
    assert.equal(50, stats.percentile(xs, 100))
    assert.equal(20, stats.percentile(xs, 25))
    assert.equal(45, stats.percentile(xs, 87.5))
  end)

  it("gives a distribution-free confidence interval for the median by order statistics", function()
    local function up_to(n)
      local xs = {}
      for i = n, 1, -1 do xs[#xs + 1] = i end -- unsorted
      return xs
    end
    -- the textbook intervals: n = 9 -> [x(2), x(8)], 20 -> [x(6), x(15)], 100 -> [x(40), x(61)]
    local lo, hi, cover = stats.median_ci(up_to(9))
    assert.same({ 2, 8 }, { lo, hi })
    assert.near(1 - 2 * 10 / 512, cover, 1e-12)
    lo, hi, cover = stats.median_ci(up_to(20))
    assert.same({ 6, 15 }, { lo, hi })
    assert.is_true(cover >= 0.95 and cover < 0.96)
    lo, hi = stats.median_ci(up_to(100))
    assert.same({ 40, 61 }, { lo, hi })
    -- past 1074 values 0.5^n underflows: the bounds exact binomial sums give
    for _, t in ipairs { { 1074, 505, 570 }, { 1200, 566, 635 }, { 5000, 2431, 2570 } } do
      lo, hi, cover = stats.median_ci(up_to(t[1]))
      assert.same({ t[2], t[3] }, { lo, hi })
      assert.is_true(cover >= 0.95 and cover < 0.96, tostring(cover))
    end
    -- too few values for 95 %: the whole range, saying how sure it is
    lo, hi, cover = stats.median_ci({ 3, 1, 2, 5, 4 })
    assert.same({ 1, 5, 0.9375 }, { lo, hi, cover })
    -- a lower level narrows it
    lo, hi = stats.median_ci(up_to(9), 0.8)
    assert.same({ 3, 7 }, { lo, hi })
    assert.is_nil(stats.median_ci({}))
  end)
end)
