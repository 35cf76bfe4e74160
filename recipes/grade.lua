-- grade: a folder of submissions, one gradebook. Each submission (a .cl
-- file, or a folder per student holding one) runs in its own process,
--   clua recipes/RECIPE.lua --kernel FILE --timeout S --json J [recipe options]
-- under a wall-clock limit, so that a kernel that never ends, a driver crash
-- or a segfault costs one row of the gradebook, never the run. The gradebook
-- (CSV, JSON, Markdown leaderboard) has a row per submission: built?,
-- correct?, the first wrong element, an out-of-bounds write, time (median,
-- min, max), GB/s, rank, speed-up over the recipe's own fastest kernel, timed
-- out?; the device, driver, clua version, options and data are recorded once.
--   clua recipes/grade.lua --recipe reduction --submissions DIR [--kernel-name N]
--                          [--timeout S] [--wall S] [--recipe-options "..."] [--out gradebook]
local argparse = require "argparse"
local json = require "dkjson"
local report = require "clua.report"
local gradebook = require "clua.gradebook"
local recipe = require "clua.recipe"
local proc = require "clua.proc"

local p = argparse("grade", "Grade a folder of student kernels with a recipe's assignment mode: one gradebook.")
p:option("--recipe", "The recipe (one with --kernel: see docs/assignments.md)."):argname("NAME"):count(1)
p:option("--submissions", "A folder of .cl files, or of one folder per student holding one .cl file.")
  :argname("DIR"):count(1)
p:option("--kernel-name", "The kernel's name in every submission (default: the recipe's).")
p:option("--timeout", "Seconds a wait for the device may last (the recipe's --timeout).", "60"):convert(tonumber)
p:option("--wall", "Seconds a submission's whole run may last (default: 3 x --timeout + 60).")
  :convert(tonumber)
p:option("--recipe-options", "Options passed to every run of the recipe, e.g. \"--quick\".", "")
  :argname("OPTS")
p:option("--out", "Stem of the gradebook files: STEM.csv, STEM.json, STEM.md; logs in STEM-logs/.",
  "gradebook")
p:option("--device", "Device: a name or an index P:D (default: CLUA_DEVICE, else the first GPU).")
local args = p:parse()

local clua = proc.interpreter()
local here = arg[0]:match("^(.*)/[^/]*$") or "."
local script = here .. "/" .. args.recipe .. ".lua"
local sh = proc.quote
local function fail(msg) io.stderr:write("grade: ", msg, "\n"); os.exit(2) end
local function read(path)
  local f = io.open(path)
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end
local function lines_of(cmd)
  local out, pipe = {}, io.popen(cmd)
  for l in pipe:lines() do out[#out + 1] = l end
  pipe:close()
  return out
end

if not read(script) then fail("no recipe " .. script) end
if not os.execute("test -d " .. sh(args.submissions)) then fail("no folder " .. args.submissions) end
local wall = args.wall or (3 * args.timeout + 60)

-- The submissions: DIR/NAME.cl, or DIR/NAME/ holding exactly one .cl file.
local subs = {}
for _, name in ipairs(lines_of("ls -1 " .. sh(args.submissions))) do
  local path = args.submissions .. "/" .. name
  if name:match("%.cl$") then
    subs[#subs + 1] = { student = name:gsub("%.cl$", ""), file = path }
  elseif #lines_of("test -d " .. sh(path) .. " && echo d") == 1 then
    local cls = lines_of("ls -1 " .. sh(path) .. " | grep '\\.cl$'")
    if #cls == 1 then subs[#subs + 1] = { student = name, file = path .. "/" .. cls[1] }
    else subs[#subs + 1] = { student = name, file = path, problem = ("%d .cl files in the folder"):format(#cls) } end
  end
end
if #subs == 0 then fail("no submissions (.cl files or folders) in " .. args.submissions) end

local logs = args.out .. "-logs"
os.execute("mkdir -p " .. sh(logs))

-- Runs one submission; returns its entry {student, file, seconds, outcome}.
local function grade_one(i, s)
  local e = { student = s.student, file = s.file:match("[^/]*$") }
  if s.problem then
    e.outcome = { verdict = "no kernel", built = false, correct = false, oob = false, timed_out = false,
      message = s.problem }
    e.seconds = 0
    return e
  end
  local j, log, err = logs .. "/" .. s.student .. ".json", logs .. "/" .. s.student .. ".log",
    logs .. "/" .. s.student .. ".err"
  os.remove(j)
  local cmd = { "timeout", "-k", "10", tostring(wall), sh(clua), sh(script), "--kernel", sh(s.file),
    "--timeout", tostring(args.timeout), "--json", sh(j) }
  if args.kernel_name then cmd[#cmd + 1] = "--kernel-name " .. sh(args.kernel_name) end
  if args.device then cmd[#cmd + 1] = "--device " .. sh(args.device) end
  if args.recipe_options ~= "" then cmd[#cmd + 1] = args.recipe_options end
  io.stderr:write(("[%d/%d] %s ..."):format(i, #subs, e.student == e.file:gsub("%.cl$", "") and e.file
    or ("%s (%s)"):format(e.student, e.file)))
  local t0 = require("cl").now()
  local _, _, code = os.execute(table.concat(cmd, " ") .. " > " .. sh(log) .. " 2> " .. sh(err))
  e.seconds = (require("cl").now() - t0) / 1e9
  local text = read(j)
  local doc = text and json.decode(text)
  e.outcome = gradebook.outcome(code, read(err) or "", doc)
  e.doc = doc
  local o = e.outcome
  io.stderr:write((" %s%s\n"):format(o.verdict, o.correct and o.time and (", %.1f µs"):format(o.time / 1e3)
    or (o.message and (": " .. o.message:sub(1, 100)) or "")))
  return e
end

local entries = {}
for i, s in ipairs(subs) do entries[i] = grade_one(i, s) end

-- Recorded once: the device, driver and clua of the runs (from the first
-- JSON, else this process's device), the options and the data.
local meta = { recipe = args.recipe, clua = recipe.version(), date = os.date("!%Y-%m-%dT%H:%M:%SZ"),
  options = ("--timeout %s --wall %s %s"):format(args.timeout, wall, args.recipe_options),
  data = "the recipe's own fixed seeds: every submission gets the same data" }
for _, e in ipairs(entries) do
  local t = e.doc and e.doc.tables and e.doc.tables[1]
  if t and t.meta then meta.device, meta.driver, meta.platform = t.meta.device, t.meta.driver, t.meta.platform; break end
end
if not meta.device then
  local ok, cl = pcall(require, "cl")
  local d = ok and cl.device(args.device)
  if d then meta.device, meta.driver = d.name, d.info.driver_version end
end

local t = gradebook.table(entries, meta)
t:note(gradebook.summary(entries))
t:note("rank: the correct submissions by median time (1 = fastest); speed-up: the recipe's own fastest "
  .. "kernel of the same table / the submission's time")
t:note(("each submission ran alone: clua recipes/%s.lua --kernel FILE --timeout %s %s, killed after %s s; "
  .. "logs in %s/"):format(args.recipe, args.timeout, args.recipe_options, wall, logs))

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end
write(args.out .. ".csv", report.csv(t))
write(args.out .. ".json", report.json(t, { grader = "clua recipes/grade.lua" }))
local md = { "# Gradebook: " .. args.recipe, "" }
for _, kv in ipairs(t:meta_list()) do md[#md + 1] = ("- %s: %s"):format(kv[1], kv[2]) end
md[#md + 1] = ""
local lb = report.new{ title = "Leaderboard", id = "leaderboard", columns = t.columns }
local sorted = {}
for _, row in ipairs(t.rows) do sorted[#sorted + 1] = row end
table.sort(sorted, function(a, b)
  if a.rank and b.rank then return a.rank < b.rank end
  if a.rank or b.rank then return a.rank ~= nil end
  return a.student < b.student
end)
lb.rows, lb.notes = sorted, t.notes
md[#md + 1] = report.markdown(lb)
write(args.out .. ".md", table.concat(md, "\n") .. "\n")
io.stderr:write(gradebook.summary(entries), "\n")
io.stderr:write(("grade: wrote %s.csv, %s.json, %s.md\n"):format(args.out, args.out, args.out))
io.stdout:write(report.text(lb))
