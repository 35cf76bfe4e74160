-- recipes/math.lua --quick as a subprocess: its rows (speed beside accuracy),
-- and a corrupted result caught (CLUA_CORRUPT) with no table printed.
local RECIPE = "math"
local support = require("spec.support.recipe")

local run = support.runner(RECIPE, { env_first = true, code_first = true })

describe("recipe math", function()
  local by, out = support.tables(RECIPE)

  it("prints the table", function()
    assert.matches("Arithmetic instructions: speed and accuracy", out)
  end)

  it("has every variant with GOP/s, an error in ulp and its bound", function()
    local t = assert(by.math)
    local rows = {}
    for _, r in ipairs(t.rows) do
      rows[r["function"] .. " | " .. r.variant .. " | " .. r.build] = r
      assert.is_true(r["GOP/s"] > 0)
      assert.is_number(r["max error"])
      assert.is_not_nil(r.bound)
    end
    for _, fn in ipairs({ "sin", "cos", "exp", "log", "sqrt" }) do
      local full = assert(rows[fn .. " | " .. fn .. "(x) | default"], fn)
      assert.is_true(full["max error"] <= full.bound)
      assert.is_table(rows[fn .. " | native_" .. fn .. "(x) | default"])
      assert.is_table(rows[fn .. " | " .. fn .. "(x) | -cl-fast-relaxed-math"])
    end
    assert.is_table(rows["pow | pow(x, p) | default"])
    assert.is_table(rows["pow | native_powr(x, p) | default"])
    assert.is_table(rows["rsqrt | 1.0f / sqrt(x) | default"])
    assert.is_table(rows["rsqrt | rsqrt(x) | default"])
    assert.is_table(rows["poly | cubic, float constants (1.0f) | -cl-mad-enable"])
    assert.is_table(rows["poly | cubic, float constants (1.0f) | default"])
    local d = rows["divmod | i / n, i % n | default"]
    local s = rows["divmod | i >> s, i & (n - 1) | default"]
    assert.equal("exact", d.bound)
    assert.equal(0, d["max error"])
    assert.equal(0, s["max error"])
    local cl = require("cl")
    if cl.device().info.double_support then
      assert.is_true(rows["poly | cubic, double constants (1.0) | default"]["max error"] <= 1)
    end
  end)

  it("exits non-zero with no table when a result is corrupted", function()
    local status, stdout, stderr = run("CLUA_CORRUPT=math")
    assert.is_not.equal(0, status)
    assert.equal("", stdout)
    assert.matches("verify", stderr)
  end)
end)
