-- The grader's timing on PoCL (clua.gradetime): a class of the reduction
-- assignment with two identical kernels (spec/fixtures/grade/reduction's
-- r01_fast and r08_copy, the same code with its names changed), a slow one,
-- a wrong one and one that does not build. The identical two tie and their
-- speed-ups agree within the noise; every correct submission is held against
-- one reference figure; the wrong and the broken ones are never timed again;
-- each run says what it timed. Graded with --jobs 2 (the default on a 2-core
-- machine): the runs that decide the verdicts run side by side, and every
-- timing run is one of the timing rounds after them, with nothing beside it.
-- --rounds 5: on PoCL on a shared 2-core machine one process of a kernel may
-- run it up to 2x slower than the next (a whole run's medians 250 µs in one,
-- 500 µs in another), whichever kernel it is; with 3 rounds the two identical
-- kernels' medians came out beyond their spread in 3 of 26 gradings here,
-- with 5 in none of 14. (--no-check: the checker's verdicts are
-- spec/grade_check_spec.lua's.)
local json = require("dkjson")
local shell = require("spec.support.shell")

local clua = os.getenv("CLUA") or "build/clua"
local FIX = "spec/fixtures/grade/reduction/"

describe("clua grade's timing", function()
  local dir, code, err, doc, rows, seconds

  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    local class = dir .. "/class"
    assert(os.execute(("mkdir -p %s && cp %sr01_fast.cl %sr08_copy.cl %sr02_slow.cl %sr03_tail.cl %sr07_broken.cl %s")
      :format(class, FIX, FIX, FIX, FIX, FIX, class)))
    local t0 = os.time()
    local out
    out, code = shell.run(("%s recipes/grade.lua --recipe reduction --submissions %s --timeout 5 --wall 60 "
      .. "--recipe-options \"--quick --size 256KiB\" --rounds 5 --no-check --jobs 2 --out %s/gb 2> %s/stderr"):format(clua, class,
      dir, dir))
    seconds = os.time() - t0
    err = (shell.slurp(dir .. "/stderr") or "") .. out
    doc = json.decode(shell.slurp(dir .. "/gb.json") or "null")
    rows = {}
    for _, r in ipairs(doc and doc.tables and doc.tables[1].rows or {}) do rows[r.student] = r end
  end)

  teardown(function() os.execute("rm -rf " .. dir) end)

  it("grades the class in five rounds within a modest time", function()
    assert.are.equal(0, code, err)
    assert.matches("5 submissions: 3 correct, 1 wrong, 1 did not build", err, 1, true)
    assert.matches("timing round 5/5", err, 1, true)
    assert.is_true(seconds < 200, seconds .. " s")
  end)

  it("ties two identical kernels, their speed-ups within the noise of each other", function()
    local a, b = rows.r01_fast, rows.r08_copy
    assert.are.equal("correct", a.verdict)
    assert.are.equal("correct", b.verdict)
    assert.are.equal(a.rank, b.rank, ("r01_fast %s ns (spread %s %%), r08_copy %s ns (spread %s %%)"):format(a.time,
      a.spread, b.time, b.spread))
    local noise = math.max(a.spread, b.spread, 5) / 100
    local hi, lo = math.max(a["speed-up"], b["speed-up"]), math.min(a["speed-up"], b["speed-up"])
    assert.is_true(hi <= lo * (1 + noise), ("speed-ups %.3f and %.3f, noise %.1f %%"):format(a["speed-up"],
      b["speed-up"], noise * 100))
    -- the slow one (16384 dependent steps a work-item) is slower than both, beyond the noise
    assert.is_true(rows.r02_slow.rank > a.rank, ("r02_slow rank %s, time %s"):format(rows.r02_slow.rank, rows.r02_slow.time))
  end)

  it("holds every correct submission against one reference figure", function()
    local ref
    for _, s in ipairs({ "r01_fast", "r08_copy", "r02_slow" }) do
      local r = rows[s]
      assert.are.equal(rows.r01_fast.against, r.against)
      local t = r["speed-up"] * r.time -- the reference's time
      ref = ref or t
      assert.is_true(math.abs(t - ref) <= 1e-9 * ref, s)
      assert.matches("(median of 5 runs)", r.reason, 1, true)
    end
    assert.falsy(rows.r01_fast.against:find("copy", 1, true))
    local notes = table.concat(doc.tables[1].notes, "\n")
    assert.matches("interleaved in the same grading run with 5 whole runs of the recipe", notes, 1, true)
    local valid, ok = require("spec.support.schema").check({ dir .. "/gb.json" })
    assert.is_true(ok ~= false, valid)
  end)

  it("times the correct ones again under --grading time, and never the others", function()
    local logs = dir .. "/gb-logs/"
    for _, s in ipairs({ "r01_fast", "r08_copy", "r02_slow" }) do
      for k = 1, 5 do assert.truthy(shell.slurp(("%s%s-round%d.json"):format(logs, s, k)), s .. " round " .. k) end
    end
    for k = 1, 5 do assert.truthy(shell.slurp(("%sr01_fast-references%d.json"):format(logs, k)), "references " .. k) end
    for _, s in ipairs({ "r03_tail", "r07_broken" }) do assert.is_nil(shell.slurp(logs .. s .. "-round1.log"), s) end
    -- each run's tables say what was timed
    local check = json.decode(shell.slurp(logs .. "r01_fast.json"))
    local timed = json.decode(shell.slurp(logs .. "r08_copy-round2.json"))
    local whole = json.decode(shell.slurp(logs .. "r01_fast-references1.json"))
    assert.matches("--grading check: the recipe's own variants ran once each", table.concat(check.tables[1].notes, "\n"), 1, true)
    assert.matches("--grading time", table.concat(timed.tables[1].notes, "\n"), 1, true)
    assert.falsy(table.concat(whole.tables[1].notes, "\n"):find("--grading", 1, true))
  end)
end)
