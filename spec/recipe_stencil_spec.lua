-- recipes/stencil.lua --quick on the default device (PoCL in CI), run as a
-- subprocess: every variant for every grid, checked in full and on rows, and
-- CLUA_CORRUPT=stencil makes it exit non-zero with no table.
local json = require("dkjson")
local support = require("spec.support.recipe")

local run = support.runner("stencil", { env_first = true })
local slurp = support.slurp

local VARIANTS = { "global, coefficients in __global", "global", "local 18x18 tile with halo",
  "local 16x16 tile, 14x14 computed (seed)" }

describe("recipe stencil", function()
  local out, code, err, doc

  setup(function()
    local path = os.tmpname()
    -- 64 and 100 checked in full, 130 (not a multiple of 14 or 16) on 16 rows
    out, code, err = run(nil, "--grids 64,100,130 --full-check 100 --json " .. path)
    local text = slurp(path)
    os.remove(path)
    doc = text and json.decode(text) or { tables = {} }
  end)

  it("runs --quick and exits 0", function()
    assert.are.equal(0, code, err)
    assert.truthy(out:find("Jacobi sweeps of the 5-point Poisson stencil", 1, true))
  end)

  it("has every variant for every grid, timed and checked", function()
    local t = assert(doc.tables[1])
    assert.are.equal("stencil", t.id)
    assert.are.equal(12, #t.rows)
    local i = 0
    for _, grid in ipairs({ "64x64", "100x100", "130x130" }) do
      for _, v in ipairs(VARIANTS) do
        i = i + 1
        local r = t.rows[i]
        assert.are.equal("float", r.type)
        assert.are.equal(grid, r.grid)
        assert.are.equal(v, r.variant)
        assert.is_true(r.time > 0 and r.min <= r.time and r.time <= r.max)
        assert.is_true(r["back to back"] > 0 and r.bandwidth > 0)
        assert.are.equal(grid == "130x130" and "16 rows + all vs global" or "full", r.checked)
      end
    end
    assert.are.equal(1, t.rows[2]["vs global"])
  end)

  it("exits non-zero with no table when a result is corrupted", function()
    for _, args in ipairs({ "", "--grids 64,130 --full-check 64" }) do
      local o, c, e = run("CLUA_CORRUPT=stencil", args)
      assert.are_not.equal(0, c)
      assert.falsy(o:find("Jacobi", 1, true))
      assert.falsy(o:find("variant", 1, true))
      assert.truthy(e:find("verify u after 3 sweeps (float, 64x64, global, coefficients in __global)", 1, true), e)
    end
  end)

  -- Assignment mode: out holds G x G points (G = 48 for N = 40), the kernel owns the 40 x 40 of the grid.
  it("fails a correct student's sweep that also writes inside out past the grid, naming the point and the part", function()
    local o, c, e = run(nil, "--grids 40 --reps 1 --kernel spec/fixtures/own/stencil_outside.cl")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("Jacobi", 1, true))
    assert.truthy(e:find("student: jacobi (stencil_outside.cl) 40x40: u/out 1[1640] written outside the part the "
      .. "kernel owns (u/out 1[0 .. 1600) of 2304 elements", 1, true), e)
  end)

  it("fails a correct student's sweep that also writes past its allocation", function()
    local o, c, e = run(nil, "--grids 40 --reps 1 --kernel spec/fixtures/own/stencil_past_end.cl")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("Jacobi", 1, true))
    assert.truthy(e:find("student: u/out 1: 4 bytes written at offset 9216, past the end (9216 bytes) (after "
      .. "student: jacobi (stencil_past_end.cl) 40x40)", 1, true), e)
  end)
end)
