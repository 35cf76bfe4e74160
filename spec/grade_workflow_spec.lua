-- The grader's workflow around the grading, on PoCL: a course file that sets
-- the grading options and a roster exported from Canvas (a byte-order mark,
-- CRLF, quoted cells), an export that cannot be written (the gradebook and
-- the feedback are there all the same, the exit status 1), rubric lines that
-- say what happened, a kernel that writes its input; faults refused before
-- anything is graded (a course file's misspelt key, a bad value, a recipe
-- without assignment mode, a broken roster); a class wrong by one factor;
-- contrib/gradescope/run_autograder in a fake /autograder tree, and the grading
-- step of contrib/github-classroom/classroom.yml in a fake repository.
local json = require("dkjson")
local shell = require("spec.support.shell")

local clua = os.getenv("CLUA") or "build/clua"
local FIX = "spec/fixtures/grade/"
local PWD = os.getenv("PWD")

local function abs(p) return p:sub(1, 1) == "/" and p or (PWD .. "/" .. p) end

local function grade(argv, dir, env)
  local errf = dir .. "/stderr"
  local p = assert(io.popen(("%s %s recipes/grade.lua %s 2> %s; echo \"exit=$?\""):format(env or "", clua, argv, errf)))
  local out = p:read("a")
  p:close()
  return out, tonumber(out:match("exit=(%d+)%s*$")), shell.slurp(errf) or ""
end

local function sh(cmd) assert(os.execute(cmd), cmd) end

describe("clua grade's workflow", function()
  if (os.getenv("CLUA") or ""):find("/asan/", 1, true) then
    pending("in the plain binary's run: "
      .. "grades whole classes through every export: the grader is Lua, its runs the recipe's, which the recipe and hostile_grade specs run under ASan")
    return
  end
  local dir

  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    sh("mkdir -p " .. dir)
  end)

  teardown(function() os.execute("rm -rf " .. dir) end)

  describe("a course file with its settings and a Canvas export as the roster", function()
    local out, code, err, rows

    setup(function()
      local c = dir .. "/lab"
      for name, file in pairs({ ann = "s01_correct", bo = "s03_wrong", cy = "s05_broken", dee = "s09_input" }) do
        sh(("mkdir -p %s/subs/%s && cp %striad/%s.cl %s/subs/%s/triad.cl"):format(c, name, FIX, file, c, name))
      end
      sh(("cp %srubric-triad.lua %s/"):format(FIX, c))
      require("clua.files").write(c .. "/course.lua", [[
return {
  name = "lab 3", timeout = 7, wall = 45, similar = 0.99, roster = "roster.csv",
  assignments = { { name = "triad", recipe = "template", kernel = "triad.cl",
    options = "--quick --size 1000000 --local 64", rubric = "rubric-triad.lua" } },
}
]])
      -- Canvas's gradebook export, saved by a spreadsheet: BOM, CRLF, quoted names
      require("clua.files").write(c .. "/roster.csv", "\239\187\191Student,ID,SIS User ID,SIS Login ID,Section\r\n"
        .. "    Points Possible,,,,\r\n\"Lee, Ann\",101,S101,ann,\"Sec 1\"\r\n\"Ray, Bo\",102,S102,bo,Sec 1\r\n"
        .. "\"Cole, Cy\",103,S103,cy,Sec 2\r\n")
      -- the Canvas export's path is a folder: that export fails, nothing else does
      sh(("mkdir -p %s/gb-canvas.csv"):format(c))
      out, code, err = grade(("--course %s/course.lua --no-check --submissions %s/subs --out %s/gb"):format(c, c, c), dir)
      local doc = json.decode(shell.slurp(c .. "/gb.json") or "null")
      rows = {}
      for _, r in ipairs(doc and doc.tables[1].rows or {}) do rows[r.student] = r end
      rows.doc = doc
    end)

    it("writes the gradebook, the feedback and Moodle's export when Canvas's cannot be written, and exits 1", function()
      assert.are.equal(1, code, err)
      assert.matches("grade: not written: " .. dir .. "/lab/gb-canvas.csv: ", err, 1, true)
      for _, f in ipairs({ "gb.csv", "gb.json", "gb.md", "gb-moodle.csv", "gb-feedback/ann.md", "gb-feedback/dee.md" }) do
        assert.truthy(shell.slurp(dir .. "/lab/" .. f), f)
      end
      assert.matches("4 submissions: 1 correct, 1 wrong, 1 changed its input, 1 did not build", err, 1, true)
      assert.matches("\nann ", out, 1, true) -- the tables are printed all the same
    end)

    it("takes the timeout, the wall-clock limit, the similarity and the roster from the course file", function()
      assert.matches("--timeout 7 --wall 45 --similar 0.99 --similar-common 0.5", rows.doc.tables[1].meta.options, 1, true)
      assert.matches("%-%-timeout 7 ", rows.doc.tables[1].notes[#rows.doc.tables[1].notes])
      local moodle = shell.read(dir .. "/lab/gb-moodle.csv")
      -- Canvas's ID goes to Moodle's ID number; Ann matched by her SIS login
      assert.matches("\r\nann,,101,5,", moodle, 1, true)
      assert.matches("\r\ndee,,,", moodle, 1, true)
      assert.matches("roster " .. dir .. "/lab/roster.csv: no row for dee", shell.read(dir .. "/lab/gb.md"), 1, true)
    end)

    it("says on each rubric line what happened, no line read as a spreadsheet formula", function()
      assert.are.equal("builds: 1 of 1; correct: 0 of 3 (wrong at c[0] (local size 64)); speed: 0 of 1 (not scored: "
        .. "not correct at every size)", rows.bo.rubric)
      assert.matches("^builds: 0 of 1 %(did not build: line 5:%d+: use of undeclared identifier 'j'%); correct: 0 of 3 "
        .. "%(not checked: it did not build%)", rows.cy.rubric)
      for _, r in pairs(rows) do
        if r.rubric then
          for l in (r.rubric .. ";"):gmatch("%s*([^;]+);") do assert.falsy(l:match("^[%+%-=@]"), l) end
        end
      end
      assert.matches("- correct: 0 of 3 (wrong at c[0] (local size 64))", shell.read(dir .. "/lab/gb-feedback/bo.md"), 1, true)
    end)

    it("names a kernel that writes its input 'changed its input', with the element, and takes the penalty", function()
      local r = rows.dee
      assert.are.equal("changed its input", r.verdict)
      assert.are.equal("yes", r["changed input"])
      assert.are.equal("no", r["out of bounds"])
      assert.matches("^writes its input a: 250000 of 250000 elements changed, the first a%[0%] %(0%.0, was ", r.reason)
      assert.matches("penalty, changed its input: 1 off (writes into an input)", r.rubric, 1, true)
      assert.are.equal(0, r.score)
    end)
  end)

  describe("faults found before anything is graded", function()
    local function course(text)
      local path = dir .. "/bad-course.lua"
      require("clua.files").write(path, text)
      return path
    end
    local function refused(argv)
      local _, code, err = grade(argv, dir)
      assert.are.equal(2, code, err)
      assert.falsy(err:find("[1/", 1, true), err)
      return err
    end
    local A = '{ { name = "triad", recipe = "template", kernel = "triad.cl", options = "--quick" } }'

    it("a course file's misspelt key, at the top or in an assignment, named with the known ones", function()
      local err = refused(("--course %s --submissions %scourse"):format(course("return { dedline = '2025-01-01', "
        .. "assignments = " .. A .. " }"), FIX))
      assert.matches("grade: course " .. dir .. "/bad-course.lua: unknown key 'dedline' (known: assignments, budget, "
        .. "deadline, device, jobs, name, out, roster, rounds, similar, similar_common, timeout, wall)", err, 1, true)
      err = refused(("--course %s --submissions %scourse"):format(course("return { assignments = { { recipe = "
        .. "'template', kernel = 'triad.cl', rubrik = 'r.lua' } } }"), FIX))
      assert.matches("assignments[1]: unknown key 'rubrik' (known: base, deadline, kernel, kernel_name, name, "
        .. "options, recipe, rubric)", err, 1, true)
    end)

    it("a course file's bad value, named", function()
      local err = refused(("--course %s --submissions %scourse"):format(course("return { timeout = 'soon', "
        .. "assignments = " .. A .. " }"), FIX))
      assert.matches("course " .. dir .. "/bad-course.lua: timeout must be a number of seconds > 0, got 'soon'", err, 1, true)
      err = refused(("--course %s --submissions %scourse"):format(course("return { similar = 2, assignments = " .. A
        .. " }"), FIX))
      assert.matches("similar must be a number from 0 to 1, got 2", err, 1, true)
    end)

    it("a recipe without assignment mode, by name, with those that have one", function()
      local err = refused(("--recipe stream --submissions %sreduction --out %s/x"):format(FIX, dir))
      assert.matches("grade: stream: recipe stream has no assignment mode (it takes no --kernel FILE); those that have "
        .. "one: ", err, 1, true)
      assert.matches("reduction", err, 1, true)
      assert.falsy(err:find("unknown option", 1, true), err)
    end)

    it("--classroom without one submission", function()
      local err = refused(("--recipe template --submissions %striad --classroom %s/c.json"):format(FIX, dir))
      assert.matches("grade: --classroom writes one submission's result: give --submission DIR", err, 1, true)
    end)

    it("a roster that cannot be read, with its line", function()
      local roster = shell.write_temp('student,name\nann,"Lee, Ann\n', ".csv")
      local err = refused(("--recipe template --recipe-options=--quick --submissions %striad --roster %s --out %s/x")
        :format(FIX, roster, dir))
      os.remove(roster)
      assert.matches("grade: roster " .. roster .. " line 2: a quoted cell is not closed", err, 1, true)
    end)
  end)

  it("says which option a class wrong by one factor points to", function()
    local c = dir .. "/factor"
    sh(("mkdir -p %s && cp docs/examples/reduce_sum8.cl %s/ann.cl && cp docs/examples/reduce_sum8.cl %s/bob.cl "
      .. "&& cp %sreduction/r01_fast.cl %s/cy.cl"):format(c, c, c, FIX, c))
    local out, code, err = grade(("--recipe reduction --recipe-options=--quick --submissions %s --timeout 10 --out %s/gb")
      :format(c, dir), dir)
    assert.are.equal(0, code, err)
    local hint = "2 of 3 submissions that built are wrong by one factor: got / expected = 3.9"
    assert.matches(hint, out, 1, true)
    assert.matches("it points to --kernel-per 8 (graded with 2)", out, 1, true)
    assert.matches("grade: reduction: " .. hint, err, 1, true)
    assert.matches("it points to --kernel-per 8", shell.read(dir .. "/gb.md"), 1, true)
  end)

  describe("Gradescope and GitHub Classroom", function()
    local bin

    setup(function()
      -- `clua` on the PATH, as the .deb installs it
      bin = dir .. "/bin"
      sh(("mkdir -p %s && ln -s %s %s/clua"):format(bin, abs(clua), bin))
    end)

    local function autograder(kernel)
      local root = dir .. "/autograder-" .. kernel:match("([^/]+)%.cl$")
      sh(("mkdir -p %s/source %s/submission %s/results && cp contrib/gradescope/course.lua %s/source/ && cp %s "
        .. "%s/submission/reduce.cl"):format(root, root, root, root, kernel, root))
      require("clua.files").write(root .. "/submission_metadata.json", '{"users": [{"name": "Ann Lee", "id": 7}]}')
      local out, code = shell.run(("cd %s && PATH=%s:$PATH CLUA_GRADESCOPE_ROOT=%s %s/contrib/gradescope/run_autograder")
        :format(root, shell.quote(bin), shell.quote(root), PWD))
      return root, out, code
    end

    it("run_autograder grades /autograder/submission into results.json as Gradescope documents it", function()
      local root, out, code = autograder("spec/fixtures/grade/reduction/r01_fast.cl")
      assert.are.equal(0, code, out)
      local path = root .. "/results/results.json"
      local check, ok = require("spec.support.gradescope").check(path)
      assert.is_true(ok ~= false, check)
      local doc = json.decode(shell.read(path))
      local gb = json.decode(shell.read(root .. "/results/clua/gradebook.json")).tables[1].rows[1]
      assert.are.equal(gb.score, doc.score)
      assert.is_true(doc.score >= 4, tostring(doc.score)) -- builds and is correct: 4 of 6 at least
      assert.are.same({ "builds", "correct", "speed" }, { doc.tests[1].name, doc.tests[2].name, doc.tests[3].name })
      assert.are.same({ 1, 1, "passed" }, { doc.tests[1].score, doc.tests[1].max_score, doc.tests[1].status })
      assert.are.same({ 3, 3 }, { doc.tests[2].score, doc.tests[2].max_score })
      assert.are.equal("time (µs)", doc.leaderboard[1].name)
      assert.are.equal("asc", doc.leaderboard[1].order)
      assert.is_true(math.abs(doc.leaderboard[1].value - gb.time / 1e3) < 0.1)
      assert.matches("^# reduction: Ann Lee\n", doc.output) -- the name in Gradescope's submission metadata
      assert.are.equal("md", doc.output_format)
      assert.matches("score: " .. tostring(doc.score):gsub("%.0$", "") .. " of 6", out, 1, true)
    end)

    it("a wrong submission: its failed test says where", function()
      local root, out, code = autograder("docs/examples/reduce_wrong.cl")
      assert.are.equal(0, code, out)
      local doc = json.decode(shell.read(root .. "/results/results.json"))
      assert.are.equal(1, doc.score)
      assert.are.equal("failed", doc.tests[2].status)
      assert.matches("^wrong at out%[0%]", doc.tests[2].output)
      assert.is_nil(doc.leaderboard)
      local check, ok = require("spec.support.gradescope").check(root .. "/results/results.json")
      assert.is_true(ok ~= false, check)
    end)

    it("the workflow's grading step grades the repository and hands the reporter its result", function()
      -- the workflow as GitHub reads it (python3-yaml)
      local wf, code = shell.run("python3 -c " .. shell.quote("import json, sys, yaml\n"
        .. "print(json.dumps(yaml.safe_load(open('contrib/github-classroom/classroom.yml'))))"))
      assert.are.equal(0, code, wf)
      wf = json.decode(wf)
      local steps, grading, reporter = wf.jobs["run-autograding-tests"].steps, nil, nil
      for _, s in ipairs(steps) do
        if s.id == "clua" then grading = s end
        if s.uses and s.uses:match("^classroom%-resources/autograding%-grading%-reporter@") then reporter = s end
      end
      assert.truthy(grading and reporter)
      -- the reporter reads RUNNER_RESULTS for each runner
      assert.are.equal("clua", reporter.with.runners)
      assert.are.equal("${{ steps.clua.outputs.result }}", reporter.env.CLUA_RESULTS)
      -- a student's repository, the assignment in .github/clua/
      local repo, tmp = dir .. "/repo", dir .. "/runner-temp"
      sh(("mkdir -p %s/.github/clua %s && cp contrib/github-classroom/course.lua %s/.github/clua/ && cp %s %s/reduce.cl"
        .. " && cd %s && git init -q . && git add -A && git -c user.name=s -c user.email=s@x commit -qm k"):format(repo,
        tmp, repo, FIX .. "reduction/r01_fast.cl", repo, repo))
      local script = shell.write_temp(grading.run)
      local out
      out, code = shell.run(("cd %s && PATH=%s:$PATH RUNNER_TEMP=%s GITHUB_OUTPUT=%s/output bash -e %s"):format(repo,
        shell.quote(bin), tmp, tmp, script))
      os.remove(script)
      assert.are.equal(0, code, out)
      assert.matches("\nscore: %d+ of 6\n", out)
      local b64 = shell.read(tmp .. "/output"):match("^result=(%S+)\n$")
      assert.truthy(b64)
      local decoded = shell.run("echo " .. b64 .. " | base64 -d")
      local doc = json.decode(decoded)
      assert.are.equal(1, doc.version)
      assert.are.equal(6, doc.max_score)
      local sum = 0
      for _, t in ipairs(doc.tests) do sum = sum + t.score end
      assert.are.equal(tonumber(out:match("\nscore: (%d+) of 6\n")), sum)
      assert.matches("# reduction: repo", out, 1, true) -- the feedback, in the job's log
    end)
  end)
end)
