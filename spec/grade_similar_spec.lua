-- recipes/grade.lua's similarity hint over spec/fixtures/grade/skeleton (the
-- reduction recipe's assignment, on PoCL in CI): four students' trees written
-- from the handed-out spec/fixtures/grade/skeleton.cl (ana, hana, leo, walt)
-- and zoe, a copy of leo with names, comments and layout changed. With the
-- skeleton as --base, the copy is listed at 1.00 and no two of the four; a
-- course file names its assignment's base; bad options and a base that
-- cannot be read are refused before anything is graded; a spent budget skips
-- the hint and says so. --no-check where a class is graded: the hint reads
-- the sources, not the Oclgrind check, which has its own spec (grade_check_spec).
local json = require("dkjson")
local shell = require("spec.support.shell")

local clua = os.getenv("CLUA") or "build/clua"
local FIX = "spec/fixtures/grade/"

local function grade(argv, dir)
  local errf = dir .. "/stderr"
  local p = assert(io.popen(("%s recipes/grade.lua %s 2> %s; echo \"exit=$?\""):format(clua, argv, errf)))
  local out = p:read("a")
  p:close()
  return out, tonumber(out:match("exit=(%d+)%s*$")), shell.slurp(errf) or ""
end

describe("recipes/grade.lua's similarity", function()
  if (os.getenv("CLUA") or ""):find("/asan/", 1, true) then
    pending("in the plain binary's run: "
      .. "grades classes for similarity: the grader is Lua, its runs the recipe's, which the recipe and hostile_grade specs run under ASan")
    return
  end
  local dir

  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. dir))
  end)

  teardown(function() os.execute("rm -rf " .. dir) end)

  it("lists the renamed copy at 1.00 and none of four trees from the handed-out skeleton", function()
    local out, code, err = grade(("--recipe reduction --submissions %sskeleton --base %sskeleton.cl --timeout 5 "
      .. "--wall 60 --recipe-options \"--quick\" --no-check --out %s/gb"):format(FIX, FIX, dir), dir)
    assert.are.equal(0, code, err)
    assert.matches("5 submissions: 5 correct", err, 1, true)
    local doc = json.decode(shell.read(dir .. "/gb.json"))
    assert.are.same({ { assignment = "reduction", a = "leo", b = "zoe", score = 1 } }, doc.similar)
    local valid, ok = require("spec.support.schema").check({ dir .. "/gb.json" })
    assert.is_true(ok ~= false, valid)
    assert.matches("alike (a hint, not a verdict):\n  reduction: leo ~ zoe 1.00\n", out, 1, true)
    assert.matches("the handed-out code and what more than 50% of the class writes left out): leo ~ zoe 1.00",
      out, 1, true)
    local md = shell.read(dir .. "/gb.md")
    assert.matches("- reduction: leo and zoe, 1.00\n", md, 1, true)
    local _, n = md:gsub("\n%- reduction: ", "")
    assert.are.equal(1, n, md)
  end)

  it("reads a course assignment's base beside the course file", function()
    local subs = dir .. "/subs"
    for _, s in ipairs({ "ana", "hana", "leo", "zoe" }) do
      assert(os.execute(("mkdir -p %s/%s && cp %sskeleton/%s.cl %s/%s/reduce.cl"):format(subs, s, FIX, s, subs, s)))
    end
    assert(os.execute(("cp %sskeleton.cl %s/handout.cl"):format(FIX, dir)))
    local course = ([[return { name = "lab 3", assignments = {
      { name = "tree", recipe = "reduction", kernel = "reduce.cl", options = "--quick", base = "handout.cl" } } }]])
    local f = assert(io.open(dir .. "/course.lua", "w"))
    f:write(course)
    f:close()
    -- every passage counts (--similar-common 1) and the threshold is low: only the base keeps the trees apart
    local _, code, err = grade(("--course %s/course.lua --submissions %s --timeout 5 --similar 0.8 --similar-common 1 "
      .. "--no-check --out %s/course"):format(dir, subs, dir), dir)
    assert.are.equal(0, code, err)
    local doc = json.decode(shell.read(dir .. "/course.json"))
    assert.are.same({ { assignment = "tree", a = "leo", b = "zoe", score = 1 } }, doc.similar)
    -- a base that cannot be read is named, with its path beside the course file, before anything is graded
    f = assert(io.open(dir .. "/course.lua", "w"))
    f:write((course:gsub("handout%.cl", "gone.cl")))
    f:close()
    _, code, err = grade(("--course %s/course.lua --submissions %s --out %s/course"):format(dir, subs, dir), dir)
    assert.are.equal(2, code)
    assert.are.equal(("grade: tree: base %s/gone.cl: not a readable file\n"):format(dir), err)
  end)

  it("refuses a bad option or base before grading anything", function()
    for argv, msg in pairs({
      ["--base /no/such.cl"] = "grade: reduction: base /no/such.cl: not a readable file",
      ["--similar 1.5"] = "grade: --similar must be a number from 0 to 1",
      ["--similar-common 0"] = "grade: --similar-common must be a number above 0, at most 1",
    }) do
      local _, code, err = grade(("--recipe reduction --submissions %sskeleton %s --out %s/bad"):format(FIX, argv, dir), dir)
      assert.are.equal(2, code, argv)
      assert.are.equal(msg .. "\n", err)
    end
    local _, code, err = grade(("--course %scourse.lua --submissions %scourse --base %sskeleton.cl --out %s/bad")
      :format(FIX, FIX, FIX, dir), dir)
    assert.are.equal(2, code)
    assert.matches("--base is for --recipe: a course file names each assignment's base", err, 1, true)
  end)

  it("skips the hint when the grading budget is spent, and says so", function()
    local out, code, err = grade(("--recipe reduction --submissions %sskeleton --budget 0 --out %s/late")
      :format(FIX, dir), dir)
    assert.are.equal(0, code, err)
    local doc = json.decode(shell.read(dir .. "/late.json"))
    assert.are.same({}, doc.similar)
    local valid, ok = require("spec.support.schema").check({ dir .. "/late.json" })
    assert.is_true(ok ~= false, valid)
    local said = "alike: not looked for, the grading budget (--budget 0 s) was spent"
    assert.matches(said, table.concat(doc.tables[1].notes, "\n"), 1, true)
    assert.matches(said, out, 1, true)
    assert.matches(said, shell.read(dir .. "/late.md"), 1, true)
  end)
end)
