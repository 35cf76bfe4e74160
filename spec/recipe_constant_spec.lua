-- recipes/constant.lua --quick on the default device (PoCL in CI), run as a
-- subprocess: program-scope __constant, __constant and __global argument rows
-- for every index pattern, and
-- CLUA_CORRUPT=constant makes it exit non-zero with no table.
local json = require("dkjson")
local support = require("spec.support.recipe")

local run = support.runner("constant", { env_first = true })
local slurp = support.slurp

describe("recipe constant", function()
  local out, code, err, doc

  setup(function()
    local path = os.tmpname()
    out, code, err = run(nil, "--json " .. path)
    local text = slurp(path)
    os.remove(path)
    doc = text and json.decode(text) or { tables = {} }
  end)

  it("runs --quick and exits 0", function()
    assert.are.equal(0, code, err)
    assert.truthy(out:find("Constant memory: 4096 work-items x 32 reads", 1, true))
  end)

  it("has a row per memory for every index pattern", function()
    local t = assert(doc.tables[1])
    assert.are.equal("constant", t.id)
    local want = { "j (loop counter)", "j + lid % 1", "j + lid % 2", "j + lid % 4", "j + lid % 8",
      "j + lid % 16", "j + lid % 32", "j + lid" }
    local mems = { "__constant array", "__constant arg", "__global arg" }
    assert.are.equal(#mems * #want, #t.rows)
    for i, index in ipairs(want) do
      local rows = {}
      for m, mem in ipairs(mems) do
        local r = t.rows[#mems * (i - 1) + m]
        rows[m] = r
        assert.are.equal(mem, r.memory)
        assert.are.equal(index, r.index)
        assert.is_true(r.time > 0 and r.min <= r.time and r.time <= r.max)
        assert.is_true(r.reads > 0 and r.delivered > 0)
      end
      local g = rows[#mems]
      for m = 1, #mems - 1 do assert.is_true(math.abs(rows[m]["vs global"] - rows[m].time / g.time) < 1e-9) end
      assert.is_nil(g["vs global"])
    end
    assert.are.equal(1, t.rows[1].slowdown)
    assert.are.equal(1, t.rows[1]["addresses per warp"])
    assert.are.equal(32, t.rows[19]["addresses per warp"])
    for _, r in ipairs(t.rows) do assert.is_number(r.spread) end
  end)

  it("exits non-zero with no table when a result is corrupted", function()
    local o, c, e = run("CLUA_CORRUPT=constant")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("Constant memory", 1, true))
    assert.falsy(o:find("memory", 1, true))
    assert.truthy(e:find("verify __constant array j (loop counter): out[0 .. 4096): 1 of 4096 elements differ", 1,
      true), e)
  end)
end)
