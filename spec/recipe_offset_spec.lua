-- recipes/offset.lua --quick on the default device (PoCL in CI), run as a
-- subprocess: one row per offset 0..32 with a bandwidth, and a plot;
-- CLUA_CORRUPT=offset makes it exit non-zero with no table.
local json = require("dkjson")
local support = require("spec.support.recipe")

local run = support.runner("offset", { env_first = true })
local slurp, by_id = support.slurp, support.by_id

describe("recipe offset", function()
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
    assert.truthy(out:find("offsetCopy: effective bandwidth by offset", 1, true))
  end)

  it("has one row per offset 0..32, each with a bandwidth", function()
    local t = assert(tables.offset)
    assert.are.equal(33, #t.rows)
    for i, r in ipairs(t.rows) do
      assert.are.equal(i - 1, r.offset)
      assert.is_true(r.bandwidth > 0)
      assert.is_true(r.min <= r.bandwidth and r.bandwidth <= r.max)
      assert.is_true(r.time > 0)
    end
    assert.are.equal(100, t.rows[1]["vs offset 0"])
  end)

  it("draws the plot (Figure 3.7)", function()
    assert.truthy(out:find("offsetCopy: effective bandwidth (Figure 3.7)", 1, true))
  end)

  it("takes --max-offset", function()
    local path = os.tmpname()
    local _, c, e = run(nil, "--max-offset 3 --json " .. path)
    local doc = json.decode(slurp(path))
    os.remove(path)
    assert.are.equal(0, c, e)
    assert.are.equal(4, #doc.tables[1].rows)
  end)

  it("fails a student's kernel that writes inside odata outside the part it owns, or past it", function()
    for _, c in ipairs({
      { "offset_outside.cl", "student: offsetCopy (offset_outside.cl), offset 1: odata[1048577] written outside "
        .. "the part the kernel owns (odata[1 .. 1048577) of 1048608 elements" },
      { "offset_past.cl", "student: odata: 4 bytes written at offset 4194432, past the end (4194432 bytes) (after "
        .. "student: offsetCopy (offset_past.cl), offset 0)" },
    }) do
      local o, rc, e = run(nil, "--max-offset 2 --kernel spec/fixtures/own/" .. c[1])
      assert.are.equal(1, rc, c[1])
      assert.are.equal("", o)
      assert.truthy(e:find(c[2], 1, true), e)
    end
  end)

  it("exits non-zero with no table when a result is corrupted", function()
    local o, c, e = run("CLUA_CORRUPT=offset")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("offsetCopy: effective bandwidth by offset", 1, true))
    assert.truthy(e:find("verify", 1, true), e)
  end)
end)
