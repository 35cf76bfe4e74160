-- The grader's check (clua.gradecheck): each submission runs on Oclgrind at
-- the recipe's check size before it is timed. Over spec/fixtures/grade/unsafe
-- (the reduction recipe's assignment, on PoCL): a correct kernel stays
-- correct, a kernel with no barrier between the tree's steps (a race) and one
-- with a barrier inside a branch (divergence) are 'unsafe', each named with
-- its file's line in the gradebook and the feedback, whatever PoCL computed;
-- with --no-check neither is; a kernel with no bounds check on its input
-- (spec/fixtures/grade/reduction/r03_tail.cl) is 'unsafe', its read past the
-- input named with the line (the check size is ragged); a kernel that never ends is stopped under the
-- checker at the wall-clock limit. The check runs in the sandbox where it can
-- start here (the gradebook says so), its log capped as the timed runs' are.
-- Pending where Oclgrind is not installed.
local json = require("dkjson")
local shell = require("spec.support.shell")
local box = require("spec.support.sandbox")

local clua = os.getenv("CLUA") or "build/clua"
local FIX = "spec/fixtures/grade/"
local have = os.execute("command -v oclgrind >/dev/null 2>&1") == true

local function grade(argv, dir)
  local errf = dir .. "/stderr"
  local p = assert(io.popen(("%s recipes/grade.lua %s%s 2> %s; echo \"exit=$?\""):format(clua, argv, box.flag, errf)))
  local out = p:read("a")
  p:close()
  return tonumber(out:match("exit=(%d+)%s*$")), shell.slurp(errf) or ""
end

local function rows_of(path)
  local doc = json.decode(shell.slurp(path) or "null")
  local rows = {}
  for _, r in ipairs(doc and doc.tables and doc.tables[1].rows or {}) do rows[r.student] = r end
  return rows, doc and doc.tables and doc.tables[1].meta
end

describe("recipes/grade.lua checks every submission", function()
  if (os.getenv("CLUA") or ""):find("/asan/", 1, true) then
    pending("in the plain binary's run: "
      .. "grades classes under the checker: the grader is Lua, its runs the recipe's and Oclgrind's, which the recipe, checker and hostile_grade specs run under ASan")
    return
  end
  if not have then
    pending("oclgrind is not installed (apt-get install oclgrind): the grader's check is not run")
    return
  end
  local dir
  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. dir))
  end)
  teardown(function() os.execute("rm -rf " .. dir) end)

  it("grades a race and a divergent barrier 'unsafe' with the line, a correct kernel correct", function()
    local code, err = grade(("--recipe reduction --submissions %sunsafe --timeout 5 --wall 120 "
      .. "--recipe-options \"--quick\" --out %s/gb"):format(FIX, dir), dir)
    assert.are.equal(0, code, err)
    assert.matches("3 submissions: 1 correct, 2 unsafe", err, 1, true)
    local rows, meta = rows_of(dir .. "/gb.json")
    assert.are.equal("correct", rows.u01_correct.verdict)
    assert.are.equal("unsafe", rows.u02_race.verdict)
    assert.matches("data race (read-write, local memory) in kernel 'reduce' at " .. FIX .. "unsafe/u02_race.cl:12:33",
      rows.u02_race.reason, 1, true)
    assert.are.equal("unsafe", rows.u03_divergent.verdict)
    assert.matches("barrier divergence (Only 128 out of 256 work-items executed barrier) in kernel 'reduce' at "
      .. FIX .. "unsafe/u03_divergent.cl:14:13", rows.u03_divergent.reason, 1, true)
    assert.is_true(rows.u02_race.score < rows.u01_correct.score)
    local fb = shell.slurp(dir .. "/gb-feedback/u02_race.md")
    assert.matches("- verdict: **unsafe**", fb, 1, true)
    assert.matches("## What the checker found", fb, 1, true)
    assert.matches("u02_race.cl:12:33 and line 12:36", fb, 1, true)
    -- checked in the box (where it starts here), and the record says so
    if box.ok then
      assert.matches("^bubblewrap [%d.]+: a read%-only system", meta.sandbox)
      assert.are.equal("Oclgrind, every submission at the recipe's --check-size before it was timed, in the sandbox, "
        .. "its output capped as the runs'", meta.check)
      assert.matches("- check: Oclgrind, every submission at the recipe's --check-size before it was timed, in the "
        .. "sandbox", shell.slurp(dir .. "/gb.md"), 1, true)
    else
      assert.matches("without the sandbox (--no-sandbox)", meta.check, 1, true)
    end
    -- the checked run's own error, kept in its log
    assert.matches("recipe reduction: verify student: reduce (u02_race.cl)", shell.slurp(dir .. "/gb-logs/u02_race-check.err"),
      1, true)
  end)

  it("leaves the check out with --no-check", function()
    local code, err = grade(("--recipe reduction --submissions %sunsafe --timeout 5 --wall 120 --no-check "
      .. "--recipe-options \"--quick\" --out %s/nc"):format(FIX, dir), dir)
    assert.are.equal(0, code, err)
    local rows, meta = rows_of(dir .. "/nc.json")
    assert.are.equal("correct", rows.u01_correct.verdict)
    assert.are_not.equal("unsafe", rows.u02_race.verdict)
    assert.are_not.equal("unsafe", rows.u03_divergent.verdict)
    assert.is_nil(shell.slurp(dir .. "/nc-logs/u02_race-check.log"))
    assert.are.equal("none (--no-check)", meta.check)
  end)

  it("grades a kernel with no bounds check 'unsafe', the read past its input named with the line", function()
    -- the recipe's check size leaves a partial last work-group, and the
    -- check's buffers end where their data do (no padding, no guard zone)
    assert(os.execute(("mkdir -p %s/tail && cp %sreduction/r03_tail.cl %s/tail/"):format(dir, FIX, dir)))
    local code, err = grade(("--recipe reduction --submissions %s/tail --timeout 5 --wall 120 "
      .. "--recipe-options \"--quick\" --out %s/tl"):format(dir, dir), dir)
    assert.are.equal(0, code, err)
    local r = rows_of(dir .. "/tl.json").r03_tail
    assert.are.equal("unsafe", r.verdict)
    assert.are.equal("yes", r["out of bounds"])
    assert.matches("r03_tail.cl:8:", r.reason, 1, true)
    assert.matches("penalty, out of bounds: 1 off (reads past a buffer (the checker's finding))", r.rubric, 1, true)
    local fb = shell.slurp(dir .. "/tl-feedback/r03_tail.md")
    assert.matches("- verdict: **unsafe**", fb, 1, true)
    assert.matches("## What the checker found", fb, 1, true)
    assert.matches("- out-of-bounds read (4 bytes, global memory) in kernel 'reduce' at " .. dir .. "/tail/r03_tail.cl:8:",
      fb, 1, true)
  end)

  it("stops a kernel that never ends under the checker at the wall-clock limit", function()
    assert(os.execute(("mkdir -p %s/endless && cp %sreduction/r06_endless.cl %s/endless/"):format(dir, FIX, dir)))
    local t0 = os.time()
    local code, err = grade(("--recipe reduction --submissions %s/endless --timeout 5 --wall 15 "
      .. "--recipe-options \"--quick\" --out %s/en"):format(dir, dir), dir)
    assert.are.equal(0, code, err)
    assert.is_true(os.time() - t0 < 60)
    local r = rows_of(dir .. "/en.json").r06_endless
    assert.are.equal("timed out", r.verdict)
    assert.matches("under the checker", r.reason, 1, true)
  end)
end)
