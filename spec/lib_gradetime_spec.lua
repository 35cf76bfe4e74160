-- clua.gradetime: the grader's timing rounds, with runs made up by the spec
-- (the whole grading on PoCL is spec/grade_time_spec.lua's).
package.path = "lua/?.lua;" .. package.path
local gradetime = require("clua.gradetime")

local function correct(time, spread, ref_time)
  return { verdict = "correct", correct = true, time = time, min = time * 0.99, max = time * 1.01,
    spread = spread or 2, reference = "a (one run)", reference_time = ref_time or 1, speedup = (ref_time or 1) / time,
    kernels = { { name = "a (one run)", time = ref_time or 1 } } }
end

local function entries()
  return { { student = "ann", path = "ann.cl", outcome = correct(100) },
    { student = "bob", path = "bob.cl", outcome = { verdict = "wrong", correct = false } },
    { student = "cy", path = "cy.cl", outcome = correct(200) },
    { student = "dee", path = "dee.cl", outcome = correct(300) } }
end

-- A run of the recipe: the references' whole run, or a student's timing run
-- (`times[name]` its times, one per round); every call recorded.
local function runner(times, refs)
  local calls = {}
  local function run(e, mode, tag)
    calls[#calls + 1] = { e.student, mode or "whole", tag }
    if not mode then
      local r = table.remove(refs, 1)
      return r and { verdict = "correct", time = 1, reference = r[1], reference_time = r[2],
        kernels = { { name = "copy", time = 5, reference = true }, { name = r[1], time = r[2] } } }
        or { verdict = "crashed" }
    end
    local t = table.remove(times[e.student], 1)
    return t and correct(t, 1) or { verdict = "timed out" }
  end
  return run, calls
end

describe("clua.gradetime", function()
  it("gives the grader's runs their modes, and refuses rounds that are no whole number >= 1", function()
    assert.are.equal("check", gradetime.mode(1))
    assert.are.equal("verify", gradetime.mode(2))
    assert.are.equal(3, gradetime.check_rounds("3"))
    for _, bad in ipairs({ "0", "-1", "1.5", "x" }) do
      local n, why = gradetime.check_rounds(bad)
      assert.is_nil(n)
      assert.matches("--rounds must be a whole number >= 1, got " .. bad, why, 1, true)
    end
  end)

  it("turns each round's order, so that no submission always runs first", function()
    assert.are.same({ 1, 2, 3 }, gradetime.order({ 1, 2, 3 }, 1))
    assert.are.same({ 2, 3, 1 }, gradetime.order({ 1, 2, 3 }, 2))
    assert.are.same({ 3, 1, 2 }, gradetime.order({ 1, 2, 3 }, 3))
  end)

  it("interleaves a whole run of the references with each round of the correct submissions", function()
    local es = entries()
    local run, calls = runner({ ann = { 100, 110, 90 }, cy = { 200, 210, 190 }, dee = { 300, 330, 310 } },
      { { "k6", 50 }, { "k6", 60 }, { "slides", 40 } })
    local t = gradetime.rounds(es, run, { rounds = 3 })
    assert.are.same({ { "ann", "whole", "-references1" }, { "ann", "time", "-round1" }, { "cy", "time", "-round1" },
      { "dee", "time", "-round1" },
      { "ann", "whole", "-references2" }, { "cy", "time", "-round2" }, { "dee", "time", "-round2" },
      { "ann", "time", "-round2" },
      { "ann", "whole", "-references3" }, { "dee", "time", "-round3" }, { "ann", "time", "-round3" },
      { "cy", "time", "-round3" } }, calls)
    -- the wrong one is never timed again
    for _, c in ipairs(calls) do assert.are_not.equal("bob", c[1]) end
    assert.are.same({ rounds = 3, done = 3, cut = false }, { rounds = t.rounds, done = t.done, cut = t.cut })
    -- one reference figure for all: the median of the rounds' best, named as most rounds found it
    assert.are.equal(50, t.ref.time)
    assert.are.equal("k6", t.ref.name)
    local ann, cy, dee = es[1].outcome, es[3].outcome, es[4].outcome
    assert.are.equal(100, ann.time) -- the median of its three timing runs: 100, 110, 90
    assert.are.equal(200, cy.time)
    assert.are.equal(310, dee.time)
    for _, o in ipairs({ ann, cy, dee }) do
      assert.are.equal("k6", o.reference)
      assert.are.equal(50, o.reference_time)
      assert.are.equal(50 / o.time, o.speedup)
      assert.are.equal(3, o.runs)
      assert.matches("(median of 3 runs)", o.reason, 1, true)
    end
    -- min and max of every repetition; the spread the larger of a run's and the runs' medians'
    assert.are.equal(90 * 0.99, ann.min)
    assert.are.equal(110 * 1.01, ann.max)
    assert.are.equal(20, ann.spread) -- (110 - 90) / 100, above the runs' own 1-2 %
    -- each kernel of the references: its median over the rounds
    local by = {}
    for _, k in ipairs(ann.kernels) do by[k.name] = k end
    assert.are.equal(5, by.copy.time)
    assert.is_true(by.copy.reference)
    assert.are.equal(55, by.k6.time)
    assert.are.equal(40, by.slides.time)
    assert.is_nil(es[2].outcome.time)
    assert.matches("3 whole runs of the recipe", gradetime.note(t), 1, true)
    assert.matches("k6, the median of 3 runs", gradetime.note(t), 1, true)
  end)

  it("keeps a submission's other runs when one fails, and gives no speed-up without the references", function()
    local es = entries()
    local run = runner({ ann = { 120 }, cy = { 200, 230 }, dee = { 300, 300 } }, {})
    local t = gradetime.rounds(es, run, { rounds = 2 })
    local ann, cy = es[1].outcome, es[3].outcome
    assert.are.equal(1, ann.runs) -- its second timing run timed out: its first alone
    assert.are.equal(120, ann.time)
    assert.matches("(median of 1 run)", ann.reason, 1, true)
    assert.are.equal(2, cy.runs)
    assert.are.equal(215, cy.time)
    -- no whole run of the recipe ended: the check runs' one-run times of its own kernels are no figure
    assert.is_nil(t.ref)
    for _, o in ipairs({ ann, cy }) do
      assert.is_nil(o.speedup)
      assert.is_nil(o.reference_time)
      assert.is_nil(o.kernels)
      assert.falsy(o.reason:find("recipe's best", 1, true))
    end
    assert.matches("no speed-up: no run of the recipe's own kernels ended with their times", gradetime.note(t), 1, true)
  end)

  it("starts no run once the budget is spent, and says so", function()
    local es = entries()
    local run, calls = runner({ ann = { 100, 100 }, cy = { 200, 200 }, dee = { 300, 300 } }, { { "k6", 50 }, { "k6", 50 } })
    local left = 6
    local t = gradetime.rounds(es, run, { rounds = 3, over = function() left = left - 1; return left < 0 end })
    -- round 1 whole, round 2's references and its first submission (cy): then the budget is spent
    assert.are.same({ "-references1", "-round1", "-round1", "-round1", "-references2", "-round2" },
      (function() local l = {}; for i, c in ipairs(calls) do l[i] = c[3] end; return l end)())
    assert.is_true(t.cut)
    assert.matches("the grading budget (--budget) ended the timing after round 2 of 3", gradetime.note(t), 1, true)
    assert.are.equal(50, es[1].outcome.reference_time)
    assert.are.equal(1, es[1].outcome.runs)
    assert.are.equal(2, es[3].outcome.runs)
  end)

  it("never takes a check run's time as a sample, and gives no time where no timing run ended", function()
    local es = entries()
    -- the check runs' times (100, 200, 300) are far from every timing run's
    local run, calls = runner({ ann = { 5000, 5200, 4800 }, cy = {}, dee = { 7000 } }, { { "k6", 50 }, { "k6", 50 }, { "k6", 50 } })
    local t = gradetime.rounds(es, run, { rounds = 3 })
    local ann, cy, dee = es[1].outcome, es[3].outcome, es[4].outcome
    assert.are.equal(5000, ann.time)
    assert.are.equal(3, ann.runs)
    assert.are.equal(4800 * 0.99, ann.min) -- not the check run's 99
    assert.are.equal(7000, dee.time)
    assert.are.equal(1, dee.runs)
    assert.are.equal(50 / 7000, dee.speedup)
    -- cy: three timing runs, none ended: no time, no speed-up, not ranked, and says why
    local tried = 0
    for _, c in ipairs(calls) do if c[1] == "cy" and c[2] == "time" then tried = tried + 1 end end
    assert.are.equal(3, tried)
    for _, k in ipairs({ "time", "min", "max", "spread", "runs", "speedup", "reference_time", "kernels" }) do
      assert.is_nil(cy[k], k)
    end
    assert.are.equal("correct", cy.verdict)
    assert.are.equal("none of its timing runs ended with a time (its -roundK logs say why)", cy.untimed)
    assert.are.equal("correct, not timed: " .. cy.untimed, cy.reason)
    local ranked = require("clua.gradebook").rank(es)
    assert.are.equal(2, #ranked)
    for _, e in ipairs(ranked) do assert.are_not.equal("cy", e.student) end
    -- no speed points for it, and the rubric says why
    local rubric = require("clua.rubric")
    local r = rubric.check(rubric.DEFAULT, "rubric")
    local score, _, lines = rubric.score(r, { built = true, correct = { true }, untimed = cy.untimed })
    assert.are.equal(r.build + r.sizes[1].points, score)
    assert.matches("not scored: not timed: none of its timing runs", table.concat(lines, "\n"), 1, true)
    assert.matches("up to 3", gradetime.note(t), 1, true)
  end)

  it("gives no time to a submission the budget left untimed, and says so", function()
    local es = entries()
    local run, calls = runner({ ann = { 100 }, cy = { 200 }, dee = { 300 } }, { { "k6", 50 } })
    local left = 2
    gradetime.rounds(es, run, { rounds = 3, over = function() left = left - 1; return left < 0 end })
    assert.are.equal(2, #calls) -- the references and ann's first run
    assert.are.equal(100, es[1].outcome.time)
    for _, i in ipairs({ 3, 4 }) do
      local o = es[i].outcome
      assert.is_nil(o.time)
      assert.is_nil(o.speedup)
      assert.matches("the grading budget (--budget) ended the timing before its first run", o.reason, 1, true)
    end
  end)

  it("does nothing when no submission is correct", function()
    local run, calls = runner({}, {})
    assert.is_nil(gradetime.rounds({ { student = "bob", outcome = { verdict = "wrong" } } }, run))
    assert.are.equal(0, #calls)
    assert.is_nil(gradetime.note(nil))
  end)
end)
