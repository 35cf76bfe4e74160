package.path = "lua/?.lua;" .. package.path
local verify = require("clua.verify")

local has_cl, cl = pcall(require, "cl")

describe("clua.verify", function()
  it("accepts equal lists and a reference function", function()
    local r = verify.arrays("x", { 1, 2, 3 }, { 1, 2, 3 })
    assert.equal(3, r.n)
    verify.arrays("x", { 0, 2, 4, 6 }, function(i) return 2 * i end)
  end)

  it("catches a single wrong integer element and names it", function()
    local got = {}
    for i = 1, 1000 do got[i] = i end
    local ref = function(i) return i + 1 end
    got[501] = 7 -- index 500
    local ok, err = pcall(verify.arrays, "C", got, ref)
    assert.is_false(ok)
    assert.matches("verify C: 1 of 1000 elements differ %(exact%); worst at index 500: got 7, expected 501", err)
  end)

  it("allows float rounding within tolerance and names the worst of several", function()
    local ref = { 1.0, 2.0, 3.0, 4.0 }
    verify.arrays("f", { 1.0000001, 2.0, 3.0000002, 4.0 }, ref)
    local ok, err = pcall(verify.arrays, "f", { 1.1, 2.0, 3.5, 4.0 }, ref)
    assert.is_false(ok)
    assert.matches("2 of 4 elements differ", err)
    assert.matches("worst at index 2: got 3.5, expected 3", err)
    assert.has_error(function() verify.arrays("f", { 1.0, 2.01 }, { 1.0, 2.0 }, { tol = 1e-3 }) end)
    verify.arrays("f", { 1.0, 2.001 }, { 1.0, 2.0 }, { tol = 1e-3 })
  end)

  it("treats NaN as a mismatch unless both are NaN", function()
    local nan = 0 / 0
    verify.arrays("n", { nan, 1.0 }, { nan, 1.0 })
    assert.has_error(function() verify.arrays("n", { nan, 1.0 }, { 0.5, 1.0 }) end)
  end)

  it("refuses different lengths", function()
    assert.has_error(function() verify.arrays("l", { 1, 2 }, { 1, 2, 3 }) end,
      "verify l: 2 elements, expected 3")
  end)

  it("checks scalars", function()
    verify.scalar("sum", 10.0000001, 10.0, 1e-6)
    assert.has_error(function() verify.scalar("sum", 11, 10) end)
  end)

  if has_cl then
    it("compares cl arrays and catches one wrong element", function()
      local a, b = cl.array("float", 4096), cl.array("float", 4096)
      a:ramp(0, 0.5); b:ramp(0, 0.5)
      verify.arrays("a", a, b)
      verify.arrays("a", a, function(i) return i * 0.5 end)
      a[1234] = a[1234] + 1
      local ok, err = pcall(verify.arrays, "a", a, b)
      assert.is_false(ok)
      assert.matches("1 of 4096 elements differ.*worst at index 1234", err)
      local u, v = cl.array("uint", 16), cl.array("uint", 16)
      u[3] = 1
      assert.has_error(function() verify.arrays("u", u, v) end)
    end)

    it("compares a float result with a double reference as the element loop does, naming the worst", function()
      local got, ref = cl.array("float", 1000):ramp(0, 0.1), cl.array("double", 1000)
      for i = 0, 999 do ref[i] = i * 0.1 end -- the float's rounding: within 1e-5, not exact
      assert.near(0, verify.arrays("grid", got, ref, { tol = 1e-5 }).max_rel, 1e-6)
      got[700] = got[700] * (1 + 1e-4)
      local ok, err = pcall(verify.arrays, "grid", got, ref, { tol = 1e-5 })
      assert.is_false(ok)
      assert.matches("verify grid: 1 of 1000 elements differ (tolerance 1e-05); worst at index 700", err, 1, true)
      assert.has_error(function() verify.arrays("grid", cl.array("float", 3), cl.array("double", 4)) end,
        "verify grid: 3 elements, expected 4")
    end)
  end
end)
