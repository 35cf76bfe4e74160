-- recipes/peak.lua --quick on the default device (PoCL in CI): compute peak
-- by type and vector width, each figure verified by the exact sum the chains
-- must reach; CLUA_CORRUPT=peak makes it exit non-zero with no table.
local support = require("spec.support.recipe")

local run = support.runner("peak")

describe("recipe peak", function()
  local tables, out

  setup(function() tables, out = support.tables("peak") end)

  it("measures float and int at every width, and says why half is not measured", function()
    local t = assert(tables.peak)
    local seen = {}
    for _, r in ipairs(t.rows) do
      seen[r.type .. r.width] = r
      assert.is_true(r.peak > 0 and r.peak >= r.median)
      assert.is_true(r.spread >= 0)
      assert.is_true(r.iterations >= 1)
    end
    for _, ty in ipairs({ "float", "int" }) do
      for _, w in ipairs({ 1, 2, 4, 8, 16 }) do assert.truthy(seen[ty .. w], ty .. w) end
    end
    assert.matches("half: not measured", out, 1, true)
    assert.matches("verified: every work-item's sum of lanes", out, 1, true)
  end)

  it("fails, printing no table, when a result is corrupted", function()
    local o, code, err = run("--types int --widths 4", "CLUA_CORRUPT=peak")
    assert.are_not.equal(0, code)
    assert.matches("int4: sum of lanes after %d+ steps: out%[0 %.%. %d+%): 1 of %d+ elements differ", err)
    assert.is_nil(o:find("Compute peak", 1, true))
  end)

  it("refuses an unknown type or width", function()
    local _, code, err = run("--types quad")
    assert.are_not.equal(0, code)
    assert.matches("--types: unknown type 'quad'", err, 1, true)
    _, code, err = run("--widths 3")
    assert.are_not.equal(0, code)
    assert.matches("--widths: 3 is no vector width", err, 1, true)
  end)
end)
