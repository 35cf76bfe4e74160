-- recipes/timing.lua --quick on the default device (PoCL in CI), run as a
-- subprocess: its tables have the rows they should, the wrong method is
-- flagged, and CLUA_CORRUPT=timing makes it exit non-zero with no table.
local json = require("dkjson")
local support = require("spec.support.recipe")

local run = support.runner("timing", { env_first = true })
local slurp, by_id = support.slurp, support.by_id

describe("recipe timing", function()
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
    assert.truthy(out:find("The same copy timed three ways", 1, true))
    assert.truthy(out:find("Timer resolution", 1, true))
  end)

  it("times every operation by every method, the wrong one flagged", function()
    local t = assert(tables.timing)
    local seen = {}
    for _, r in ipairs(t.rows) do
      seen[r.operation .. " / " .. r.method] = r
      assert.is_true(r.time > 0)
      assert.is_true(r.min <= r.time and r.time <= r.max)
      if r.method:find("no clFinish", 1, true) then
        assert.truthy(r.valid:find("^NO"))
      else
        assert.are.equal("yes", r.valid)
      end
    end
    for _, op in ipairs({ "write H2D", "read D2H" }) do
      for _, m in ipairs({ "host clock, blocking call", "host clock, non-blocking + clFinish",
        "host clock, non-blocking, no clFinish", "events: END - START" }) do
        assert.truthy(seen[op .. " / " .. m], op .. " / " .. m)
      end
    end
    for _, m in ipairs({ "host clock, enqueue + clFinish", "host clock, non-blocking, no clFinish",
      "events: END - START" }) do
      assert.truthy(seen["copy kernel / " .. m], m)
    end
    assert.are.equal(11, #t.rows)
    assert.are.equal(1, seen["write H2D / events: END - START"]["vs events"])
  end)

  it("gives each timed figure its spread, the wrong method's too", function()
    for _, r in ipairs(tables.timing.rows) do assert.is_number(r.spread, r.operation .. " / " .. r.method) end
    local spread = {}
    for _, r in ipairs(tables.resolution.rows) do spread[r.quantity] = r.spread end
    assert.is_number(spread["empty kernel, median duration"])
    assert.is_number(spread["4-byte write, median duration"])
  end)

  it("reports the stated and measured resolution", function()
    local t = assert(tables.resolution)
    local seen, how = {}, {}
    for _, r in ipairs(t.rows) do seen[r.quantity], how[r.quantity] = r.value, r.how end
    assert.is_true(seen["stated profiling timer resolution"] >= 0)
    assert.is_true(seen["event clock tick"] >= 1)
    assert.is_true(seen["host clock, smallest step"] >= 1)
    assert.is_number(seen["empty kernel, median duration"])
    assert.is_number(seen["4-byte write, median duration"])
    -- a slope, or (a loaded CPU: the spin durations did not grow) no value and why
    local spin = "spin kernel, per iteration"
    if seen[spin] == nil then assert.matches("not positive, the durations did not grow", how[spin] or "", 1, true)
    else assert.is_true(seen[spin] > 0) end
  end)

  it("exits non-zero with no table when a result is corrupted", function()
    local o, c, e = run("CLUA_CORRUPT=timing")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("timed three ways", 1, true))
    assert.falsy(o:find("Timer resolution", 1, true))
    assert.truthy(e:find("verify", 1, true), e)
  end)
end)
