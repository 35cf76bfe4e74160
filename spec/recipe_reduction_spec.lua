-- recipes/reduction.lua --quick on the default device (PoCL in CI), run as a
-- subprocess: the ladder's rows, the copy reference, errors within their
-- bounds, and CLUA_CORRUPT=reduction makes it exit non-zero with no table.
local json = require "dkjson"
local support = require "spec.support.recipe"

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
    assert.are.equal(8, #t.rows)
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
