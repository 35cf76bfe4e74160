-- recipes/reduction.lua --quick on the default device (PoCL in CI), run as a
-- subprocess: the ladder's rows, the copy reference, errors within their
-- bounds, and CLUA_CORRUPT=reduction makes it exit non-zero with no table.
local json = require("dkjson")
local support = require("spec.support.recipe")

local run = support.runner("reduction", { env_first = true })
local slurp, by_id = support.slurp, support.by_id

describe("recipe reduction", function()
  local out, code, err, tables

  setup(function()
    local path = os.tmpname()
    out, code, err = run(nil, "--json " .. path)
    local text = slurp(path)
    os.remove(path)
    tables = text and by_id(json.decode(text)) or {}
  end)

  it("runs --quick and exits 0", function()
    assert.are.equal(0, code, err)
    assert.truthy(out:find("Sum of 262144 floats", 1, true))
    assert.truthy(out:find("by work-groups per compute unit", 1, true))
  end)

  it("has the copy reference, the ladder 1-6 and the slides' kernel, each within its error bound", function()
    local t = assert(tables.reduction)
    assert.are.equal(9, #t.rows)
    assert.truthy(t.rows[1].variant:find("^copy kernel"))
    assert.are.equal(100, t.rows[1]["of copy"])
    local prefixes = { "1 interleaved, divergent", "2 interleaved, strided index", "3 sequential addressing",
      "4 first add during load", "5 unrolled last warp", "6 many elements per work-item", "slides' two-stage" }
    for i, p in ipairs(prefixes) do
      local r = t.rows[i + 1]
      assert.truthy(r.variant:find(p, 1, true), r.variant)
      assert.is_true(r.time > 0 and r.min <= r.time and r.time <= r.max)
      assert.is_true(r.launches >= 2)
      assert.is_true(r.bandwidth > 0 and r["of copy"] > 0)
      assert.is_true(r["rel. error"] >= 0 and r["rel. error"] <= r.bound, r.variant)
    end
    -- PoCL has no warp width: the unrolled last warp keeps its barriers, and says so;
    -- NVIDIA (warp size 32) runs it warp-synchronous, verified like the rest
    local notes = table.concat(t.notes, "\n")
    if require("cl").device().info.warp_size == 32 then
      assert.truthy(t.rows[6].variant:find("(warp-synchronous)", 1, true), t.rows[6].variant)
      assert.truthy(notes:find("without barriers (NVIDIA, warp size 32", 1, true), notes)
    else
      assert.truthy(t.rows[6].variant:find("(barriers)", 1, true), t.rows[6].variant)
      assert.truthy(notes:find("keep a barrier between the unrolled steps", 1, true), notes)
    end
  end)

  it("has 6 finished by one atomic per group, one launch, within its error bound", function()
    local r = assert(tables.reduction).rows[9]
    assert.truthy(r.variant:find("6, one atomic per group instead of a second launch", 1, true), r.variant)
    assert.are.equal(1, r.launches)
    assert.is_true(r["rel. error"] >= 0 and r["rel. error"] <= r.bound)
  end)

  it("sweeps work-groups per compute unit", function()
    local t = assert(tables.groups)
    assert.are.equal(2, #t.rows)
    for _, r in ipairs(t.rows) do
      assert.is_true(r["6 time"] > 0 and r["slides time"] > 0)
    end
  end)

  it("exits non-zero with no table when a result is corrupted", function()
    local o, c, e = run("CLUA_CORRUPT=reduction")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("Sum of", 1, true))
    assert.falsy(o:find("variant", 1, true))
    assert.truthy(e:find("verify copy", 1, true), e)
  end)
end)

-- The issue's reduction verdicts: the size asked is the size run, or refused;
-- a student's first launch is checked group by group at a ragged size too.
describe("recipe reduction: sizes and the student's contract", function()
  local FIX = "spec/fixtures/grade/reduction/"

  it("runs a ragged --size as asked (a partial last work-group), and refuses one that is no whole float", function()
    local out, code, err = run(nil, "--size 1000000 --reps 1")
    assert.are.equal(0, code, err)
    assert.truthy(out:find("Sum of 250000 floats", 1, true), out)
    out, code, err = run(nil, "--size 1000001")
    assert.are_not.equal(0, code)
    assert.truthy(err:find("--size 1000001 bytes is not a whole number of floats (4 bytes each)", 1, true), err)
  end)

  it("names the first wrong group of a kernel with no bounds check, at a ragged size", function()
    local out, code, err = run(nil, "--reps 1 --kernel " .. FIX .. "r03_tail.cl")
    assert.are.equal(1, code)
    assert.are.equal("", out)
    assert.truthy(err:find("first launch, n = 261887 (512 groups, the last one 255 of 512 elements): out[0 .. 512): "
      .. "1 of 512 elements differ", 1, true), err)
    assert.truthy(err:find("first at index 511: got 2.57", 1, true), err)
  end)

  it("fails a write inside out past the part the kernel owns, and one past the buffer", function()
    local _, code, err = run(nil, "--reps 1 --kernel " .. FIX .. "r04_inside.cl")
    assert.are.equal(1, code)
    assert.truthy(err:find("first launch, n = 262144: out[512] written outside the part the kernel owns "
      .. "(out[0 .. 512) of 1024 elements", 1, true), err)
    _, code, err = run(nil, "--reps 1 --kernel " .. FIX .. "r05_past.cl")
    assert.are.equal(1, code)
    assert.truthy(err:find("student: out: 4 bytes written at offset 4096, past the end (4096 bytes)", 1, true), err)
  end)

  it("checks a correct kernel at the size run, a ragged size and one partial group, and ranks it", function()
    local out, code, err = run(nil, "--reps 1 --kernel " .. FIX .. "r01_fast.cl")
    assert.are.equal(0, code, err)
    assert.truthy(out:find("checked group by group at n = 262144, 261887, 259", 1, true), out)
    assert.truthy(out:find("student: reduce (r01_fast.cl) ranks ", 1, true), out)
  end)
end)
