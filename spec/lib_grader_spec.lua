-- clua.grader: the grader's command line, its deadlines and its students
-- (the whole grading is spec/grade_spec.lua's).
package.path = "lua/?.lua;" .. package.path
local grader = require("clua.grader")

describe("clua.grader", function()
  it("reads --recipe-options' value even when it starts with dashes", function()
    local args = grader.args({ "--recipe", "reduction", "--submissions", "subs", "--recipe-options", "--quick" })
    assert.are.equal("--quick", args.recipe_options)
    assert.are.equal("reduction", args.recipe)
    assert.is_nil(args.timeout) -- not given: grader.settle fills it in
    grader.settle(args)
    assert.are.equal(os.getenv("CLUA_TIMEOUT") and tonumber(os.getenv("CLUA_TIMEOUT")) or 60, args.timeout)
    assert.are.equal(require("clua.cli").TIMEOUT, 60) -- the one default, a recipe's assignment mode's too
    assert.are.equal("gradebook", args.out)
    assert.are.equal(0.95, args.similar)
  end)

  it("takes a course file's settings where the command line gives none, paths beside the course file", function()
    local args = grader.args({ "--course", "c/course.lua", "--submissions", "subs", "--timeout", "7" })
    grader.settle(args, { timeout = 30, wall = 90, similar = 0.8, roster = "roster.csv", out = "lab2",
      deadline = "2025-03-01" }, "c")
    assert.are.same({ 7, 90, 0.8, "c/roster.csv", "lab2", "2025-03-01" },
      { args.timeout, args.wall, args.similar, args.roster, args.out, args.deadline })
  end)

  it("has the options the documentation names", function()
    local help = grader.parser():get_help()
    for _, o in ipairs({ "--recipe", "--course", "--submissions", "--rubric", "--deadline", "--wall", "--budget",
      "--similar", "--similar-common", "--base", "--roster", "--out", "--device", "--rounds" }) do
      assert.matches(o, help, 1, true)
    end
  end)

  it("reads a deadline: a day ends at 23:59:59, Z is UTC, anything else is refused", function()
    local day, last = grader.parse_time("2025-01-02"), grader.parse_time("2025-01-02T23:59:59")
    assert.are.equal(last, day)
    assert.are.equal(60, grader.parse_time("2025-01-02T00:01") - grader.parse_time("2025-01-02T00:00"))
    local z = grader.parse_time("2025-01-02T00:00:00Z")
    assert.are.equal(os.time{ year = 2025, month = 1, day = 2, hour = 0 } + os.difftime(os.time(),
      os.time(os.date("!*t", os.time()))), z)
    assert.is_nil(grader.parse_time("2025-1-2"))
    assert.is_nil(grader.parse_time("2025-01-02 noon"))
  end)

  it("finds the students: .cl files and folders, folders only for a course", function()
    local dir = os.tmpname()
    os.remove(dir)
    assert(os.execute(("mkdir -p %s/b/.git %s/c && touch %s/a.cl %s/notes.txt"):format(dir, dir, dir, dir)))
    local s = grader.students(dir)
    assert.are.same({ "a", "b", "c" }, { s[1].name, s[2].name, s[3].name })
    assert.are.equal(dir .. "/a.cl", s[1].file)
    assert.is_true(s[2].git)
    assert.is_false(s[3].git)
    assert.are.equal(2, #grader.students(dir, true))
    os.execute("rm -rf " .. dir)
  end)
end)
