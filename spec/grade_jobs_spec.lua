-- The grader's runs side by side (clua grade --jobs N, clua.pool): a small
-- class of the reduction assignment (a correct kernel, a race, a kernel with
-- no bounds check, one that writes past its output, one that does not build)
-- graded one run at a time (--jobs 1) and three at a time (--jobs 3), each
-- submission checked under Oclgrind and run at two rubric sizes: the same
-- verdicts, scores, reasons, rubric lines and feedback, times aside. A bad
-- --jobs (0, -1, abc, 2.5), on the command line or in a course file, is
-- refused before anything is graded, naming the option.
local json = require("dkjson")
local shell = require("spec.support.shell")
local box = require("spec.support.sandbox")

local clua = os.getenv("CLUA") or "build/clua"
local FIX = "spec/fixtures/grade/"
local write = require("clua.files").write

local function grade(argv, errf)
  local p = assert(io.popen(("%s recipes/grade.lua %s%s 2> %s; echo \"exit=$?\""):format(clua, argv, box.flag, errf)))
  local out = p:read("a")
  p:close()
  return tonumber(out:match("exit=(%d+)%s*$")), shell.slurp(errf) or ""
end

-- What must not depend on --jobs: each row's verdict, score, reason and
-- rubric, and each feedback file with its times (and what follows from
-- them: the rank, the speed-up) left out.
local function verdicts(dir, stem)
  local doc = json.decode(shell.slurp(dir .. "/" .. stem .. ".json") or "null")
  local out = {}
  for _, r in ipairs(doc and doc.tables and doc.tables[1].rows or {}) do
    out[r.student] = { verdict = r.verdict, score = r.score, max = r.max, reason = (r.reason or ""):gsub("[%d.]+ µs.*", ""),
      rubric = r.rubric, built = r.built, correct = r.correct, oob = r["out of bounds"] }
    local fb = shell.slurp(("%s/%s-feedback/%s.md"):format(dir, stem, r.student)) or ""
    fb = fb:gsub("\n## Time\n.-\n## ", "\n## "):gsub("%*%*Why:%*%* [%d.]+ µs[^\n]*", "**Why:** (time)")
    out[r.student].feedback = fb
  end
  return out
end

describe("clua grade --jobs", function()
  if (os.getenv("CLUA") or ""):find("/asan/", 1, true) then
    pending("in the plain binary's run: "
      .. "grades classes side by side: the grader is Lua, its runs the recipe's, which the recipe and hostile_grade specs run under ASan")
    return
  end
  local dir
  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    local class = dir .. "/class"
    assert(os.execute(("mkdir -p %s && cp %sunsafe/u01_correct.cl %sunsafe/u02_race.cl %sreduction/r03_tail.cl "
      .. "%sreduction/r05_past.cl %sreduction/r07_broken.cl %s"):format(class, FIX, FIX, FIX, FIX, FIX, class)))
    -- two sizes, no speed points: a score that does not depend on a time
    write(dir .. "/rubric.lua", 'return { build = 1, sizes = { { size = "64KiB", points = 2 }, '
      .. '{ size = "40000", points = 2 } }, penalties = { out_of_bounds = 1 } }\n')
  end)
  teardown(function() os.execute("rm -rf " .. dir) end)

  it("gives the same verdicts, scores and feedback one run at a time and three at a time", function()
    local have = os.execute("command -v oclgrind >/dev/null 2>&1") == true
    local common = ("--recipe reduction --submissions %s/class --rubric %s/rubric.lua --timeout 5 --wall 120 "
      .. "--rounds 1 --recipe-options \"--quick\"%s"):format(dir, dir, have and "" or " --no-check")
    local c1, e1 = grade(common .. " --jobs 1 --out " .. dir .. "/one", dir .. "/one.err")
    assert.are.equal(0, c1, e1)
    local c3, e3 = grade(common .. " --jobs 3 --out " .. dir .. "/three", dir .. "/three.err")
    assert.are.equal(0, c3, e3)
    local one, three = verdicts(dir, "one"), verdicts(dir, "three")
    assert.are.equal(5, (function() local n = 0; for _ in pairs(one) do n = n + 1 end; return n end)())
    assert.are.same(one, three)
    assert.are.equal("correct", one.u01_correct.verdict)
    assert.are.equal("did not build", one.r07_broken.verdict)
    if have then assert.are.equal("unsafe", one.u02_race.verdict) end
    -- the progress says student N of M, each student once, in either
    for _, e in ipairs({ e1, e3 }) do
      for k = 1, 5 do assert.matches(("[%d/5] "):format(k), e, 1, true) end
      for _, s in ipairs({ "u01_correct", "u02_race", "r03_tail", "r05_past", "r07_broken" }) do
        local _, n = e:gsub("%] " .. s .. " %(", "")
        assert.are.equal(1, n, s .. " in\n" .. e)
      end
    end
  end)

  it("refuses a bad --jobs, naming the option, before anything is graded", function()
    for _, bad in ipairs({ "0", "-1", "abc", "2.5" }) do
      local code, err = grade(("--recipe reduction --submissions %s/class --jobs %s --out %s/bad"):format(dir, bad, dir),
        dir .. "/bad.err")
      assert.are.equal(2, code, bad .. ": " .. err)
      assert.matches("--jobs must be a whole number >= 1, got " .. bad, err, 1, true)
      assert.falsy(err:find("[1/", 1, true), err)
      assert.is_nil(shell.slurp(dir .. "/bad.csv"))
    end
  end)

  it("takes jobs from a course file, checked as the other settings", function()
    local course = dir .. "/course.lua"
    write(course, 'return { jobs = 0, assignments = { { recipe = "reduction", kernel = "k.cl" } } }\n')
    local code, err = grade(("--course %s --submissions %s/class --out %s/bad"):format(course, dir, dir), dir .. "/c.err")
    assert.are.equal(2, code, err)
    assert.matches("jobs must be a whole number >= 1, got 0", err, 1, true)
  end)
end)
