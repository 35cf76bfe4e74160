-- What the grader hands to the systems around it, without running anything:
-- a roster read from clua's own CSV or from a Canvas or Moodle export
-- (clua.lms.roster), the hint when a class is wrong by one factor
-- (clua.classhint), Gradescope's results.json (clua.gradescope, checked
-- against the fields Gradescope documents) and GitHub Classroom's reporter
-- result (clua.classroom). spec/grade_workflow_spec.lua runs the grader.
package.path = "lua/?.lua;" .. package.path
local lms = require("clua.lms")
local classhint = require("clua.classhint")
local rubric = require("clua.rubric")
local gradescope = require("clua.gradescope")
local classroom = require("clua.classroom")
local json = require("dkjson")
local shell = require("spec.support.shell")

local function roster(text, names)
  local path = shell.write_temp(text, ".csv")
  local ok, map, missing = pcall(lms.roster, path, names)
  os.remove(path)
  if not ok then error(map, 0) end
  return map, missing
end

describe("clua.lms.roster", function()
  it("reads clua's roster with quoted cells, a byte-order mark and CRLF", function()
    local map, missing = roster('\239\187\191"student","name","email"\r\n"ann","Lee, Ann","ann@u.edu"\r\n'
      .. 'bo,"Bo ""B"" Ray",bo@u.edu\r\n', { "ann", "bo", "cy" })
    assert.are.same({ student = "ann", name = "Lee, Ann", email = "ann@u.edu" }, map.ann)
    assert.are.equal('Bo "B" Ray', map.bo.name)
    assert.are.same({ "cy" }, missing)
  end)

  it("reads Canvas's gradebook export as a roster, its Points Possible row left out", function()
    local map, missing = roster('Student,ID,SIS User ID,SIS Login ID,Section,Lab 1 (12)\n'
      .. '    Points Possible,,,,,8\n"Lee, Ann",101,S1,alee,Sec 1,7\n"Ray, Bo",102,S2,bray,Sec 1,\n',
      { "alee", "S2", "Points Possible" })
    assert.are.same({ name = "Lee, Ann", id = "101", sis_id = "S1", login = "alee", section = "Sec 1" }, map.alee)
    assert.are.equal("Ray, Bo", map.S2.name) -- matched by its SIS user id
    assert.are.same({ "Points Possible" }, missing)
    -- and the exports carry what it gives
    local canvas = lms.canvas({ "alee" }, { { name = "Lab 1 (12)", max = 8 } }, function() return 7 end, map)
    assert.matches('\r\n"Lee, Ann",101,S1,alee,Sec 1,7\r\n', canvas, 1, true)
  end)

  it("reads Moodle's export (semicolons, names in two columns) and matches by username or email", function()
    local map = roster('First name;Surname;ID number;Institution;Department;Email address;Username\n'
      .. 'Ann;Lee;7;U;CS;ann.lee@u.edu;alee\nBo;Ray;8;U;CS;bray@u.edu;\n', { "alee", "bray", "ann.lee" })
    assert.are.same({ name = "Ann Lee", id = "7", email = "ann.lee@u.edu", username = "alee" }, map.alee)
    assert.are.equal("Bo Ray", map.bray.name) -- the part of the email before @
    assert.are.equal("alee", map["ann.lee"].username)
    local moodle = lms.moodle({ "alee" }, { { name = "lab1", max = 8 } }, function() return 5, "ok" end, map)
    assert.matches("\r\nalee,ann.lee@u.edu,7,5,ok\r\n", moodle, 1, true)
  end)

  it("matches no row by a value two rows share, and refuses a roster with nothing to match by", function()
    local map, missing = roster("name,email\nSam,s1@u\nSam,s2@u\n", { "Sam", "s2" })
    assert.is_nil(map.Sam)
    assert.are.equal("s2@u", map.s2.email)
    assert.are.same({ "Sam" }, missing)
    assert.has_error(function() roster("grade,comment\n1,x\n", { "a" }) end)
    local ok, err = pcall(roster, "grade,comment\n1,x\n", { "a" })
    assert.is_false(ok)
    assert.matches("no column to match the submissions by %(student, username, login, email, sis_id, id or name; "
      .. "it has: grade, comment%)", err)
    ok, err = pcall(roster, 'student,name\nann,"Lee\n', { "ann" })
    assert.matches("line 2: a quoted cell is not closed", err, 1, true)
    ok, err = pcall(lms.roster, "/no/such/roster.csv", {})
    assert.are.equal("roster /no/such/roster.csv: cannot open it", err)
  end)
end)

describe("clua.classhint", function()
  local function wrong(got, exp)
    return { outcome = { verdict = "wrong", built = true, first_wrong = { got = tostring(got), expected = tostring(exp) } } }
  end
  local help = "   --local L             Work-items per group. (default: 256)\n"
    .. "   --kernel-per P        Assignment mode: elements each work-item of --kernel sums per launch. (default: 2)\n"

  it("reads the recipe's assignment options from its help", function()
    assert.are.same({ { name = "--kernel-per", default = 2 } }, classhint.options(help))
  end)

  it("names the option a class wrong by one factor points to", function()
    local es = { wrong(1002.6, 253.7), wrong(990.1, 250.2), wrong(1010.0, 249.0),
      { outcome = { verdict = "correct", built = true, correct = true } } }
    local note, f = classhint.same_factor(es, classhint.options(help), "--quick")
    assert.is_true(math.abs(f - 4) < 0.1, f)
    assert.matches("^3 of 4 submissions that built are wrong by one factor: got / expected = 3%.9%d", note)
    assert.matches("it points to --kernel-per 8 (graded with 2)", note, 1, true)
    -- graded with --kernel-per 8, students who wrote for 2: a factor of 1/4 points back to 2
    es = { wrong(250, 1000), wrong(26, 101), wrong(0.5, 2.01) }
    note = classhint.same_factor(es, classhint.options(help), "--kernel-per 8 --quick")
    assert.matches("it points to --kernel-per 2 (graded with 8)", note, 1, true)
  end)

  it("says nothing when the wrong ones are a minority, disagree, or are off by no factor", function()
    local ok = { outcome = { verdict = "correct", built = true, correct = true } }
    assert.is_nil(classhint.same_factor({ wrong(4, 1), wrong(4, 1), ok, ok, ok }, {}))
    assert.is_nil(classhint.same_factor({ wrong(4, 1), wrong(2, 1), wrong(9, 1) }, {}))
    assert.is_nil(classhint.same_factor({ wrong(1.01, 1), wrong(1.02, 1) }, {}))
    assert.is_nil(classhint.same_factor({ wrong(4, 1) }, {}))
    -- no assignment option fits: the note says to check the options
    local note = classhint.same_factor({ wrong(3.3, 1), wrong(3.31, 1) }, classhint.options(help), "")
    assert.matches("check that --recipe-options", note, 1, true)
  end)
end)

describe("clua.gradescope and clua.classroom", function()
  local r = rubric.check{ build = 1, sizes = { { size = "1MiB", points = 3 } },
    speed = { against = "reference", { at_least = 0.5, points = 1 }, { at_least = 0.9, points = 2 } },
    penalties = { late_per_day = 1 } }
  local function entry(g, outcome)
    local e = { outcome = outcome }
    e.score, e.max, e.lines, e.items = rubric.score(r, g)
    return e
  end
  local good = entry({ built = true, correct = { true }, speedup = 0.95, time = 1500, late_days = 0 },
    { verdict = "correct", correct = true, time = 1500 })
  local late_wrong = entry({ built = true, correct = { false }, why = { "wrong at out[255]" }, late_days = 2 },
    { verdict = "wrong", correct = false })

  it("writes results.json with the fields Gradescope documents: score, output, tests, leaderboard", function()
    local doc = gradescope.results({ { assignment = "reduction", entry = good } }, { output = "# feedback", seconds = 12.4 })
    assert.are.equal(6, doc.score)
    assert.are.equal(12, doc.execution_time)
    assert.are.equal("# feedback", doc.output)
    assert.are.equal("md", doc.output_format)
    assert.are.same({ name = "builds", score = 1, max_score = 1, status = "passed", output = "", visibility = "visible" },
      doc.tests[1])
    assert.are.same({ name = "speed", score = 2, max_score = 2, status = "passed",
      output = "0.95x the recipe's fastest kernel, at least 0.9", visibility = "visible" }, doc.tests[3])
    assert.are.same({ { name = "time (µs)", value = 1.5, order = "asc" } }, doc.leaderboard)
    local path = os.tmpname()
    require("clua.files").write(path, gradescope.encode(doc))
    local out, ok = require("spec.support.gradescope").check(path)
    assert.is_true(ok ~= false, out)
    -- a late wrong one: a penalty is a test of negative score, the total never below 0, no leaderboard entry
    doc = gradescope.results({ { assignment = "lab", entry = late_wrong } }, { several = true })
    assert.are.equal(0, doc.score)
    assert.is_nil(doc.leaderboard)
    local by = {}
    for _, t in ipairs(doc.tests) do by[t.name] = t end
    assert.are.same({ name = "lab: correct at --size 1MiB", score = 0, max_score = 3, status = "failed",
      output = "wrong at out[255]", visibility = "visible" }, by["lab: correct at --size 1MiB"])
    assert.are.equal(-2, by["lab: penalty: late"].score)
    local sum = 0
    for _, t in ipairs(doc.tests) do sum = sum + t.score end
    assert.are.equal(doc.score, sum)
    require("clua.files").write(path, gradescope.encode(doc))
    out, ok = require("spec.support.gradescope").check(path)
    assert.is_true(ok ~= false, out)
    -- the checker itself fails a field Gradescope does not know
    require("clua.files").write(path, '{"score": 1, "tests": [{"name": "x", "max-score": 1}]}')
    out, ok = require("spec.support.gradescope").check(path)
    assert.is_true(ok ~= true, out)
    os.remove(path)
  end)

  it("reads the student's name from Gradescope's submission metadata", function()
    assert.are.equal("Ann Lee", gradescope.student('{"users": [{"name": "Ann Lee", "email": "a@u", "id": 7}]}'))
    assert.is_nil(gradescope.student('{"users": []}'))
    assert.is_nil(gradescope.student(nil))
  end)

  it("writes the result GitHub Classroom's reporter adds up: tests whose scores sum to the score", function()
    local doc = json.decode(classroom.encode(classroom.result({ { assignment = "reduction", entry = late_wrong } })))
    assert.are.equal(1, doc.version)
    assert.are.equal("fail", doc.status)
    assert.are.equal(6, doc.max_score)
    local sum = 0
    for _, t in ipairs(doc.tests) do
      assert.is_string(t.name)
      assert.truthy(t.status == "pass" or t.status == "fail", t.status)
      assert.is_number(t.score)
      sum = sum + t.score
    end
    assert.are.equal(late_wrong.score, sum)
    doc = classroom.result({ { assignment = "reduction", entry = good } })
    assert.are.equal("pass", doc.status)
    assert.are.equal(6, doc.score)
  end)
end)
