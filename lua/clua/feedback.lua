--- clua.feedback: the Markdown file a student gets back from the grader:
-- verdict and score, the first wrong element (expected and got), the build
-- log with the lines of their file it points at, their time against the
-- class and the recipe's own kernels, and the rubric's lines. Every text in
-- it that comes from the submission (its name, its file's name, the
-- compiler's log, the lines of its source) is escaped (clua.escape): as
-- Markdown text, inline code or an indented code block, so that whatever a
-- course system renders it with, nothing in it acts as HTML.
-- @module clua.feedback
local escape = require("clua.escape")

local feedback = {}

local function text(s) return escape.markdown((tostring(s):gsub("[\r\n]+", " "))) end
local code = escape.md_code

local function us(v) return ("%.1f µs"):format(v / 1e3) end

-- The compiler's log with, under each "FILE:LINE:COL: error", that line of
-- the student's source and a caret.
local function annotate(log, source)
  local lines = {}
  for l in (source or ""):gmatch("([^\n]*)\n?") do lines[#lines + 1] = l end
  local out = {}
  for l in log:gmatch("[^\n]+") do
    out[#out + 1] = l
    local ln, col = l:match(":(%d+):(%d+): ")
    ln, col = tonumber(ln), tonumber(col)
    if ln and lines[ln] then
      local line = lines[ln]
      if #line > 300 then line = line:sub(1, (utf8.offset(line, 240) or 241) - 1) .. " …" end -- a bounded quote
      out[#out + 1] = ("  %4d | %s"):format(ln, line)
      out[#out + 1] = ("       | %s^"):format((" "):rep(math.max(0, col - 1)))
    end
  end
  return table.concat(out, "\n")
end

--- One student's feedback for one assignment.
-- @tab e the entry (student, file, outcome, score, max, lines, rank, tied, late_days, submitted)
-- @tab ctx `assignment` (its name), `recipe`, `ranked` (how many were ranked),
-- `times` (the class's correct times, ns, sorted), `source` (the kernel's text), `deadline`
-- @treturn string Markdown
function feedback.markdown(e, ctx)
  local o = e.outcome
  local md = { ("# %s: %s"):format(text(ctx.assignment or ctx.recipe), escape.markdown(e.student)), "" }
  local function add(s) md[#md + 1] = s end
  add(("- kernel: %s (graded with %s)"):format(code(e.file), code("recipes/" .. ctx.recipe .. ".lua")))
  add(("- verdict: **%s**"):format(text(o.verdict)))
  if e.score then add(("- score: **%s of %s**"):format(text(e.score_text or e.score), text(e.max_text or e.max))) end
  if e.submitted then
    add(("- submitted: %s%s"):format(text(e.submitted), (e.late_days or 0) > 0
      and (", **%d day%s late** (deadline %s)"):format(e.late_days, e.late_days == 1 and "" or "s",
        text(ctx.deadline or "?"))
      or (ctx.deadline and (", on time (deadline %s)"):format(text(ctx.deadline)) or "")))
  end
  add("")
  if o.reason and o.reason ~= "" then add("**Why:** " .. text(o.reason)); add("") end
  if o.notes then
    for _, n in ipairs(o.notes) do add("- " .. text(n)) end
    add("")
  end
  if o.first_wrong then
    add("## The first wrong value")
    add("")
    add(("- where: %s"):format(text(o.first_wrong.where)))
    add(("- expected: %s"):format(code(o.first_wrong.expected)))
    add(("- got: %s"):format(code(o.first_wrong.got)))
    add("")
  end
  if o.findings then
    add("## What the checker found")
    add("")
    add("Your kernel ran on Oclgrind, an OpenCL device simulator that checks every access (`clua check`; "
      .. "docs/tutorial.md). Whatever a device computed, these make the result a matter of luck:")
    add("")
    for _, f in ipairs(o.findings) do add("- " .. f) end
    add("")
  end
  if o.build_log then
    add("## Build log")
    add("")
    add(escape.md_block(annotate(o.build_log, ctx.source)))
    add("")
  end
  if o.message and not o.correct and not o.build_log and not o.findings then
    add("## The grader's message")
    add("")
    add(escape.md_block(o.message))
    add("")
  end
  if o.time then
    add("## Time")
    add("")
    add(("- yours: %s (median; %s to %s%s)"):format(us(o.time), o.min and us(o.min) or "?", o.max and us(o.max) or "?",
      o.spread and (", spread %.1f%%%s"):format(o.spread, o.spread > 10 and ": noisy" or "") or ""))
    local times = ctx.times or {}
    if #times > 0 then
      add(("- the class: fastest %s, median %s, slowest %s (%d correct)"):format(us(times[1]),
        us(times[(#times + 1) // 2]), us(times[#times]), #times))
    end
    if e.rank then add(("- rank: %d of %d%s"):format(e.rank, ctx.ranked or #times, e.tied and " (tied: within the noise)" or "")) end
    if o.reference then
      add(("- against the recipe's fastest kernel for the same job, %s: %s, a speed-up of %.2fx"):format(
        text(o.reference), us(o.reference_time), o.speedup))
    end
    for _, k in ipairs(o.kernels or {}) do
      add(("  - %s: %s%s"):format(text(k.name), us(k.time), k.reference and " (a reference, not the same job)" or ""))
    end
    add("")
  end
  if e.lines then
    add("## Rubric")
    add("")
    for _, l in ipairs(e.lines) do add("- " .. text(l)) end
    add("")
  end
  return table.concat(md, "\n")
end

return feedback
