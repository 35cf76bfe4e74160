-- clua.gradebook: a submission's run read as a verdict (spec/grade_spec.lua
-- runs the grader over the fixture folder; here the cases a fixture cannot
-- stage on every driver: a crash, the wall-clock kill).
local gradebook = require "clua.gradebook"

describe("clua.gradebook", function()
  it("reads a signal as a crash and the wall-clock kill as a timeout", function()
    local o = gradebook.outcome(139, "", nil)
    assert.are.equal("crashed", o.verdict)
    assert.matches("^signal 11", o.message)
    o = gradebook.outcome(124, "", nil)
    assert.are.equal("timed out", o.verdict)
    assert.is_true(o.timed_out)
  end)

  it("takes the student's fastest row and the recipe's fastest kernel of the same table", function()
    local doc = { tables = { { id = "t", columns = { { name = "variant" }, { name = "time", unit = "ns" },
      { name = "bandwidth", unit = "GB/s" } },
      rows = { { variant = "ref", time = 100, bandwidth = 10 }, { variant = "student: k (k.cl)", time = 50, bandwidth = 20 },
        { variant = "student: k (k.cl)", time = 80, bandwidth = 12 } } } } }
    local o = gradebook.outcome(0, "", doc)
    assert.are.equal("correct", o.verdict)
    assert.are.equal(50, o.time)
    assert.are.equal(20, o.bandwidth)
    assert.are.equal(100, o.reference_time)
    local t = gradebook.table({ { student = "s", file = "k.cl", seconds = 1, outcome = o } })
    assert.are.equal(2, t.rows[1]["speed-up"])
    assert.are.equal(1, t.rows[1].rank)
  end)

  it("says so when the recipe ran but printed no row of the student's", function()
    local o = gradebook.outcome(0, "", { tables = { { columns = {}, rows = { { variant = "ref" } } } } })
    assert.are.equal("no kernel", o.verdict)
  end)
end)
