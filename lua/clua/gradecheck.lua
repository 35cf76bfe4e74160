--- clua.gradecheck: the grader's check of a submission. Before it is timed,
-- each submission runs under clua.checker (Oclgrind, its checks on) at the
-- recipe's check size (`--check-size`): a data race, barrier divergence, an
-- out-of-bounds access or an undefined value read makes the verdict
-- `unsafe`, whatever the device said, named with the kernel file's line; a
-- run that does not end within the wall-clock limit is `timed out`.
-- `clua grade --no-check` leaves the check out. docs/assignments.md.
-- @module clua.gradecheck
local checker = require "clua.checker"
local gradebook = require "clua.gradebook"

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
  local faults, oob = {}, false
  for _, f in ipairs(r.findings) do
    if checker.is_fault(f) then
      faults[#faults + 1] = checker.describe(f)
      oob = oob or f.kind:match("^out%-of%-bounds") ~= nil
    end
  end
  if #faults == 0 then return nil end
  return { verdict = "unsafe", unsafe = true, built = true, correct = false, oob = oob, timed_out = false,
    too_fast = false, findings = faults, reason = gradebook.cut(faults[1], 200),
    message = checker.format(r.findings, r) }
end

--- Checks one submission; nil, 0 when the check is off (`off`) or Oclgrind
-- is not installed (said once on the standard error).
-- @tab c `script` (the recipe), `file` (the kernel), `kernel_name`,
-- `options` (the recipe's, a string), `clua`, `wall` (s), `log` (the stem of
-- the run's logs: STEM.log, STEM.err), `timeout` (the recipe's --timeout), `off`
-- @treturn tab|nil the outcome (`gradecheck.outcome`)
-- @treturn number seconds the check took (which count against the run's wall)
function gradecheck.submission(c)
  if c.off then return nil, 0 end
  if not checker.available() then
    if not gradecheck.warned then
      io.stderr:write("grade: oclgrind is not installed: submissions are not checked (apt-get install oclgrind)\n")
      gradecheck.warned = true
    end
    return nil, 0
  end
  local args = { "--kernel", c.file, "--check-size", "--timeout", tostring(c.timeout or 60) }
  if c.kernel_name then args[#args + 1] = "--kernel-name"; args[#args + 1] = c.kernel_name end
  local r = checker.run(c.script, args, { clua = c.clua, wall = c.wall, raw = c.options, stdout = c.log .. ".log",
    stderr = c.log .. ".err" })
  return gradecheck.outcome(r, c.wall), r.seconds
end

return gradecheck
