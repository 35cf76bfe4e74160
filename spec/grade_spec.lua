-- recipes/grade.lua over spec/fixtures/grade/reduction (the reduction
-- recipe's assignment, on PoCL in CI) with the rubric of
-- spec/fixtures/grade/rubric-reduction.lua and a deadline: two correct
-- kernels of different speed, one wrong only on a ragged tail, one writing
-- inside out past its part, one writing past the buffer, one that never ends,
-- one that does not build, a copy of the fast one with its names changed, and
-- a late one (a git repository whose last commit is after the deadline). Each
-- verdict and score is checked; then the options are checked once, and a
-- course file grades two assignments in one run.
local json = require("dkjson")
local shell = require("spec.support.shell")
local box = require "spec.support.sandbox" -- grades with --no-sandbox where the sandbox cannot start

local clua = os.getenv("CLUA") or "build/clua"
local FIX = "spec/fixtures/grade/"

local function grade(argv, dir)
  local errf = dir .. "/stderr"
  local t0 = os.time()
  local p = assert(io.popen(("%s recipes/grade.lua %s%s 2> %s; echo \"exit=$?\""):format(clua, argv, box.flag, errf)))
  local out = p:read("a")
  p:close()
  return out, tonumber(out:match("exit=(%d+)%s*$")), shell.slurp(errf) or "", os.time() - t0
end

describe("recipes/grade.lua", function()
  local dir, out, err, code, seconds, doc, rows

  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    local class = dir .. "/class"
    assert(os.execute("mkdir -p " .. class .. "/r09_late && cp " .. FIX .. "reduction/r0[1-8]*.cl " .. class
      .. " && touch -d '2025-01-01 12:00' " .. class .. "/*.cl"))
    -- the late one: a git repository whose file is older than the deadline, its last commit two days after it
    assert(os.execute(("cd %s/r09_late && cp %s/%sreduction/r09_late.cl reduce.cl && touch -d '2025-01-01 12:00' reduce.cl"
      .. " && git init -q . && git add reduce.cl && GIT_AUTHOR_DATE=2025-01-03T10:00:00Z "
      .. "GIT_COMMITTER_DATE=2025-01-03T10:00:00Z git -c user.name=s -c user.email=s@x commit -qm k"):format(class,
      os.getenv("PWD"), FIX)))
    out, code, err, seconds = grade(("--recipe reduction --submissions %s --timeout 5 --wall 60 --no-check "
      .. "--recipe-options \"--quick\" --rubric %srubric-reduction.lua --deadline 2025-01-02T00:00:00Z --out %s/gb")
      :format(class, FIX, dir), dir)
    doc = json.decode(shell.slurp(dir .. "/gb.json") or "null")
    rows = {}
    for _, r in ipairs(doc and doc.tables and doc.tables[1].rows or {}) do rows[r.student] = r end
  end)

  teardown(function() os.execute("rm -rf " .. dir) end)

  it("grades every submission and ends within its limits", function()
    assert.are.equal(0, code, err)
    assert.is_true(seconds < 240, seconds .. " s")
    assert.matches("%[9/9%]", err)
    assert.matches("9 submissions: 4 correct, 1 wrong, 2 out of bounds, 1 did not build, 1 timed out", err, 1, true)
  end)

  local function speed_points(r) return r["speed-up"] >= 0.9 and 2 or r["speed-up"] >= 0.1 and 1 or 0 end

  it("scores the correct ones by the rubric and ranks them by time, against the recipe's fastest reduction", function()
    for _, s in ipairs({ "r01_fast", "r02_slow", "r08_copy", "r09_late" }) do
      local r = rows[s]
      assert.are.equal("correct", r.verdict, s)
      assert.is_true(r.rank >= 1 and r.rank <= 4, s)
      assert.are.equal(8, r.max)
      assert.truthy(r.against:find("^6 many elements per work%-item") or r.against:find("^slides")
        or r.against:find("^%d[ ,]"), r.against)
      assert.falsy(r.against:find("copy", 1, true), r.against)
      assert.matches("correct at --size 1MiB: 3 of 3; correct at --size 1000000: 2 of 2", r.rubric, 1, true)
    end
    assert.are.equal(6 + speed_points(rows.r01_fast), rows.r01_fast.score)
    assert.are.equal(4 + speed_points(rows.r09_late), rows.r09_late.score) -- two days late: -2
    assert.are.equal(2, rows.r09_late["late days"])
    assert.matches("penalty, late: 2 off (2 days after the deadline)", rows.r09_late.rubric, 1, true)
    assert.matches("2025-01-03T10:00:00Z (last commit)", rows.r09_late.submitted, 1, true)
    assert.are.equal(0, rows.r01_fast["late days"])
    -- the slow one (16384 dependent steps a work-item) is slower than the fast one, beyond the noise
    assert.is_true(rows.r02_slow.time > rows.r01_fast.time and rows.r02_slow.rank > rows.r01_fast.rank,
      ("r02_slow %s ns, rank %s; r01_fast %s ns, rank %s"):format(rows.r02_slow.time, rows.r02_slow.rank,
        rows.r01_fast.time, rows.r01_fast.rank))
  end)

  it("names the first wrong group of the first launch when only a ragged tail is wrong", function()
    local r = rows.r03_tail
    assert.are.equal("wrong", r.verdict)
    assert.matches("^out%[511%]: got 2%.57%d*e%+32, expected 128%.49%d* %(first launch, n = 261887 %(512 groups, "
      .. "the last one 255 of 512 elements%)%)$", r["first wrong"])
    assert.are.equal(1, r.score) -- builds, nothing else
    assert.matches("correct at --size 1MiB: 0 of 3 (wrong at out[511] (first launch, n = 261887 (512 groups", r.rubric, 1, true)
    assert.is_nil(r.rank)
  end)

  it("fails a write inside out past its part, and one past the buffer, with the penalty", function()
    local r = rows.r04_inside
    assert.are.equal("out of bounds", r.verdict)
    assert.are.equal("writes out[512], outside its part out[0 .. 512)", r.reason)
    assert.are.equal(0, r.score) -- 1 - 2, never below 0
    r = rows.r05_past
    assert.are.equal("out of bounds", r.verdict)
    assert.matches("4 bytes written at offset 4096, past the end (4096 bytes)", r.message, 1, true)
    assert.are.equal(0, r.score)
  end)

  it("stops a kernel that never ends, and says which did not build, with the compiler's words", function()
    local r = rows.r06_endless
    assert.are.equal("timed out", r.verdict)
    assert.is_true(r.seconds < 45, r.seconds .. " s")
    assert.are.equal(0, r.score) -- 1 for building, 1 off for the timeout
    r = rows.r07_broken
    assert.are.equal("did not build", r.verdict)
    assert.are.equal("line 5:44: use of undeclared identifier 'j'", r.reason)
    assert.are.equal(0, r.score)
  end)

  it("lists the renamed copy as alike, at the end, as a hint", function()
    assert.are.same({ assignment = "reduction", a = "r01_fast", b = "r08_copy", score = 1 }, doc.similar[1])
    for _, s in ipairs(doc.similar) do
      assert.is_true(s.score >= 0.95)
      assert.falsy(s.a == "r02_slow" or s.b == "r02_slow")
    end
    assert.matches("alike %(a hint, not a verdict%):\n  reduction: r01_fast ~ r08_copy 1%.00", out)
  end)

  it("prints a compact table and writes CSV, JSON, Markdown, the course exports and feedback", function()
    for l in out:gmatch("[^\n]+") do
      if l:match("^r0%d_") then assert.is_true(utf8.len(l) <= 140, l) end
    end
    assert.matches("\nr03_tail%s+wrong%s+1/8%s+%-%s+%-%s+out%[511%]: got", out)
    -- the note on a CPU's noisy ranks is there on a CPU device (PoCL) only, never on a GPU
    local device_type = doc.tables[1].meta.device_type
    assert.is_string(device_type)
    if device_type == "GPU" then
      assert.falsy(out:find("CPU ranks", 1, true), out)
    else
      assert.matches("CPU ranks: the device is a " .. device_type .. " (", out, 1, true)
    end
    local csv = shell.read(dir .. "/gb.csv")
    assert.matches("^student,file,verdict,score,max,rank,time %(ns%)", csv)
    -- the JSON names its schema and holds to it (schema/gradebook-1.json)
    assert.are.equal("clua.gradebook/1", doc.schema)
    local valid, ok = require("spec.support.schema").check({ dir .. "/gb.json" })
    assert.is_true(ok ~= false, valid)
    assert.matches("^Username,Email address,ID number,reduction,Feedback: reduction\r\n", shell.read(dir .. "/gb-moodle.csv"))
    local canvas = shell.read(dir .. "/gb-canvas.csv")
    assert.matches("^Student,ID,SIS User ID,SIS Login ID,Section,reduction\r\n    Points Possible,,,,,8\r\n", canvas)
    assert.matches("\r\nr03_tail,,,r03_tail,,1\r\n", canvas, 1, true)
    local fb = shell.read(dir .. "/gb-feedback/r07_broken.md")
    assert.matches("     5 |     sdata[tid] = in[get_global_id(0)] + in[j];", fb, 1, true)
    fb = shell.read(dir .. "/gb-feedback/r03_tail.md")
    assert.matches("- expected: `128.49", fb, 1, true)
    assert.matches("- got: `2.57", fb, 1, true)
    fb = shell.read(dir .. "/gb-feedback/r01_fast.md")
    assert.matches("- the class: fastest ", fb, 1, true)
    assert.matches("against the recipe's fastest kernel for the same job", fb, 1, true)
    assert.matches("copy kernel %(reference; read %+ write%): [%d.]+ µs %(a reference, not the same job%)", fb)
  end)

  it("checks the recipe's options once, before grading anything", function()
    local o, c, e = grade(("--recipe reduction --submissions %sreduction --recipe-options \"--quik\" --out %s/bad")
      :format(FIX, dir), dir)
    assert.are.equal(2, c, o)
    assert.falsy(e:find("[1/", 1, true), e)
    local _, n = e:gsub("\n", "")
    assert.are.equal(1, n, e)
    assert.matches("grade: reduction: recipe reduction refuses the options '--quik'", e, 1, true)
    _, c, e = grade(("--recipe reduction --submissions %sreduction --recipe-options=--kernel=x.cl --out %s/bad")
      :format(FIX, dir), dir)
    assert.are.equal(2, c)
    assert.matches("may not hold --kernel", e, 1, true)
  end)

  it("grades a course of two assignments: a column each and a total", function()
    local o, c, e = grade(("--course %scourse.lua --submissions %scourse --timeout 5 --no-check --out %s/course")
      :format(FIX, FIX, dir), dir)
    assert.are.equal(0, c, e)
    local d = json.decode(shell.slurp(dir .. "/course.json"))
    local t = d.tables[1]
    assert.are.equal("course", t.id)
    local by = {}
    for _, r in ipairs(t.rows) do by[r.student] = r end
    assert.are.equal("correct", by.alice["reduction verdict"])
    assert.are.equal("correct", by.alice["triad verdict"])
    assert.are.equal(5, by.alice["triad score"])
    assert.are.equal(13, by.alice.max)
    assert.are.equal(by.alice["reduction score"] + 5, by.alice.total)
    assert.are.equal("wrong", by.bob["reduction verdict"])
    assert.are.equal(1 + 5, by.bob.total)
    assert.are.equal("no kernel", by.carol["reduction verdict"])
    assert.are.equal("did not build", by.carol["triad verdict"])
    assert.are.equal(0, by.carol.total)
    assert.matches("^Username,Email address,ID number,reduction,triad,Feedback: reduction,Feedback: triad\r\n",
      shell.read(dir .. "/course-moodle.csv"))
    assert.matches("# triad: bob", shell.read(dir .. "/course-feedback/bob.md"), 1, true)
    assert.matches("alice", o, 1, true)
  end)
end)
