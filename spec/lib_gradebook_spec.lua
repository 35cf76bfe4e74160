-- clua.gradebook, clua.rubric, clua.lms: a submission's run read as a
-- verdict, ranks within the noise, scores by a rubric, the course-system
-- exports (spec/lib_similarity_spec.lua has the similarity; spec/grade_spec.lua
-- runs the grader itself over the fixture class).
local gradebook = require("clua.gradebook")
local rubric = require("clua.rubric")
local lms = require("clua.lms")

describe("clua.gradebook", function()
  it("reads a signal as a crash and the wall-clock kill as a timeout", function()
    local o = gradebook.outcome(139, "", nil)
    assert.are.equal("crashed", o.verdict)
    assert.matches("^signal 11", o.message)
    o = gradebook.outcome(124, "", nil)
    assert.are.equal("timed out", o.verdict)
    assert.is_true(o.timed_out)
  end)

  it("sums up a build failure as its first error's line, in PoCL's and in NVIDIA's form of the log", function()
    local head = "recipe reduction: recipes/reduction.lua:202: program:build: clBuildProgram failed: "
      .. "CL_BUILD_PROGRAM_FAILURE\n"
    local pocl = head .. "error: /tmp/class/r07_broken.cl:5:44: use of undeclared identifier 'j'\n"
      .. "Device pthread-haswell-AMD EPYC failed to build the program\n1 error generated.\n"
    local nvidia = head .. "/tmp/tmp.Xy12/r07_broken.cl:5:44: error: use of undeclared identifier 'j'\n"
      .. "    sdata[tid] = in[get_global_id(0)] + in[j];\n                                           ^\n\n"
    for _, err in ipairs({ pocl, nvidia }) do
      local o = gradebook.outcome(1, err)
      assert.are.equal("did not build", o.verdict)
      assert.is_false(o.built)
      assert.are.equal("line 5:44: use of undeclared identifier 'j'", o.reason)
      assert.matches("r07_broken.cl:5:44: ", o.build_log, 1, true)
    end
    -- a warning before the error, and clang's "fatal error"
    local o = gradebook.outcome(1, head .. "/tmp/k.cl:2:7: warning: unused variable 'x'\n"
      .. "/tmp/k.cl:1:10: fatal error: 'missing.h' file not found\n")
    assert.are.equal("line 1:10: 'missing.h' file not found", o.reason)
    o = gradebook.outcome(1, head .. "warning: /tmp/k.cl:2:7: unused variable 'x'\nerror: /tmp/k.cl:3:1: expected ';'\n")
    assert.are.equal("line 3:1: expected ';'", o.reason)
    -- a log that names no line: its first line
    o = gradebook.outcome(1, head .. "error: the compiler ran out of memory\n")
    assert.are.equal("error: the compiler ran out of memory", o.reason)
  end)

  it("takes the student's fastest row against the fastest ranked kernel, never a reference", function()
    local doc = { tables = { { id = "t", columns = { { name = "variant" }, { name = "time", unit = "ns" },
      { name = "bandwidth", unit = "GB/s" }, { name = "rank" } },
      rows = { { variant = "copy (reference)", time = 10, bandwidth = 99 }, { variant = "ref", time = 100, rank = 3 },
        { variant = "student: k (k.cl)", time = 50, bandwidth = 20, rank = 1 },
        { variant = "student: k (k.cl)", time = 80, bandwidth = 12, rank = 2 } } } } }
    local o = gradebook.outcome(0, "", doc)
    assert.are.equal("correct", o.verdict)
    assert.are.equal(50, o.time)
    assert.are.equal(20, o.bandwidth)
    assert.are.equal(100, o.reference_time)
    assert.are.equal("ref", o.reference)
    assert.are.equal(2, o.speedup)
  end)

  it("names the element written outside the owned part, the offset past a buffer, the first wrong element", function()
    local o = gradebook.outcome(1, "recipe reduction: student: reduce (k.cl), first launch, n = 8: out[512] written "
      .. "outside the part the kernel owns (out[0 .. 512) of 1024 elements; 4 bytes changed outside it)\n")
    assert.are.equal("out of bounds", o.verdict)
    assert.are.equal("writes out[512], outside its part out[0 .. 512)", o.reason)
    o = gradebook.outcome(1, "recipe reduction: student: out: 4 bytes written at offset 4096, past the end (4096 bytes) (after x)\n")
    assert.are.equal("out of bounds", o.verdict)
    assert.are.equal("writes 4 bytes at offset 4096 of out, past the end", o.reason)
    o = gradebook.outcome(1, "recipe reduction: verify student: reduce (k.cl), first launch, n = 100: out[0 .. 4): 1 of "
      .. "4 elements differ (tolerance 1e-05); worst at index 3: got 9, expected 1; first at index 3: got 9, expected 1\n")
    assert.are.equal("wrong", o.verdict)
    assert.are.same({ where = "out[3] (first launch, n = 100)", got = "9", expected = "1",
      text = "out[3]: got 9, expected 1 (first launch, n = 100)" }, o.first_wrong)
    o = gradebook.outcome(1, "recipe reduction: verify student: reduce (k.cl): out[0 .. 1): the sum: got nan, "
      .. "expected 5 (tolerance 0.001)\n")
    assert.are.equal("wrong", o.verdict)
    assert.are.equal("got nan, expected 5", o.first_wrong.text:match("got.*"))
    o = gradebook.outcome(1, "recipe template: student: a: an input changed: 1 of 16 elements, the first at index 3 "
      .. "(99.0, was 3.0) (after student: triad (k.cl), local size 64)\n")
    assert.are.equal("changed its input", o.verdict)
    assert.is_true(o.changed_input)
    assert.is_false(o.oob)
    assert.are.equal("writes its input a: 1 of 16 elements changed, the first a[3] (99.0, was 3.0)", o.reason)
    o = gradebook.outcome(1, "recipe reduction: student: reduce (k.cl), n = 9: in: an input changed: 2 of 9 elements, "
      .. "the first in[4] (0, was 0.25)\n")
    assert.are.equal("changed its input", o.verdict)
    assert.are.equal("writes its input in: 2 of 9 elements changed, the first in[4] (0, was 0.25)", o.reason)
    o = gradebook.outcome(1, "recipe x: student: k: 9e+09 GB/s by the host clock is above the memory bound: not a result\n")
    assert.are.equal("too fast", o.verdict)
    assert.is_true(o.too_fast)
  end)

  it("ranks by time, a difference within the noise sharing a rank", function()
    local function e(n, t, s) return { student = n, outcome = { verdict = "correct", time = t, spread = s } } end
    local es = { e("a", 100, 2), e("b", 101, 2), e("c", 150, 2), e("d", 50, 1),
      { student = "w", outcome = { verdict = "wrong" } }, { student = "f", outcome = { verdict = "too fast", time = 1 } } }
    gradebook.rank(es)
    assert.are.same({ 2, 2, 4, 1 }, { es[1].rank, es[2].rank, es[3].rank, es[4].rank })
    assert.is_true(es[2].tied)
    assert.is_nil(es[5].rank)
    assert.is_nil(es[6].rank) -- flagged, not ranked
    gradebook.rank(es, 250) -- a floor of 250%: everything within 3.5 times the fastest
    assert.are.same({ 1, 1, 1, 1 }, { es[1].rank, es[2].rank, es[3].rank, es[4].rank })
  end)

  it("ties runs whose ranges of times overlap, whatever their medians (copies of one launch-bound kernel)", function()
    -- an H200 at --quick: s23 and s17 are the same kernel, 19.1 and 24.9 µs
    local function e(n, t, lo, hi, s)
      return { student = n, outcome = { verdict = "correct", time = t, min = lo, max = hi, spread = s } }
    end
    local es = { e("s17", 24928, 22144, 43456, 19.8), e("s23", 19104, 18624, 24480, 28.6),
      e("slow", 36000, 35000, 37000, 2) }
    gradebook.rank(es)
    assert.are.same({ 1, 1, 3 }, { es[1].rank, es[2].rank, es[3].rank })
  end)
end)

describe("clua.rubric", function()
  local r = rubric.check{ build = 1, sizes = { { size = "1MiB", points = 3 }, { size = "1000000", points = 2 } },
    speed = { against = "reference", { at_least = 0.5, points = 1 }, { at_least = 0.9, points = 2 } },
    penalties = { out_of_bounds = 2, timeout = 1, late_per_day = 1, late_max = 3 } }

  it("adds build, each size and the highest speed threshold met, less the penalties", function()
    assert.are.equal(8, r.max)
    local s, m, lines = rubric.score(r, { built = true, correct = { true, true }, speedup = 0.95, late_days = 0 })
    assert.are.equal(8, s)
    assert.are.equal(8, m)
    assert.are.same({ "builds: 1 of 1", "correct at --size 1MiB: 3 of 3", "correct at --size 1000000: 2 of 2",
      "speed: 2 of 2 (0.95x the recipe's fastest kernel, at least 0.9)" }, lines)
    s = rubric.score(r, { built = true, correct = { true, false }, speedup = 2 })
    assert.are.equal(4, s) -- no speed points unless correct at every size
    s = rubric.score(r, { built = true, correct = { true, true }, speedup = 0.6, late_days = 5 })
    assert.are.equal(7 - 3, s) -- late: at most 3 off
    s, m, lines = rubric.score(r, { built = true, correct = {}, oob = true })
    assert.are.equal(0, s)
    assert.are.equal("penalty, out of bounds: 2 off (writes outside its part of an output)", lines[#lines - 1])
    assert.are.equal("total: 0, never below 0 (-1 before)", lines[#lines])
    s = rubric.score(r, { built = true, correct = { true, true }, too_fast = true, speedup = 50 })
    assert.are.equal(6, s)
  end)

  it("says what happened on each line, and starts no line as a spreadsheet formula", function()
    local s, _, lines, items = rubric.score(r, { built = true, correct = { false, nil },
      why = { "wrong at out[255] (first launch)", "not run: wrong at the first size" }, late_days = 2 })
    assert.are.equal(0, s)
    assert.are.same({ "builds: 1 of 1", "correct at --size 1MiB: 0 of 3 (wrong at out[255] (first launch))",
      "correct at --size 1000000: 0 of 2 (not run: wrong at the first size)",
      "speed: 0 of 2 (not scored: not correct at every size)", "penalty, late: 2 off (2 days after the deadline)",
      "total: 0, never below 0 (-1 before)" }, lines)
    local sum = 0
    for _, it in ipairs(items) do sum = sum + it.score end
    assert.are.equal(s, sum) -- the items add up to the score (Gradescope's and Classroom's tests)
    _, _, lines = rubric.score(r, { built = false, build_why = "did not build: line 5:44: use of undeclared identifier 'j'" })
    assert.are.equal("builds: 0 of 1 (did not build: line 5:44: use of undeclared identifier 'j')", lines[1])
    assert.are.equal("correct at --size 1MiB: 0 of 3 (not checked: it did not build)", lines[2])
    _, _, lines = rubric.score(r, { built = true, correct = { true, true }, changed_input = true, speedup = 0.1 })
    assert.are.equal("speed: 0 of 2 (0.10x the recipe's fastest kernel, below every threshold)", lines[4])
    assert.are.equal("penalty, changed its input: 2 off (writes into an input)", lines[5])
    for _, g in ipairs({ { built = true, correct = { true, true }, oob = true, timed_out = true, late_days = 9 },
      { built = false }, { built = true, correct = { true, true }, too_fast = true } }) do
      local _, _, ls = rubric.score(r, g)
      for _, l in ipairs(ls) do assert.falsy(l:match("^[%+%-=@]"), l) end
    end
  end)

  it("refuses a rubric with an unknown key or a bad value, naming it", function()
    assert.has_error(function() rubric.check{ buidl = 1 } end,
      "rubric: unknown key 'buidl' (known: build, correct, sizes, speed, penalties)")
    assert.has_error(function() rubric.check{ correct = -1 } end, "rubric: correct must be a number >= 0, got -1")
    assert.has_error(function() rubric.check{ sizes = { { size = "12 parsecs", points = 1 } } } end,
      "rubric: sizes[1]: bad size '12 parsecs'")
    assert.has_error(function() rubric.check{ penalties = { lateness = 1 } } end)
  end)

  it("loads the fixture rubrics", function()
    assert.are.equal(8, rubric.load("spec/fixtures/grade/rubric-reduction.lua").max)
    local t = rubric.load("spec/fixtures/grade/rubric-triad.lua")
    assert.are.equal(5, t.max)
    assert.are.equal(1e9, t.speed[1].at_most)
  end)
end)

describe("clua.lms", function()
  it("writes Moodle's and Canvas's import columns", function()
    local get = function(s, a) return s == "ann" and 7.5 or 0, a .. " ok" end
    local m = lms.moodle({ "ann", "bo" }, { { name = "lab1", max = 8 } }, get, { bo = { student = "bo", email = "bo@u" } })
    assert.are.equal("Username,Email address,ID number,lab1,Feedback: lab1\r\nann,,,7.5,lab1 ok\r\nbo,bo@u,,0,lab1 ok\r\n", m)
    local c = lms.canvas({ "ann" }, { { name = "lab1 (42)", max = 8 } }, get)
    assert.are.equal("Student,ID,SIS User ID,SIS Login ID,Section,lab1 (42)\r\n    Points Possible,,,,,8\r\n"
      .. "ann,,,ann,,7.5\r\n", c)
  end)
end)
