package.path = "lua/?.lua;" .. package.path
local stats = require "clua.stats"

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

  it("interpolates percentiles", function()
    local xs = { 10, 20, 30, 40, 50 }
    assert.equal(10, stats.percentile(xs, 0))
    assert.equal(50, stats.percentile(xs, 100))
    assert.equal(20, stats.percentile(xs, 25))
    assert.equal(45, stats.percentile(xs, 87.5))
  end)
end)
