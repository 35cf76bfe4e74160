-- recipes/roofline.lua --quick on the default device (PoCL in CI): mixbench's
-- intensity sweep for float, double and int under the roofs measured in the
-- same run; every point verified; CLUA_CORRUPT=roofline exits non-zero with
-- no table.
local support = require("spec.support.recipe")

local run = support.runner("roofline")

describe("recipe roofline", function()
  local tables, out

  setup(function() tables, out = support.tables("roofline") end)

  it("sweeps the intensity from 1/4 to 64 op/B for each type, against its roof", function()
    local t = assert(tables.roofline)
    local by = {}
    for _, r in ipairs(t.rows) do
      by[r.type] = by[r.type] or {}
      table.insert(by[r.type], r)
      assert.is_true(r.throughput > 0 and r.roof > 0)
      assert.near(r.throughput / r.roof * 100, r["% of roof"], 1e-6)
      assert.near(r.intensity, r.K / (r.type == "double" and 8 or 4), 1e-12)
    end
    for _, ty in ipairs({ "float", "int" }) do
      assert.is_true(#by[ty] >= 5, ty)
      assert.near(0.25, by[ty][1].intensity, 1e-12)
      assert.is_true(by[ty][#by[ty]].intensity >= 64)
    end
    assert.matches("verified: every element", out, 1, true)
  end)

  it("names the roofs and the ridge point of each type", function()
    local r = assert(tables.roofs)
    for _, row in ipairs(r.rows) do
      assert.is_true(row.bandwidth > 0 and row.peak > 0)
      assert.near(row.peak / row.bandwidth, row.ridge, 1e-9)
    end
    assert.is_true(#r.rows >= 2)
  end)

  it("fails, printing no table, when a result is corrupted", function()
    local o, code, err = run("--types int", "CLUA_CORRUPT=roofline")
    assert.are_not.equal(0, code)
    -- the run's first verification: the compute roof's (clua.peak through R:measure)
    assert.matches("verify int: sum of lanes after %d+ steps: out%[0 %.%. %d+%): 1 of %d+ elements differ", err, 1)
    assert.is_nil(o:find("Roofline:", 1, true))
  end)
end)
