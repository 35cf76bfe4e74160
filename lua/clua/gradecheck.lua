--- clua.gradecheck: the grader's check of a submission. Before it is timed,
-- each submission runs under clua.checker (Oclgrind, its checks on) at the
-- recipe's check size (`--check-size`): a data race, barrier divergence, an
-- out-of-bounds access or an undefined value read makes the verdict
-- `unsafe`, whatever the device said, named with the kernel file's line; a
-- run that does not end within the wall-clock limit is `timed out`.
-- The check runs as the timed runs do (clua.runner): in the sandbox unless
-- --no-sandbox, under the wall-clock limit, its output capped; Oclgrind's
-- log in a folder the box writes and the grader reads after it.
-- `clua grade --no-check` leaves the check out. docs/assignments.md.
-- @module clua.gradecheck
local checker = require("clua.checker")
local gradebook = require("clua.gradebook")
local paths = require("clua.paths")
local files = require("clua.files")

local gradecheck = {}

--- The outcome a check gives, or nil when it found no fault of the kernel
-- (the timed run then says the rest: a kernel that does not build, a wrong
-- result).
-- @tab r `checker.run`'s result
-- @number wall the run's limit (s)
-- @treturn tab|nil an outcome as `gradebook.outcome`'s, with `unsafe` and
-- `findings` (one line each)
function gradecheck.outcome(r, wall)
  if r.timed_out then
    local m = ("under the checker (Oclgrind, --check-size), the run did not end within the wall-clock limit "
      .. "(%s s)"):format(wall)
    return { verdict = "timed out", built = true, correct = false, oob = false, timed_out = true, too_fast = false,
      reason = m, message = m }
  end
  local faults, oob, how = {}, false, {}
  for _, f in ipairs(r.findings) do
    if checker.is_fault(f) then
      faults[#faults + 1] = checker.describe(f)
      local rw = f.kind:match("^out%-of%-bounds (%a+)")
      oob = oob or rw ~= nil
      if rw then how[rw] = true end
    end
  end
  if #faults == 0 then return nil end
  -- what the rubric's penalty says: the accesses past a buffer the checker saw
  local oob_why = oob and (((how.read and how.write) and "reads and writes" or how.read and "reads"
    or how.write and "writes" or "accesses") .. " past a buffer (the checker's finding)") or nil
  return { verdict = "unsafe", unsafe = true, built = true, correct = false, oob = oob, oob_why = oob_why, timed_out = false,
    too_fast = false, findings = faults, reason = gradebook.cut(faults[1], 200),
    message = checker.format(r.findings, r) }
end

--- Whether the checks can run: Oclgrind installed; where it is not, said
-- once on the standard error (the submissions are then not checked).
-- @treturn bool
function gradecheck.available()
  if checker.available() then return true end
  if not gradecheck.warned then
    io.stderr:write("grade: oclgrind is not installed: submissions are not checked (apt-get install oclgrind)\n")
    gradecheck.warned = true
  end
  return false
end

--- The check in a line, for the gradebook's record.
-- @bool on the check was asked for (no --no-check)
-- @bool ran Oclgrind is installed and ran (`gradecheck.probe`)
-- @bool boxed the runs were in the sandbox
-- @treturn string
function gradecheck.describe(on, ran, boxed)
  if not on then return "none (--no-check)" end
  if not ran then return "none: oclgrind is not installed" end
  return ("Oclgrind, every submission at the recipe's --check-size before it was timed, %s"):format(boxed
    and "in the sandbox, its output capped as the runs'" or "without the sandbox (--no-sandbox), its output capped")
end

-- The check's run through the grader's runner (clua.runner): in its box
-- unless --no-sandbox, under its wall, each stream capped; Oclgrind's log and
-- the map in the runner's scratch folder, which the box can write; the
-- seconds it ran (clua.pool: not its wait for its turn).
local function through(box, submission)
  return function(cmd)
    local code, printed = box:exec{ command = cmd.command, raw = cmd.raw, env = cmd.env, rw = { cmd.dir },
      chdir = cmd.dir, submission = submission, log = cmd.stdout, err = cmd.stderr, wall = cmd.wall }
    return code, printed.seconds
  end
end

--- Whether Oclgrind runs clua as the grader's checks will (through the
-- runner `box`: in the sandbox unless --no-sandbox), tried once before
-- grading: clua must see Oclgrind's device. In the box, only /usr of this
-- machine's programs is seen: an Oclgrind installed elsewhere is not there.
-- @tparam clua.runner box the grader's runner
-- @treturn[1] true
-- @treturn[2] nil
-- @treturn[2] string why not
function gradecheck.probe(box)
  local dir = box:scratch()
  local log, err = box.work .. "/probe.log", box.work .. "/probe.err"
  local cmd = checker.command({ box.clua, "-e", 'io.write("device: ", require("cl").device().name, "\\n")' },
    dir .. "/oclgrind.log", dir .. "/check.map", dir .. "/check.rules")
  local code = box:exec{ command = cmd.command, env = cmd.env, rw = { dir }, chdir = dir, log = log, err = err,
    wall = 60 }
  local out, text = files.read(log) or "", files.read(err) or ""
  box:clear()
  os.remove(log)
  os.remove(err)
  if code == 0 and out:find("device: Oclgrind", 1, true) then return true end
  local msg = (text .. out):gsub("%s+$", ""):match("([^\n]*)$")
  local where = paths.which("oclgrind") or "oclgrind"
  return nil, ("oclgrind (%s) did not run clua%s: %s (exit %s)%s"):format(where,
    box.sandboxed and " in the sandbox" or "", msg ~= "" and msg or "no message", tostring(code),
    box.sandboxed and not (paths.real(where) or where):match("^/usr/")
      and "; the sandbox shows only /usr of this machine's programs: install Oclgrind under /usr or /usr/local" or "")
end

--- Checks one submission; nil, 0 when the check is off (`off`) or Oclgrind
-- is not installed (said once on the standard error).
-- @tab c `script` (the recipe), `file` (the kernel), `kernel_name`,
-- `options` (the recipe's, a string), `wall` (s), `log` (the stem of
-- the run's logs: STEM.log, STEM.err, each capped), `timeout` (the recipe's
-- --timeout), `off`, `box` (the grader's runner: the check runs as its runs
-- do, in the sandbox unless --no-sandbox)
-- @treturn tab|nil the outcome (`gradecheck.outcome`)
-- @treturn number seconds the check took (which count against the run's wall)
function gradecheck.submission(c)
  if c.off or not gradecheck.available() then return nil, 0 end
  -- absolute paths: the box starts in a folder of its own
  local file = paths.absolute(c.file)
  local args = { "--kernel", file, "--check-size", "--timeout", tostring(c.timeout or 60) }
  if c.kernel_name then args[#args + 1] = "--kernel-name"; args[#args + 1] = c.kernel_name end
  local r = checker.run(paths.absolute(c.script), args, { clua = c.box.clua, wall = c.wall, raw = c.options,
    stdout = c.log .. ".log", stderr = c.log .. ".err", dir = c.box:scratch(), exec = through(c.box, file) })
  c.box:clear()
  -- the kernel named as the grader was given it
  for _, f in ipairs(r.findings) do
    if f.file == file then f.file = c.file end
    if f.also and f.also.file == file then f.also.file = c.file end
  end
  return gradecheck.outcome(r, c.wall), r.seconds
end

return gradecheck
