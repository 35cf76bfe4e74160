-- clua.noise: the spread of a timing and the flag on noisy rows.
local noise = require "clua.noise"
local report = require "clua.report"

describe("clua.noise", function()
  it("measures the spread as (max - min) / median in %", function()
    assert.near(50, noise.spread({ min = 90, median = 100, max = 140 }), 1e-9)
    assert.near(100, noise.spread({ 1, 2, 3 }), 1e-9)
    assert.near(200 / 5.5, noise.spread({ 4, 5, 6, 6 }), 1e-9) -- median 5.5
    assert.is_nil(noise.spread({}))
    assert.is_nil(noise.spread(nil))
  end)

  it("flags the cells and notes the rows above the threshold", function()
    local t = report.new{ columns = { "name", noise.column() } }
    t:add{ name = "steady", spread = 2.5 }
    assert.is_nil(noise.note(t))
    t:add{ name = "noisy", spread = 23.4 }
    local text = report.text(t)
    assert.matches("23.4 !", text, 1, true)
    assert.matches(" 2.5\n", text, 1, true)
    assert.matches("^! 1 of 2 rows: their repetitions spread more than 10%%", noise.note(t))
  end)
end)
