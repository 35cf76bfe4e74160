-- recipes/divergence.lua --quick as a subprocess: its rows, and a corrupted
-- result caught (CLUA_CORRUPT) with no table printed.
local RECIPE = "divergence"
local support = require("spec.support.recipe")

local run = support.runner(RECIPE, { env_first = true, code_first = true })

describe("recipe divergence", function()
  local by, out = support.tables(RECIPE)

  it("prints the table", function()
    assert.matches("Divergent branches", out)
  end)

  it("has the three variants for a long and a short branch", function()
    local t = assert(by.divergence)
    local seen = {}
    for _, r in ipairs(t.rows) do
      local len = r.branch:match("^(%a+)")
      seen[len .. " " .. r.variant] = r
      assert.is_true(r.time > 0 and r.slowdown > 0)
      assert.is_number(r.spread)
    end
    for _, len in ipairs({ "long", "short" }) do
      for _, v in ipairs({ "divergent", "aligned", "predicated" }) do
        assert.is_table(seen[len .. " " .. v], len .. " " .. v)
      end
      assert.near(1, seen[len .. " aligned"].slowdown, 1e-9)
      assert.equal(0, seen[len .. " aligned"]["divergent warps"])
      assert.equal(100, seen[len .. " divergent"]["divergent warps"])
    end
    assert.equal("lid % 2", seen["long divergent"].condition)
    assert.matches("^%(lid / %d+%) %% 2$", seen["long aligned"].condition)
  end)

  it("exits non-zero with no table when a result is corrupted", function()
    local status, stdout, stderr = run("CLUA_CORRUPT=divergence")
    assert.is_not.equal(0, status)
    assert.equal("", stdout)
    assert.matches("verify divergent (long branch, 16 steps): out[0 .. ", stderr, 1, true)
  end)
end)
