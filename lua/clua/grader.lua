--- clua.grader: `clua grade`, a folder of submissions graded into one
-- gradebook (recipes/grade.lua is its command line). Each submission runs
-- the recipe's assignment mode in its own process under a wall-clock limit,
-- so that a kernel that never ends, a driver crash or a segfault costs one
-- row, never the run; the recipe's options are checked once, before anything
-- is graded; a rubric scores each submission (clua.rubric), a deadline marks
-- late ones, every student gets a feedback file (clua.feedback), kernels that
-- are the same code are listed as a hint (clua.similarity), and the scores
-- go out for Moodle and Canvas (clua.lms). The submissions are listed and
-- read by clua.submissions, each run is boxed and bounded by clua.runner
-- (clua.sandbox, clua.outcap), and the recipe's own kernels run once before
-- anything is graded. docs/assignments.md.
-- @module clua.grader
local argparse = require("argparse")
local report = require("clua.report")
local gradebook = require("clua.gradebook")
local rubricmod = require("clua.rubric")
local similarity = require("clua.similarity")
local feedback = require("clua.feedback")
local lms = require("clua.lms")
local classhint = require("clua.classhint")
local gradescope = require("clua.gradescope")
local classroom = require("clua.classroom")
local cli = require("clua.cli")
local recipe = require("clua.recipe")
local proc = require("clua.proc")
local files = require("clua.files")
local gradetime = require("clua.gradetime")
local paths = require("clua.paths")
local submissions = require("clua.submissions")
local includes = require("clua.includes")
local sandbox = require("clua.sandbox")
local runner = require("clua.runner")
local pool = require("clua.pool")
local outcap = require("clua.outcap")
local gradecheck = require("clua.gradecheck")
local escape = require("clua.escape")
local cl = require("cl")

local grader = {}

local sh = proc.quote
local function fail(msg) io.stderr:write("grade: ", msg, "\n"); os.exit(2) end
local read, write = files.read, files.write
local function lines_of(cmd)
  local out, pipe = {}, io.popen(cmd)
  for l in pipe:lines() do out[#out + 1] = l end
  pipe:close()
  return out
end
local function safe(name) return (name:gsub("[^%w%._%-]", "_")) end

--- The grader's command line.
-- @treturn argparse.Parser the parser
function grader.parser()
  local p = argparse("grade", "Grade a folder of student kernels with a recipe's assignment mode (or a course "
    .. "file's assignments): one gradebook, scores by a rubric, feedback per student, exports for Moodle and Canvas.")
  p:option("--recipe", "The recipe (one with --kernel: see docs/assignments.md)."):argname("NAME")
  p:option("--course", "A course file listing assignments (recipe, kernel, options, rubric); the submissions "
    .. "are then one folder per student."):argname("FILE")
  p:option("--submissions", "A folder of .cl files, or of one folder (or git repository) per student.")
    :argname("DIR")
  p:option("--submission", "One submission: DIR is the student's folder or git repository (GitHub Classroom).")
    :argname("DIR")
  p:flag("--gradescope", "Grade as Gradescope's autograder: the submission in ROOT/submission, the results in "
    .. "ROOT/results/results.json, the gradebook's files in ROOT/results/clua/.")
  p:option("--gradescope-root", "The root of --gradescope (default: CLUA_GRADESCOPE_ROOT, else /autograder).")
    :argname("ROOT")
  p:option("--classroom", "Also write the result as GitHub Classroom's autograding reporter reads it (JSON; "
    .. "contrib/github-classroom/).") :argname("FILE")
  p:option("--kernel-name", "The kernel's name in every submission (default: the recipe's).")
  p:option("--rubric", "The rubric (a Lua file: docs/assignments.md); default: build 1, correct 3, speed 2.")
    :argname("FILE")
  p:option("--deadline", "The deadline, YYYY-MM-DD[THH:MM[:SS]][Z] (local time without Z); a submission's "
    .. "time is its file's, or its last commit's in a git repository."):argname("TIME")
  p:option("--timeout", ("Seconds a wait for the device may last (the recipe's --timeout; default: CLUA_TIMEOUT, "
    .. "else %d)."):format(cli.TIMEOUT)):convert(tonumber)
  p:option("--wall", "Seconds one run of a submission may last (default: 3 x --timeout + 60).")
    :convert(tonumber)
  p:option("--rounds", ("Timing rounds: each correct submission's time is the median of this many runs, "
    .. "interleaved with as many runs of the recipe's own kernels (the references; default: %d, 1 with "
    .. "--submission or --gradescope).")
    :format(gradetime.ROUNDS)):argname("N"):convert(tonumber)
  p:option("--jobs", ("Runs side by side: the checks under Oclgrind and the runs that decide the verdicts of "
    .. "up to N submissions at once; the timing rounds run after them, one run at a time (default: the CPUs "
    .. "online, at most %d; 1: one run at a time)."):format(pool.CAP)):argname("N")
  p:option("--budget", "Seconds the whole grading may last: submissions not started by then are 'not graded'.")
    :convert(tonumber)
  p:option("--recipe-options", "Options passed to every run of the recipe, e.g. --recipe-options \"--quick\".", "")
    :argname("OPTS")
  p:option("--similar", "Similarity (0 to 1) from which two kernels are listed as a hint (default: 0.95).")
    :convert(tonumber)
  p:option("--similar-common", "Share of the submissions (0 to 1) above which a passage is what everyone writes "
    .. "and counts for nothing in the similarity (never one only two submissions have; default: 0.5).")
    :convert(tonumber)
  p:option("--base", "The code handed out (MOSS's -b): its passages count for nothing in the similarity.")
    :argname("FILE"):args("+")
  p:option("--roster", "A CSV naming each submission's student for the exports (columns: student, name, email, "
    .. "username, id, sis_id, login, section).") :argname("FILE")
  p:option("--out", "Stem of the gradebook files: STEM.csv, STEM.json, STEM.md, STEM-moodle.csv, STEM-canvas.csv, "
    .. "STEM-feedback/, STEM-logs/ (default: gradebook).")
  p:option("--device", "Device: a name or an index P:D (default: CLUA_DEVICE, else the first GPU).")
  p:flag("--no-sandbox", "Run the submissions without the sandbox (bubblewrap): their code then sees this "
    .. "machine's files and network. Without it, grading stops where the sandbox cannot start.")
  p:flag("--no-check", "Do not run each submission under the checker (Oclgrind) before timing it.")
  return p
end

-- The options whose value may start with a dash: the recipe's options, and
-- the numbers (a negative one is then refused by its check, naming the option).
local DASHED = { ["--recipe-options"] = true, ["--jobs"] = true, ["--timeout"] = true, ["--wall"] = true,
  ["--rounds"] = true, ["--budget"] = true, ["--similar"] = true, ["--similar-common"] = true }

--- The grader's options from its command line. The value of the option
-- recipe-options may start with dashes: "--recipe-options --quick" is read
-- as "--recipe-options=--quick"; so may a number's ("--jobs -1").
-- @tab argv the command line (`arg`)
-- @treturn tab the options
function grader.args(argv)
  local out, i = {}, 1
  while i <= #argv do
    if DASHED[argv[i]] and argv[i + 1] then
      out[#out + 1] = argv[i] .. "=" .. argv[i + 1]; i = i + 2
    else out[#out + 1] = argv[i]; i = i + 1 end
  end
  return grader.parser():parse(out)
end

--- A deadline as seconds since the epoch.
-- @string s YYYY-MM-DD[THH:MM[:SS]][Z] (local time without Z; a day alone ends at 23:59:59)
-- @treturn int|nil the time, nil when `s` is not one
function grader.parse_time(s)
  local y, mo, d, rest = s:match("^(%d%d%d%d)%-(%d%d)%-(%d%d)(.*)$")
  if not y then return nil end
  local h, mi, sec, z = rest:match("^[T ](%d%d):(%d%d):?(%d*)(Z?)$")
  if rest ~= "" and not h then return nil end
  if rest == "" then h, mi, sec, z = 23, 59, 59, "" end
  local t = os.time{ year = tonumber(y), month = tonumber(mo), day = tonumber(d), hour = tonumber(h),
    min = tonumber(mi), sec = tonumber(sec) or 0 }
  if z == "Z" then
    local now = os.time()
    t = t + os.difftime(now, os.time(os.date("!*t", now)))
  end
  return t
end

--- The grading options a course file may set as well as the command line
-- (which wins): each with its check and its default. A path is relative to
-- the course file's folder.
grader.SETTINGS = {
  timeout = { what = "a number of seconds > 0" }, wall = { what = "a number of seconds > 0" },
  budget = { what = "a number of seconds >= 0" }, similar = { what = "a number from 0 to 1", default = 0.95 },
  similar_common = { what = "a number above 0, at most 1", default = 0.5 },
  rounds = { what = "a whole number >= 1" }, -- default: gradetime.ROUNDS, 1 for one submission
  jobs = { what = "a whole number >= 1" }, -- default: clua.pool.default_jobs()
  roster = { what = "a file name", path = true }, device = { what = "a device name or an index P:D" },
  deadline = { what = "YYYY-MM-DD[THH:MM[:SS]][Z]" }, out = { what = "a file stem", default = "gradebook" },
}
local COURSE_KEYS = { name = true, assignments = true }
local ASSIGNMENT_KEYS = { "name", "recipe", "kernel", "kernel_name", "options", "rubric", "deadline", "base" }

local function setting_ok(k, v)
  if k == "timeout" or k == "wall" then return type(v) == "number" and v > 0 and v < math.huge end
  if k == "budget" then return type(v) == "number" and v >= 0 and v < math.huge end
  if k == "similar" then return type(v) == "number" and v >= 0 and v <= 1 end
  if k == "similar_common" then return type(v) == "number" and v > 0 and v <= 1 end
  if k == "rounds" then return type(v) == "number" and gradetime.check_rounds(v) ~= nil end
  if k == "jobs" then return type(v) == "number" and pool.check_jobs(v) ~= nil end
  return type(v) == "string" and v ~= ""
end

local function known(list)
  local l = {}
  for k in pairs(list) do l[#l + 1] = k end
  table.sort(l)
  return table.concat(l, ", ")
end

--- The options once a course file (or none) and the defaults are applied:
-- the command line first, then the course file's top level, then the
-- default (the timeout's: CLUA_TIMEOUT, else clua.cli.TIMEOUT). Ends the
-- process with a message naming a bad value.
-- @tab args the options (`grader.args`); changed in place
-- @tab[opt] course the course file's table
-- @string[opt] dir the course file's folder
-- @treturn tab args
function grader.settle(args, course, dir)
  for k, s in pairs(grader.SETTINGS) do
    local v = course and course[k]
    if args[k] == nil and v ~= nil then
      if not setting_ok(k, v) then
        fail(("course %s: %s must be %s, got %s"):format(args.course, k, s.what, type(v) == "string" and ("'" .. v .. "'")
          or tostring(v)))
      end
      if s.path and v:sub(1, 1) ~= "/" then v = dir .. "/" .. v end
      args[k] = v
    end
    if args[k] == nil then args[k] = s.default end
  end
  if args.timeout == nil then
    local env = os.getenv("CLUA_TIMEOUT")
    if env and env ~= "" then
      args.timeout = tonumber(env)
      if not args.timeout or args.timeout <= 0 then
        fail(("CLUA_TIMEOUT='%s': the grader needs a limit of seconds > 0; give --timeout S"):format(env))
      end
    else args.timeout = cli.TIMEOUT end
  end
  if type(args.jobs) == "string" then
    local n, why = pool.check_jobs(args.jobs)
    if not n then fail(why) end
    args.jobs = n
  end
  for _, k in ipairs({ "timeout", "wall", "budget", "similar", "similar_common", "rounds", "jobs" }) do
    if args[k] ~= nil and not setting_ok(k, args[k]) then
      fail(("--%s must be %s"):format(k:gsub("_", "-"), grader.SETTINGS[k].what))
    end
  end
  args.jobs = args.jobs or pool.default_jobs()
  return args
end

-- The recipes of a folder that have an assignment mode (declare `student =`).
local function with_assignment_mode(recipes)
  local out = {}
  for _, f in ipairs(paths.names(recipes)) do
    local src = f:match("%.lua$") and read(recipes .. "/" .. f)
    if src and src:find("\n%s*student%s*=") then out[#out + 1] = f:gsub("%.lua$", "") end
  end
  return out
end

--- The assignments to grade: the one the option recipe names, or the
-- course file's, each checked once before anything is graded: the course
-- file's keys (an unknown one is named, with the known ones), its recipe
-- (one with an assignment mode), its rubric, its options (the recipe parses
-- them, with every rubric size) and its deadline. Settles the options
-- (`grader.settle`). Ends the process with a message on the first fault.
-- @tab args the options (`grader.args`)
-- @string recipes the folder of the recipes
-- @string clua the interpreter that runs them
-- @treturn tab the assignments (`name`, `recipe`, `script`, `rub`, `options`,
-- `assign_options` (clua.classhint.options), ...)
-- @treturn tab|nil the course, when --course gave one
function grader.assignments(args, recipes, clua)
  local course, assignments = nil, {}
  if args.course then
    local chunk, err = loadfile(args.course, "t", {})
    if not chunk then fail("course " .. args.course .. ": " .. err) end
    local ok, c = pcall(chunk)
    if not ok or type(c) ~= "table" or type(c.assignments) ~= "table" or #c.assignments == 0 then
      fail("course " .. args.course .. ": " .. (ok and "returns no table with a list 'assignments'" or tostring(c)))
    end
    course = c
    local keys = {}
    for k in pairs(COURSE_KEYS) do keys[k] = true end
    for k in pairs(grader.SETTINGS) do keys[k] = true end
    for k in pairs(c) do
      if not keys[k] then
        fail(("course %s: unknown key '%s' (known: %s)"):format(args.course, tostring(k), known(keys)))
      end
    end
    local dir = args.course:match("^(.*)/[^/]*$") or "."
    grader.settle(args, c, dir)
    local akeys = {}
    for _, k in ipairs(ASSIGNMENT_KEYS) do akeys[k] = true end
    for i, a in ipairs(c.assignments) do
      if type(a) ~= "table" then fail(("course %s: assignments[%d] is not a table"):format(args.course, i)) end
      for k in pairs(a) do
        if not akeys[k] then
          fail(("course %s: assignments[%d]: unknown key '%s' (known: %s)"):format(args.course, i, tostring(k), known(akeys)))
        end
      end
      if not a.recipe or not a.kernel then fail(("course %s: assignments[%d] needs recipe = and kernel ="):format(args.course, i)) end
      local rub = a.rubric
      if type(rub) == "string" then rub = rub:sub(1, 1) == "/" and rub or (dir .. "/" .. rub) end
      local base = type(a.base) == "string" and { a.base } or a.base
      for j, b in ipairs(type(base) == "table" and base or {}) do
        if type(b) == "string" and b:sub(1, 1) ~= "/" then base[j] = dir .. "/" .. b end
      end
      assignments[i] = { name = a.name or a.recipe, recipe = a.recipe, kernel = a.kernel, kernel_name = a.kernel_name,
        options = a.options or "", rubric = rub, deadline = a.deadline or args.deadline, base = base }
    end
  else
    grader.settle(args)
    assignments[1] = { name = args.recipe, recipe = args.recipe, kernel_name = args.kernel_name,
      options = args.recipe_options, rubric = args.rubric, deadline = args.deadline, base = args.base }
  end

  -- Checked once, before anything is graded: each recipe, its rubric, its
  -- options (the recipe parses them, with every rubric size), the deadline.
  for _, a in ipairs(assignments) do
    a.script = recipes .. "/" .. a.recipe .. ".lua"
    if not read(a.script) then fail("no recipe " .. a.script) end
    a.base_src = grader.base(a.base, a.name)
    local ok, r = pcall(function()
      if type(a.rubric) == "table" then return rubricmod.check(a.rubric, a.name .. ": rubric") end
      return a.rubric and rubricmod.load(a.rubric) or rubricmod.check(rubricmod.DEFAULT)
    end)
    if not ok then fail(r) end
    a.rub = r
    for _, o in ipairs({ "--kernel", "--json", "--csv", "--timeout", "--kernel-name", "--grading" }) do
      if (" " .. a.options):find("%s" .. o:gsub("%-", "%%-") .. "[%s=]") or (" " .. a.options .. " "):find(" " .. o:gsub("%-", "%%-") .. " ") then
        fail(("%s: the recipe options may not hold %s: the grader sets it"):format(a.name, o))
      end
    end
    for i, sz in ipairs(a.rub.sizes) do
      local opts = a.options .. (sz.size and (" --size " .. sh(sz.size)) or "")
      local out = lines_of(("%s %s --kernel /dev/null %s --help 2>&1; echo \"rc=$?\""):format(sh(clua),
        sh(a.script), opts))
      local last = out[#out - 1] or "?"
      if out[#out] ~= "rc=0" and last:find("unknown option '--kernel'", 1, true) then
        local have = with_assignment_mode(recipes)
        fail(("%s: recipe %s has no assignment mode (it takes no --kernel FILE)%s"):format(a.name, a.recipe,
          #have > 0 and ("; those that have one: " .. table.concat(have, ", ")) or ""))
      elseif out[#out] ~= "rc=0" then
        fail(("%s: recipe %s refuses the options '%s': %s"):format(a.name, a.recipe, opts,
          last:gsub("^recipe [%w_]+: ", "")))
      end
      if i == 1 then a.assign_options = classhint.options(table.concat(out, "\n")) end
    end
    if a.deadline then
      a.deadline_t = grader.parse_time(a.deadline)
      if not a.deadline_t then fail(("%s: bad deadline '%s' (YYYY-MM-DD[THH:MM[:SS]][Z])"):format(a.name, a.deadline)) end
    end
  end
  return assignments, course
end

-- printf in a kernel is allowed; its cost is named in the feedback (and a
-- log that had to be cut says so there too).
local function printf_note(o, src)
  local p = o.printed
  if not p then return end
  local calls = src and includes.code(src):find("%f[%w_]printf%f[^%w_]")
  o.notes = o.notes or {}
  if calls then
    o.notes[#o.notes + 1] = ("your kernel calls printf: the run printed %d bytes (%d lines); the printing is done "
      .. "inside every launch, the timed ones too, so your time includes it: leave printf out for your kernel's own "
      .. "time"):format(p.bytes, p.lines)
  end
  if p.cut > 0 then
    o.notes[#o.notes + 1] = ("the log keeps the first and the last %d KiB of what the run printed: %d bytes were "
      .. "cut"):format(outcap.LIMIT // 2048, p.cut)
  end
  if #o.notes == 0 then o.notes = nil end
end

--- The one submission graded alone (options submission and gradescope):
-- the folder `dir` is the student's folder (or git repository).
-- @string dir the folder
-- @string[opt] name the student's name (default: the folder's)
-- @treturn tab a list of one `{name, path, dir, git}`
function grader.one(dir, name)
  dir = dir:gsub("/+$", "")
  if dir == "" then dir = "/" end
  local base = dir:match("([^/]+)$")
  if not base or base == "." or base == ".." then
    base = paths.absolute(dir):gsub("/%.$", ""):match("([^/]+)/*$") or "submission"
    if base == ".." then base = "submission" end
  end
  local list = { { name = name or base, path = dir, dir = true, git = paths.kind(dir .. "/.git") ~= nil } }
  submissions.stems(list)
  return list
end

--- What happened to a run that was not correct, in a few words for the
-- rubric's line: "wrong at out[255] (first launch, n = 261887)", "did not
-- build: line 5:44: use of undeclared identifier 'j'".
-- @tab o an outcome (clua.gradebook.outcome)
-- @treturn string the words
function grader.what(o)
  if o.verdict == "wrong" and o.first_wrong then return "wrong at " .. o.first_wrong.where end
  local r = o.reason and o.reason ~= "" and o.reason ~= o.verdict and gradebook.cut(o.reason, 80) or nil
  return o.verdict .. (r and (": " .. r) or "")
end

--- The sources of an assignment's base (the code handed out, for the
-- similarity). Ends the process with a message when one cannot be read.
-- @tparam nil|string|{string,...} base the files
-- @string name the assignment's name, for the message
-- @treturn {string,...} their sources
function grader.base(base, name)
  if type(base) == "string" then base = { base } end
  if base ~= nil and (type(base) ~= "table" or #base == 0) then
    fail(("%s: base must be a file or a list of files, not %s"):format(name, tostring(base)))
  end
  local srcs = {}
  for i, f in ipairs(base or {}) do
    srcs[i] = type(f) == "string" and read(f)
    if not srcs[i] then fail(("%s: base %s: not a readable file"):format(name, tostring(f))) end
  end
  return srcs
end

--- The students: DIR/NAME.cl (not for a course), or DIR/NAME/ (a folder, or
-- a git repository), as clua.submissions lists them.
-- @string dir the submissions' folder
-- @bool course true for a course (folders only)
-- @treturn tab a list of `{name, path, file}`, `{name, path, dir, git}` or `{name, path, refused}`
function grader.students(dir, course)
  return submissions.list(dir, course)
end

--- Grades a folder of submissions (`clua grade`, recipes/grade.lua): every
-- run, then the gradebook's files and its tables on the standard output.
-- @tab argv the command line (`arg`)
-- @string recipes the folder of the recipes
function grader.main(argv, recipes)
  local args = grader.args(argv)
  local clua = proc.interpreter()
  if (args.recipe == nil) == (args.course == nil) then fail("give --recipe NAME or --course FILE (one of them)") end
  local gs
  if args.gradescope then
    gs = gradescope.paths(args.gradescope_root or os.getenv("CLUA_GRADESCOPE_ROOT") or "/autograder")
    if args.submissions or args.submission then fail("--gradescope grades ROOT/submission: give no --submissions or --submission") end
    args.submission, args.out = gs.submission, args.out or gs.out
  elseif args.gradescope_root then fail("--gradescope-root is an option of --gradescope")
  end
  if (args.submissions == nil) == (args.submission == nil) then
    fail("give --submissions DIR (a class), --submission DIR (one student) or --gradescope (one of them)")
  end
  if args.classroom and not args.submission then fail("--classroom writes one submission's result: give --submission DIR") end
  local folder = args.submissions or args.submission
  if not paths.is_dir(folder) then fail("no folder " .. folder) end
  if args.course and args.base then fail("--base is for --recipe: a course file names each assignment's base") end
  local assignments, course = grader.assignments(args, recipes, clua)
  local wall = args.wall or (3 * args.timeout + 60)
  local common = args.similar_common

  -- The device the runs use, for the gradebook's record and its ranks.
  local dev_ok, dev = pcall(cl.device, args.device)
  local dev_type = dev_ok and dev and dev.info.type or "unknown"
  local on_cpu = dev_type ~= "GPU" and dev_type ~= "unknown"

  local students = args.submission and grader.one(args.submission, gs and (gradescope.student(read(gs.metadata))
    or "submission"))
    or grader.students(args.submissions, course)
  if #students == 0 then fail("no submissions (.cl files or folders) in " .. args.submissions) end
  -- The roster, read before anything is graded: a fault in it costs nothing.
  local roster, unlisted
  if args.roster then
    local names = {}
    for i, s in ipairs(students) do names[i] = s.name end
    local ok, r, m = pcall(lms.roster, args.roster, names)
    if not ok then fail(tostring(r)) end
    roster, unlisted = r, m
  end

  -- The sandbox, probed once; then the recipe's own kernels, run as every
  -- submission will be: a fault of the machine stops the grading here, before
  -- any verdict is written.
  local boxed = not args.no_sandbox
  if boxed then
    local ok, why = sandbox.probe()
    if not ok then fail("the sandbox cannot start: " .. why .. "; nothing was graded (--no-sandbox grades without it)") end
  end
  local work, werr = paths.tempdir("clua-grade")
  if not work then fail(werr) end
  local function stop(msg) paths.remove_tree(work); fail(msg) end
  local box = runner.new{ clua = clua, root = cl.root, recipes = recipes, wall = wall, sandboxed = boxed, work = work }
  -- the preflights (one per recipe and options) and the check's Oclgrind,
  -- tried once as every check will run it (in the box), side by side
  local checking = not args.no_check and gradecheck.available()
  local faults, flown = {}, {}
  pool.run({
    function()
      for _, a in ipairs(assignments) do
        local sz = a.rub.sizes[1].size
        local line = ("--timeout %s%s%s%s"):format(args.timeout, args.device and (" --device " .. sh(args.device)) or "",
          a.options ~= "" and (" " .. a.options) or "", sz and (" --size " .. sh(sz)) or "")
        if not flown[a.script .. "\0" .. line] then
          flown[a.script .. "\0" .. line] = true
          local ok, why = box:preflight(a.script, line)
          if not ok then
            faults[1] = ("%s: the recipe's own kernels did not run%s, so no submission can be graded here: %s; "
              .. "nothing was graded"):format(a.name, boxed and " in the sandbox" or "", why)
            return
          end
        end
      end
    end,
    function(slot)
      if not checking or faults[1] then return end
      local ok, why = gradecheck.probe(box:lane(slot))
      if not ok then faults[2] = ("the checker cannot run: %s; nothing was graded (--no-check grades without it)"):format(why) end
    end }, math.min(args.jobs, 2), work)
  if faults[1] or faults[2] then stop(faults[1] or faults[2]) end

  local logs, fbdir = args.out .. "-logs", args.out .. "-feedback"
  for _, d in ipairs({ logs, fbdir }) do
    local ok, err = paths.mkdirs(d)
    if not ok then stop(err) end
  end

  -- When a submission was made: its last commit in a git repository, else its file's time.
  local function submitted_at(s, file)
    local how = "file"
    if s.git then
      local t = lines_of("git -c core.fsmonitor=false -C " .. sh(s.path) .. " log -1 --format=%ct 2>/dev/null")[1]
      if tonumber(t) then return tonumber(t), "commit" end
      -- a repository whose commit cannot be read: said, not silently the file's time
      how = paths.which("git") and "file (no commit in the repository)"
        or "file (git is not installed: the last commit's time is unknown)"
    end
    local kind, attr = paths.kind(file)
    return kind == "file" and attr.modification or nil, how
  end

  local started = cl.now()
  local count, total_runs = 0, #students * #assignments

  -- One run of the recipe (clua.runner: boxed, bounded; mode: its --grading,
  -- nil for the whole recipe); returns the outcome and the decoded JSON.
  -- `how`: the runner (a lane of clua.pool's tasks) and the run's wall-clock limit.
  local function run(a, s, file, size, tag, mode, how)
    how = how or {}
    local stem = logs .. "/" .. s.stem .. (#assignments > 1 and ("-" .. safe(a.name)) or "") .. (tag or "")
    local j, log, err = stem .. ".json", stem .. ".log", stem .. ".err"
    os.remove(j)
    local cmd = { "--kernel=" .. sh(paths.absolute(file)), "--timeout", tostring(args.timeout) }
    if a.kernel_name then cmd[#cmd + 1] = "--kernel-name " .. sh(a.kernel_name) end
    if args.device then cmd[#cmd + 1] = "--device " .. sh(args.device) end
    if a.options ~= "" then cmd[#cmd + 1] = a.options end
    if size then cmd[#cmd + 1] = "--size " .. sh(size) end
    if mode then cmd[#cmd + 1] = "--grading " .. mode end
    local code, errtext, text, printed = (how.box or box):run{ script = a.script, args = table.concat(cmd, " "),
      submission = s.file or s.path, log = log, err = err, json = j, wall = how.wall or wall }
    local doc = text and report.decode(text)
    local o = gradebook.outcome(code, errtext, doc)
    o.printed = printed
    return o, doc
  end

  -- Grades one student's submission of one assignment: an entry. `lane`:
  -- the runner of its clua.pool task. Its check under Oclgrind and its runs
  -- at each rubric size, which decide its verdict, may run beside other
  -- students'; none of them times it (the timing rounds do, clua.gradetime).
  local function grade_one(a, s, lane)
    local file, why = nil, s.refused
    if not why then file, why = submissions.kernel(s, a.kernel) end
    local e = { student = s.name, stem = s.stem, file = file and file:match("[^/]*$") or (s.refused and s.path:match("[^/]*$"))
      or (a.kernel or "?"), path = file }
    -- what a file is, decided before any run: not a regular file, empty, binary, ... (clua.submissions)
    local src, refused
    if file then src, refused, e.source = submissions.read(file, s.dir and s.path or nil) end
    e.source = src or e.source
    local t0 = cl.now()
    if s.refused or refused then
      local msg = s.refused or refused
      e.outcome = { verdict = "did not build", built = false, correct = false, message = msg, reason = msg }
    elseif not file then
      e.outcome = { verdict = "no kernel", built = false, correct = false, message = why, reason = why }
    elseif args.budget and (cl.now() - started) / 1e9 > args.budget then
      e.outcome = { verdict = "not graded", built = false, correct = false,
        message = ("the grading budget (--budget %s s) was spent"):format(args.budget) }
      e.outcome.reason = e.outcome.message
    else
      local o, spent = gradecheck.submission{ off = args.no_check, script = a.script, file = file, box = lane, wall = wall,
        kernel_name = a.kernel_name, options = a.options, timeout = args.timeout, log = logs .. "/" .. s.stem
        .. (#assignments > 1 and ("-" .. safe(a.name)) or "") .. "-check" }
      -- the first size's run: its wall less what the check took
      o = o or run(a, s, file, a.rub.sizes[1].size, nil, gradetime.mode(1),
        { box = lane, wall = math.max(1, math.floor(wall - spent)) })
      -- each size: correct (true), wrong (false) or not checked (nil), and what happened
      local correct, whys = {}, {}
      local function checked(x) return x.built and not x.timed_out and x.verdict ~= "no kernel" and x.verdict ~= "crashed" end
      if checked(o) then correct[1] = o.correct end
      if not o.correct and o.built then whys[1] = grader.what(o) end
      for i = 2, #a.rub.sizes do
        if not o.built or o.timed_out or o.unsafe then whys[i] = "not run: " .. o.verdict .. " at the first size"
        else
          local sz = a.rub.sizes[i].size
          local oi = run(a, s, file, sz, "-size" .. i, gradetime.mode(i), { box = lane })
          if checked(oi) then correct[i] = oi.correct end
          if not oi.correct then whys[i] = grader.what(oi) end
          if o.correct and not oi.correct then
            -- wrong at another size: the submission is not correct, and says where
            oi.reason = ("at --size %s: %s"):format(sz, oi.reason or oi.verdict)
            o = oi
          end
        end
      end
      e.outcome, e.correct, e.whys = o, correct, whys
      printf_note(o, src)
      local t, how = submitted_at(s, file)
      if t then
        e.submitted = os.date("!%Y-%m-%dT%H:%M:%SZ", t) .. (how == "commit" and " (last commit)"
          or how ~= "file" and (" (" .. how .. ")") or "")
        if a.deadline_t and t > a.deadline_t then e.late_days = math.ceil((t - a.deadline_t) / 86400) else e.late_days = 0 end
      end
    end
    e.seconds = (cl.now() - t0) / 1e9
    -- the progress: a line when a student's grading ends (N: how many have)
    count = count + 1
    local o = e.outcome
    io.stderr:write(("[%d/%d] %s%s (%.0f s so far) ... %s%s\n"):format(count, total_runs, escape.terminal(s.name),
      #assignments > 1 and (" " .. escape.terminal(a.name)) or "", (t0 - started) / 1e9, o.verdict,
      o.correct and "" -- its time comes from the timing rounds
      or (o.reason and (": " .. escape.terminal(gradebook.cut(o.reason, 90))) or "")))
    return e
  end

  local lanes = {}
  for _, a in ipairs(assignments) do
    a.entries = {}
    local student_of, tasks = {}, {}
    -- every student a task (clua.pool): up to --jobs runs side by side; the
    -- entries in the students' order
    for i, s in ipairs(students) do
      tasks[i] = function(slot)
        lanes[slot] = lanes[slot] or box:lane(slot)
        local e = grade_one(a, s, lanes[slot])
        a.entries[i], student_of[e] = e, s
      end
    end
    pool.run(tasks, args.jobs, work)
    -- the timing rounds, once the pool has ended (nothing runs beside them):
    -- references and correct submissions, interleaved (clua.gradetime)
    a.timing = gradetime.rounds(a.entries, function(e, mode, tag)
      return run(a, student_of[e], e.path, a.rub.sizes[1].size, tag, mode)
    end, { rounds = args.rounds or (args.submission and 1 or gradetime.ROUNDS),
      progress = function(l) io.stderr:write(escape.terminal(l), "\n") end,
      over = args.budget and function() return (cl.now() - started) / 1e9 > args.budget end })
    -- ranks: a difference within the noise is none (on a CPU at least 5%)
    local ranked = gradebook.rank(a.entries, on_cpu and 5 or 0)
    a.ranked = #ranked
    a.times = {}
    for _, e in ipairs(ranked) do a.times[#a.times + 1] = e.outcome.time end
    for _, e in ipairs(a.entries) do
      local o = e.outcome
      e.score, e.max, e.lines, e.items = rubricmod.score(a.rub, { built = o.built, correct = e.correct, why = e.whys,
        build_why = not o.built and grader.what(o) or nil, oob = o.oob, oob_why = o.oob_why, changed_input = o.changed_input,
        timed_out = o.timed_out, too_fast = o.too_fast, speedup = o.speedup, time = o.time, untimed = o.untimed,
        late_days = e.late_days })
    end
    local srcs = {}
    for _, e in ipairs(a.entries) do
      if e.source then srcs[#srcs + 1] = { name = e.student, source = e.source } end
    end
    a.similar = similarity.pairs(srcs, { threshold = args.similar, common = common, base = a.base_src,
      over = args.budget and function() return (cl.now() - started) / 1e9 > args.budget end })
    if not a.similar then
      a.similar, a.similar_skipped = {}, ("alike: not looked for, the grading budget (--budget %s s) was spent")
        :format(args.budget)
    end
    a.hint = classhint.same_factor(a.entries, a.assign_options, a.options)
  end

  -- Recorded once: the device, driver and clua of the runs, the options and the data.
  local meta = { recipe = table.concat((function() local r = {}; for i, a in ipairs(assignments) do r[i] = a.recipe end; return r end)(), ", "),
    clua = recipe.version(), date = os.date("!%Y-%m-%dT%H:%M:%SZ"), device_type = dev_type,
    options = ("--timeout %s --wall %s --similar %s --similar-common %s%s"):format(args.timeout, wall, args.similar,
      common, args.budget and (" --budget " .. args.budget) or ""),
    sandbox = boxed and sandbox.describe() or "none (--no-sandbox): the submissions ran with this machine's files and network",
    check = gradecheck.describe(not args.no_check, checking, boxed),
    data = "the recipe's own fixed seeds: every submission gets the same data" }
  for _, a in ipairs(assignments) do
    for _, e in ipairs(a.entries) do
      local doc = e.outcome.correct and read(logs .. "/" .. e.stem .. (#assignments > 1 and ("-" .. safe(a.name)) or "") .. ".json")
      local d = doc and report.decode(doc)
      local t = d and d.tables and d.tables[1]
      if t and t.meta and not meta.device then meta.device, meta.driver, meta.platform = t.meta.device, t.meta.driver, t.meta.platform end
    end
  end
  if not meta.device and dev_ok and dev then meta.device, meta.driver = dev.name, dev.info.driver_version end

  local tables, md, term = {}, {}, {}
  -- Every file is written on its own: a fault in one (an export, a full
  -- disk) is said at the end and makes the exit status 1, and the others
  -- are written all the same.
  local failed = {}
  local function attempt(what, fn)
    local ok, err = pcall(fn)
    if not ok then failed[#failed + 1] = ("%s: %s"):format(what, tostring(err)) end
  end
  md[#md + 1] = "# Gradebook: " .. escape.markdown(course and course.name or assignments[1].name)
  md[#md + 1] = ""
  for _, k in ipairs({ "recipe", "device", "device_type", "driver", "clua", "date", "options", "sandbox", "check", "data" }) do
    if meta[k] then md[#md + 1] = ("- %s: %s"):format(k, escape.markdown(meta[k])) end
  end
  md[#md + 1] = ""
  for _, a in ipairs(assignments) do
    local title = #assignments > 1 and ("Gradebook: " .. a.name) or "Gradebook"
    local m = {}
    for k, v in pairs(meta) do m[k] = v end
    m.recipe, m.options = a.recipe, ("%s; recipe options: %s"):format(meta.options, a.options ~= "" and a.options or "(none)")
    m.rubric = type(a.rubric) == "string" and a.rubric or "default"
    m.deadline = a.deadline
    local t = gradebook.table(a.entries, m, title)
    if #assignments > 1 then t.id = "gradebook-" .. safe(a.name) end
    local refs = {}
    for _, e in ipairs(a.entries) do if e.outcome.reference then refs[e.outcome.reference] = true end end
    local notes = { gradebook.summary(a.entries),
      ("rank: the correct submissions by median time, 1 the fastest; a difference within the noise (the larger "
        .. "spread of the two%s) shares a rank (marked = in the terminal)"):format(on_cpu and ", at least 5%" or ""),
      "speed-up: the recipe's fastest kernel for the same job (the kernels it ranks beside the student's; "
        .. "references such as a copy kernel left out) / the submission's time" .. (next(refs) and (": "
        .. table.concat((function() local l = {}; for k in pairs(refs) do l[#l + 1] = k end; table.sort(l); return l end)(), "; ")) or "") }
    if on_cpu then
      table.insert(notes, 1, ("CPU ranks: the device is a %s (%s), whose times are noisy and whose order need not "
        .. "be a GPU's; rows with a spread above 10%% are marked noisy"):format(dev_type, meta.device or "?"))
    end
    if a.timing then notes[#notes + 1] = gradetime.note(a.timing) end
    if a.hint then table.insert(notes, 1, a.hint) end
    if unlisted and #unlisted > 0 then
      notes[#notes + 1] = ("roster %s: no row for %s: the exports name them by the submission's name"):format(args.roster,
        table.concat(unlisted, ", "))
    end
    for _, n in ipairs(notes) do t:note(n) end
    t:note(("each run: clua recipes/%s.lua --kernel FILE --grading check|verify|time --timeout %s %s, killed after "
      .. "%s s; logs in %s/")
      :format(a.recipe, args.timeout, a.options, wall, logs))
    if a.similar_skipped then notes[#notes + 1] = a.similar_skipped; t:note(a.similar_skipped) end
    tables[#tables + 1] = t
    local c = gradebook.compact(a.entries, title)
    for _, n in ipairs(notes) do c:note(n) end
    if #a.similar > 0 then
      local parts = {}
      for _, pr in ipairs(a.similar) do parts[#parts + 1] = ("%s ~ %s %.2f"):format(pr.a, pr.b, pr.score) end
      c:note("alike (a hint, not a verdict: the passages of their own two kernels share, once comments, whitespace "
        .. "and names are gone" .. (#a.base_src > 0 and ", the handed-out code" or "") .. (" and what more than %g%% "
        .. "of the class writes left out): "):format(common * 100) .. table.concat(parts, "; "))
    end
    md[#md + 1] = report.markdown(c)
    md[#md + 1] = ""
    term[#term + 1] = report.text(c)
    local csv = args.out .. (#assignments == 1 and "" or ("-" .. safe(a.name))) .. ".csv"
    attempt(csv, function() write(csv, report.csv(t)) end)
  end

  -- The course: a column per assignment and a total.
  local score_of = {}
  for _, a in ipairs(assignments) do
    score_of[a.name] = {}
    for _, e in ipairs(a.entries) do score_of[a.name][e.student] = e end
  end
  local names, stem_of = {}, {}
  for i, s in ipairs(students) do names[i], stem_of[s.name] = s.name, s.stem end
  if #assignments > 1 then
    local cols = { { name = "student", key = true } }
    for _, a in ipairs(assignments) do
      cols[#cols + 1] = { name = a.name .. " verdict" }
      cols[#cols + 1] = { name = a.name .. " score", format = "%.2f" }
    end
    cols[#cols + 1] = { name = "total", format = "%.2f" }
    cols[#cols + 1] = { name = "max", format = "%.2f" }
    local ct = report.new{ title = "Course: " .. (course.name or args.course), id = "course", meta = meta, columns = cols }
    for _, s in ipairs(names) do
      local row, total, max = { student = s }, 0, 0
      for _, a in ipairs(assignments) do
        local e = score_of[a.name][s]
        row[a.name .. " verdict"] = e.outcome.verdict .. ((e.late_days or 0) > 0 and ", late" or "")
        row[a.name .. " score"] = e.score
        total, max = total + e.score, max + e.max
      end
      row.total, row.max = total, max
      ct:add(row)
    end
    table.insert(tables, 1, ct)
    attempt(args.out .. ".csv", function() write(args.out .. ".csv", report.csv(ct)) end)
    md[#md + 1] = report.markdown(ct)
    term[#term + 1] = report.text(ct)
  end

  -- Similarity hints, exports, feedback.
  local similar = {}
  for _, a in ipairs(assignments) do
    for _, pr in ipairs(a.similar) do similar[#similar + 1] = { assignment = a.name, a = pr.a, b = pr.b, score = pr.score } end
  end
  if #similar > 0 then
    md[#md + 1] = ("## Alike (a hint, not a verdict)\n\nPairs whose kernels share %.2f or more of their own passages "
      .. "once comments, whitespace and names are gone, the handed-out code (--base) and what more than %g%% of the "
      .. "class writes left out (token fingerprints as MOSS makes them; 1.00: the same code):\n"):format(args.similar,
      common * 100)
    for _, s in ipairs(similar) do
      md[#md + 1] = ("- %s: %s and %s, %.2f"):format(escape.markdown(s.assignment), escape.markdown(s.a),
        escape.markdown(s.b), s.score)
    end
    md[#md + 1] = ""
  end
  attempt(args.out .. ".json", function() write(args.out .. ".json", report.json(tables, { schema = report.schema("gradebook"),
    grader = "clua recipes/grade.lua", similar = similar })) end)
  attempt(args.out .. ".md", function() write(args.out .. ".md", table.concat(md, "\n") .. "\n") end)

  -- The feedback, then what a course system reads: Gradescope's and GitHub
  -- Classroom's results for one submission, Moodle's and Canvas's imports.
  local texts = {}
  for _, s in ipairs(names) do
    local parts = {}
    for _, a in ipairs(assignments) do
      local e = score_of[a.name][s]
      e.score_text, e.max_text = gradebook.pts(e.score), gradebook.pts(e.max)
      parts[#parts + 1] = feedback.markdown(e, { assignment = a.name, recipe = a.recipe, ranked = a.ranked, times = a.times,
        source = e.source, deadline = a.deadline })
    end
    texts[s] = table.concat(parts, "\n")
    local fb = fbdir .. "/" .. stem_of[s] .. ".md"
    attempt(fb, function() write(fb, texts[s]) end)
  end
  local function parts_of(s)
    local l = {}
    for i, a in ipairs(assignments) do l[i] = { assignment = a.name, entry = score_of[a.name][s] } end
    return l
  end
  if gs then
    attempt(gs.json, function()
      write(gs.json, gradescope.encode(gradescope.results(parts_of(names[1]), { output = texts[names[1]],
        seconds = (cl.now() - started) / 1e9, several = #assignments > 1 })))
    end)
  end
  if args.classroom then
    attempt(args.classroom, function()
      write(args.classroom, classroom.encode(classroom.result(parts_of(names[1]), { several = #assignments > 1 })))
    end)
  end
  local alist = {}
  for i, a in ipairs(assignments) do alist[i] = { name = a.name, max = a.rub.max } end
  local function get(s, an)
    local e = score_of[an][s]
    return e.score, ("%s: %s"):format(e.outcome.verdict, e.outcome.reason or "")
  end
  attempt(args.out .. "-moodle.csv", function() write(args.out .. "-moodle.csv", lms.moodle(names, alist, get, roster)) end)
  attempt(args.out .. "-canvas.csv", function() write(args.out .. "-canvas.csv", lms.canvas(names, alist, get, roster)) end)

  paths.remove_tree(work)
  for _, a in ipairs(assignments) do
    io.stderr:write(escape.terminal(gradebook.summary(a.entries)), "\n")
    if a.hint then io.stderr:write("grade: ", escape.terminal(a.name), ": ", escape.terminal(a.hint), "\n") end
  end
  local out = escape.terminal(args.out)
  io.stderr:write(("grade: wrote %s.csv, %s.json, %s.md, %s-moodle.csv, %s-canvas.csv, %s/%s%s (%.0f s)\n"):format(out,
    out, out, out, out, escape.terminal(fbdir), gs and (", " .. escape.terminal(gs.json)) or "",
    args.classroom and (", " .. escape.terminal(args.classroom)) or "", (cl.now() - started) / 1e9))
  io.stdout:write(table.concat(term, "\n"))
  if #similar > 0 then
    io.stdout:write("\nalike (a hint, not a verdict):\n")
    for _, s in ipairs(similar) do
      io.stdout:write(("  %s: %s ~ %s %.2f\n"):format(escape.terminal(s.assignment), escape.terminal(s.a),
        escape.terminal(s.b), s.score))
    end
  end
  if args.submission then
    local total, max = 0, 0
    for _, a in ipairs(assignments) do
      local e = score_of[a.name][names[1]]
      total, max = total + e.score, max + e.max
    end
    io.stdout:write(("score: %s of %s\n"):format(gradebook.pts(total), gradebook.pts(max)))
  end
  if #failed > 0 then
    for _, f in ipairs(failed) do io.stderr:write("grade: not written: ", escape.terminal(f), "\n") end
    io.stderr:flush()
    os.exit(1)
  end
end

return grader
