-- recipes/multigpu.lua --quick on the default platform (PoCL in CI: one
-- device): each device alone, all at once, the device-to-device matrix by
-- q:migrate; every transfer checked; CLUA_CORRUPT=multigpu exits non-zero
-- with no table.
local support = require "spec.support.recipe"

local run = support.runner("multigpu")

describe("recipe multigpu", function()
  local tables, out

  setup(function() tables, out = support.tables("multigpu") end)

  it("measures each device alone: H2D, D2H, both directions and a copy kernel", function()
    local t = assert(tables.alone)
    assert.is_true(#t.rows >= 1)
    for _, r in ipairs(t.rows) do
      assert.matches("^%d+:%d+$", r.index)
      for _, op in ipairs({ "H2D", "D2H", "both", "copy" }) do assert.is_true(r[op] > 0, op) end
    end
  end)

  it("runs every device at once and sets the aggregate beside the sum of the alones", function()
    local t = assert(tables.together)
    assert.are.equal(4, #t.rows)
    for _, r in ipairs(t.rows) do
      assert.is_true(r.aggregate > 0 and r["sum of alone"] > 0)
      assert.near(r.aggregate / r["sum of alone"], r["aggregate / sum"], 1e-9)
      assert.is_true(r.enqueue >= 0 and r.enqueue <= 100, "enqueue share " .. tostring(r.enqueue))
    end
    if #tables.alone.rows == 1 then assert.matches("one device on this platform", out, 1, true) end
    assert.matches("multigpu: H2D on", out, 1, true) -- the timeline
  end)

  it("has a device-to-device matrix, a row per device", function()
    local t = assert(tables.matrix)
    assert.are.equal(#tables.alone.rows, #t.rows)
  end)

  it("fails, printing no table, when a transfer is corrupted", function()
    local o, code, err = run("", "CLUA_CORRUPT=multigpu")
    assert.are_not.equal(0, code)
    assert.matches("verify H2D on .*: 1 of %d+ elements differ", err)
    assert.is_nil(o:find("Each device alone", 1, true))
  end)
end)
