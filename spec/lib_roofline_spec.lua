-- clua.roofline: a kernel's declared work as a point, and the points placed
-- under the measured roofs (the report card's "seed experiments on the
-- roofline").
local roofline = require("clua.roofline")

describe("clua.roofline", function()
  it("turns operations, bytes and time into intensity and throughput", function()
    local p = roofline.point("triad", { ops = 2e6, bytes = 12e6, ns = 4e3 })
    assert.near(1 / 6, p.intensity, 1e-12)
    assert.near(500, p.throughput, 1e-9) -- 2e6 ops / 4e3 ns = 500 G/s
    assert.near(3000, p.bandwidth, 1e-9)
    assert.equal("float", p.type)
    assert.has_error(function() roofline.point("x", { ops = 1, bytes = 0, ns = 1 }) end)
    assert.has_error(function() roofline.point("x", { ops = -1, bytes = 1, ns = 1 }) end)
  end)

  it("places each point under its type's roof: memory- or compute-bound, % of the roof", function()
    local roofs = roofline.roofs({ { type = "float", bandwidth = 3000, peak = 60000 },
      { type = "double", bandwidth = 3000, peak = 30000 } })
    assert.equal(60000, roofline.roof_at(roofs.float, 100))
    assert.equal(300, roofline.roof_at(roofs.float, 0.1))
    local pts = {
      { recipe = "stream", kernel = "triad", type = "float", intensity = 1 / 6, throughput = 450, bandwidth = 2700 },
      { recipe = "matmul", kernel = "tiled", type = "float", intensity = 64, throughput = 30000, bandwidth = 468 },
      { recipe = "transpose", kernel = "copy", type = "float", intensity = 0, throughput = 0, bandwidth = 1500 },
      { recipe = "x", kernel = "y", type = "int", intensity = 1, throughput = 1, bandwidth = 1 },
    }
    local t = roofline.place(pts, roofs)
    local r = t.rows
    assert.near(90, r[1]["% of roof"], 1e-9)
    assert.equal("memory", r[1].bound)
    assert.near(50, r[2]["% of roof"], 1e-9)
    assert.equal("compute", r[2].bound)
    assert.near(50, r[3]["% of roof"], 1e-9) -- of the bandwidth roof
    assert.is_nil(r[4]["% of roof"])
    assert.matches("int: no measured roof", table.concat(t.notes, "\n"), 1, true)
  end)

  it("draws the roofs dashed and the points with operations, labelled", function()
    local roofs = roofline.roofs({ { type = "float", bandwidth = 3000, peak = 60000 } })
    local p = roofline.plot({
      { recipe = "stream", kernel = "triad", type = "float", intensity = 1 / 6, throughput = 450 },
      { recipe = "transpose", kernel = "copy", type = "float", intensity = 0, throughput = 0 },
    }, roofs)
    assert.equal(2, #p.series)
    assert.is_true(p.series[1].dashed)
    assert.equal(1, #p.series[2].points)
    assert.matches("stream: triad", p:svg(), 1, true)
  end)
end)
