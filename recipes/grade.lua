-- grade: a folder of submissions, one gradebook. Each submission (a .cl
-- file, a folder per student, or a git repository per student) runs in its
-- own process,
--   clua recipes/RECIPE.lua --kernel FILE --timeout S --json J [recipe options]
-- under a wall-clock limit, so that a kernel that never ends, a driver crash
-- or a segfault costs one row of the gradebook, never the run. The recipe's
-- options are checked once, before anything is graded. A rubric gives each
-- submission a score and says how; a deadline marks late ones; every student
-- gets a feedback file; pairs of kernels that are the same code are listed as
-- a hint; a course file grades several assignments in one run. Writes
-- STEM.csv, STEM.json, STEM.md, STEM-moodle.csv, STEM-canvas.csv,
-- STEM-feedback/ and STEM-logs/ (docs/assignments.md).
--   clua recipes/grade.lua --recipe reduction --submissions DIR [--rubric FILE] [--deadline T]
--   clua recipes/grade.lua --course COURSE.lua --submissions DIR
-- The grading itself is clua.grader (lua/clua/grader.lua); what stops it (a
-- file it cannot write: a full disk) is said on one line, status 2.
local ok, err = pcall(require("clua.grader").main, arg, arg[0]:match("^(.*)/[^/]*$") or ".")
if not ok then
  io.stderr:write("grade: ", require("clua.escape").terminal(tostring(err)), "\n")
  os.exit(2)
end
