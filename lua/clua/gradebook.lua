--- clua.gradebook: what recipes/grade.lua makes of one submission's run, and
-- the gradebook of a class: a row per submission (verdict, score, time,
-- rank, a one-line reason), as clua.tablemodel tables (CSV, JSON, Markdown, the
-- compact terminal table). Scores come from clua.rubric, feedback files from
-- clua.feedback, similarity hints from clua.similarity, course-system
-- exports from clua.lms.
--
-- A submission runs as `clua recipes/RECIPE.lua --kernel FILE --json J` in
-- its own process; `gradebook.outcome` reads its exit status, its stderr and
-- its JSON and says what happened: correct (with its time), wrong (the first
-- wrong element, with what it got and what was expected), out of bounds (a
-- write outside the part of an output it owns, named by its index, or past
-- an allocation, by its offset), changed its input (a write into a buffer
-- it may only read, named by its index), too fast (above what the device can do:
-- flagged, not ranked), did not build (the compiler's log), timed out, or
-- crashed.
-- @module clua.gradebook
local tablemodel = require("clua.tablemodel")
local escape = require("clua.escape")

local gradebook = {}

--- The verdicts, from best to worst.
gradebook.VERDICTS = { "correct", "too fast", "wrong", "unsafe", "out of bounds", "changed its input", "did not build",
  "timed out", "crashed", "no kernel", "not graded" }

local function first_line(s) return (s or ""):match("[^\n]+") or "" end

--- A string cut to `n` characters (UTF-8), with "…" where it was cut.
function gradebook.cut(s, n)
  s = tostring(s or ""):gsub("%s+", " ")
  if (utf8.len(s) or #s) <= n then return s end
  return s:sub(1, (utf8.offset(s, n) or n + 1) - 1) .. "…"
end

-- The student's message from a recipe's stderr ("recipe NAME: message"),
-- less the Lua location of the call that raised it.
local function recipe_error(err)
  local msg = err:match("recipe [%w_]+: ([^\n]*)") or first_line(err)
  return (msg:gsub("^[^%s:]+%.lua:%d+: ", ""))
end

-- The compiler's log in a build failure: the lines from the first error or warning.
local function build_log(err)
  local out = {}
  for l in err:gmatch("[^\n]+") do
    if l:match("error") or l:match("warning") or #out > 0 then out[#out + 1] = l end
    if #out >= 40 then break end
  end
  if #out == 0 then out[1] = recipe_error(err) end
  return table.concat(out, "\n")
end

-- The first error of a build log as "line L:C: message", in either form a
-- compiler's log takes: "FILE:L:C: error: message" (clang's own, NVIDIA's)
-- or "error: FILE:L:C: message" (PoCL's); nil when it names no line.
local function first_error(log)
  for l in log:gmatch("[^\n]+") do
    local at, msg = l:match("^error: .-:(%d+:%d+): (.+)$")
    if not at then at, msg = l:match(":(%d+:%d+): [%a ]-error: (.+)$") end
    if at then return ("line %s: %s"):format(at, msg) end
  end
end

local function is_student(row)
  for _, v in pairs(row) do if type(v) == "string" and v:match("^student: ") then return true end end
  return false
end

-- The student's rows of a recipe's JSON tables.
local function student_rows(doc)
  local found = {}
  for _, t in ipairs(doc and doc.tables or {}) do
    for _, row in ipairs(t.rows or {}) do
      if is_student(row) then found[#found + 1] = { table = t, row = row } end
    end
  end
  return found
end

-- The time column of a table: the first holding nanoseconds, else the first named "time".
local function time_column(t)
  for _, c in ipairs(t.columns) do if c.unit == "ns" then return c.name end end
  for _, c in ipairs(t.columns) do if c.name == "time" then return c.name end end
end

local function bandwidth_column(t)
  for _, c in ipairs(t.columns) do
    if c.unit and c.unit:match("B/s$") and not c.name:match("%%") then return c.name end
  end
end

local function key_of(t, row)
  local key = t.columns[1] and t.columns[1].name
  return key and tostring(row[key]) or "?"
end

-- The first wrong element of a verification message, as one line:
-- "out[511] (first launch, n = 261887): got 2.57e+32, expected 128.49".
local function first_wrong(msg)
  local what, f, got, exp = msg:match("verify (.-): %d+ of %d+ elements differ.-first at index (%d+): got ([^,]+), expected ([^;\n]+)")
  if what then
    what = what:gsub("^student: [^,]*, ", ""):gsub("^student: [^:]*$", "")
    local ctx, buf, lo = what:match("^(.*): ([^:]-)%[(%d+) %.%. %d+%)$")
    local at, tail
    if buf then at, tail = ("%s[%d]"):format(buf, tonumber(lo) + tonumber(f)), ctx ~= "" and (" (" .. ctx .. ")") or ""
    else at, tail = "element " .. f, what ~= "" and (" of " .. what) or "" end
    return { where = at .. tail, got = got, expected = exp, text = ("%s: got %s, expected %s%s"):format(at, got, exp, tail) }
  end
  local w2, g2, e2 = msg:match("verify (.-): got ([^,]+), expected (.-) %(tolerance")
  if w2 then
    w2 = w2:gsub("^student: [^,]*, ", ""):gsub("^student: [^:]*: ", "")
    return { where = w2, got = g2, expected = e2, text = ("%s: got %s, expected %s"):format(w2, g2, e2) }
  end
end

--- What one run says: a table {verdict=, built=, correct=, oob=, changed_input=, timed_out=,
-- too_fast=, reason= (one line), message= (the whole), first_wrong= ({where=,
-- got=, expected=, text=}), build_log=, time=, min=, max=, spread=,
-- bandwidth=, reference= (the recipe's fastest kernel for the same job),
-- reference_time=, speedup=, kernels= (the recipe's rows: {name=, time=})}.
-- @int code the process's exit status (124/137: killed by the wall-clock limit; >128: a signal)
-- @string err its stderr
-- @tab[opt] doc its decoded --json (nil when none was written)
function gradebook.outcome(code, err, doc)
  err = err or ""
  local o = { built = true, correct = false, oob = false, changed_input = false, timed_out = false, too_fast = false }
  local msg = recipe_error(err)
  if code == 0 and doc then
    local rows = student_rows(doc)
    if #rows == 0 then
      o.verdict, o.message = "no kernel", "the recipe ran but no row of the student's kernel was found"
      o.reason = o.message
      return o
    end
    -- the student's best row (a sweep has several), and the recipe's own
    -- kernels of that table: those ranked beside it (a reference such as a
    -- copy kernel is not ranked, and is no reduction), else every other row
    local best, bt
    for _, x in ipairs(rows) do
      local tc = time_column(x.table)
      local v = tc and x.row[tc]
      if type(v) == "number" and (not best or v < best.row[time_column(best.table)]) then best, bt = x, tc end
    end
    o.verdict, o.correct = "correct", true
    if best then
      local r, t = best.row, best.table
      o.time, o.min, o.max, o.spread = r[bt], r.min, r.max, r.spread
      local bc = bandwidth_column(t)
      o.bandwidth = bc and r[bc]
      local ranked = false
      for _, row in ipairs(t.rows) do if not is_student(row) and row.rank then ranked = true end end
      o.kernels = {}
      for _, row in ipairs(t.rows) do
        local v = row[bt]
        if not is_student(row) and type(v) == "number" then
          local name = key_of(t, row)
          local same_job = (ranked and row.rank ~= nil) or (not ranked and not name:match("reference"))
          o.kernels[#o.kernels + 1] = { name = name, time = v, reference = not same_job }
          if same_job and (not o.reference_time or v < o.reference_time) then o.reference_time, o.reference = v, name end
        end
      end
      if o.reference_time and o.time and o.time > 0 then o.speedup = o.reference_time / o.time end
    end
    o.reason = o.time and ("%.1f µs%s"):format(o.time / 1e3, o.speedup and (", %.2fx the recipe's best"):format(o.speedup) or "") or ""
    return o
  end
  o.message = msg
  if code == 124 or code == 137 then
    o.verdict, o.timed_out = "timed out", true
    o.message = "killed at the wall-clock limit"
    o.reason = o.message
  elseif err:match("timed out after") then
    o.verdict, o.timed_out = "timed out", true
    local secs = msg:match("timed out after ([%d.]+ s)")
    o.reason = secs and ("a launch did not end within " .. secs) or gradebook.cut(msg, 70)
  elseif err:match("written outside the part the kernel owns") then
    o.verdict, o.oob = "out of bounds", true
    local at, part = msg:match("(%S+%[%d+%]) written outside the part the kernel owns %(([^%s]+%[%d+ %.%. %d+%))")
    o.reason = at and ("writes %s, outside its part %s"):format(at, part) or gradebook.cut(msg, 70)
  elseif err:match("an input changed") then
    o.verdict, o.changed_input = "changed its input", true
    -- guard: "student: in: an input changed: 1 of 16 elements, the first at index 3 (99.0, was 3.0)";
    -- harness: "LABEL: in: an input changed: 1 of 16 elements, the first in[3] (99.0, was 3.0)"
    local buf, nbad, total, rest = msg:match("([^%s:]+): an input changed: (%d+) of (%d+) elements, the first ([^)]+%))")
    local at, now, was = rest and (rest:match("^at index (%d+)") or rest:match("%[(%d+)%]")), nil, nil
    if rest then now, was = rest:match("%(([^,]+), was ([^)]+)%)") end
    o.reason = buf and at and ("writes its input %s: %s of %s elements changed, the first %s[%s] (%s, was %s)"):format(
      buf, nbad, total, buf, at, now, was) or gradebook.cut(msg, 70)
  elseif err:match("written at offset") then
    o.verdict, o.oob = "out of bounds", true
    local buf, bytes, off, where = msg:match("student: ([^:]+): (%d+) bytes written at offset (%d+), ([^(]+)")
    o.reason = buf and ("writes %s bytes at offset %s of %s, %s"):format(bytes, off, buf, where:gsub("%s+$", ""))
      or gradebook.cut(msg, 70)
  elseif err:match("program:build") or err:match("clBuildProgram") or err:match("%-%-kernel [^:]+: no kernel")
    or err:match("cannot open kernel file") or err:match("more than one kernel") then
    o.verdict, o.built = "did not build", false
    o.build_log = build_log(err)
    o.reason = first_error(o.build_log) or gradebook.cut(first_line(o.build_log), 70)
  elseif err:match("not a result") then
    o.verdict, o.too_fast = "too fast", true
    o.reason = "faster than the device can go: " .. gradebook.cut(msg:match("[%d.]+ G[Bo][p/]s.*") or msg, 50)
  elseif err:match("verify ") or err:match("differ") or err:match("expected") then
    o.verdict = "wrong"
    o.first_wrong = first_wrong(err)
    o.reason = o.first_wrong and o.first_wrong.text or gradebook.cut(msg, 70)
  elseif code and code > 128 then
    o.verdict = "crashed"
    o.message = ("signal %d: %s"):format(code - 128, msg)
    o.reason = o.message
  else
    o.verdict = "crashed"
    o.reason = msg
  end
  return o
end

--- Ranks the entries whose outcome is correct (and timed) by time, 1 the
-- fastest; a difference within the noise (the larger of the two spreads,
-- (max - min) / median, and `floor` %), or between runs whose ranges of
-- times overlap, is no difference: such entries share a rank (1, 1, 3).
-- (Kernels of 20 µs on a GPU, launch-bound: twenty copies of one kernel
-- had medians up to 30 % apart with overlapping ranges.) Sets `e.rank` and
-- `e.tied`; returns the ranked entries.
-- @tab entries {outcome=...}
-- @number[opt=0] floor the smallest difference in % that counts
function gradebook.rank(entries, floor)
  floor = floor or 0
  local list = {}
  for _, e in ipairs(entries) do
    e.rank, e.tied = nil, nil
    if e.outcome.verdict == "correct" and e.outcome.time then list[#list + 1] = e end
  end
  table.sort(list, function(a, b) return a.outcome.time < b.outcome.time end)
  local leader
  for i, e in ipairs(list) do
    local o = e.outcome
    if leader then
      local lo = leader.outcome
      local noise = math.max(lo.spread or 0, o.spread or 0, floor)
      if o.time <= lo.time * (1 + noise / 100) or (o.min and lo.max and o.min <= lo.max) then
        e.rank, e.tied, leader.tied = leader.rank, true, true
      end
    end
    if not e.rank then e.rank, leader = i, e end
  end
  return list
end

local function us(v) return ("%.1f"):format(v / 1e3) end

--- The whole gradebook of one assignment (CSV and JSON): a row per entry
-- ({student=, file=, seconds=, outcome=, score=, max=, lines=, late_days=,
-- submitted=, rank=}).
function gradebook.table(entries, meta, title)
  local t = tablemodel.new{ title = title or "Gradebook", id = "gradebook", meta = meta,
    columns = {
      { name = "student", key = true }, { name = "file" }, { name = "verdict" },
      { name = "score", format = "%.2f" }, { name = "max", format = "%.2f" },
      { name = "rank", format = "%d" },
      { name = "time", unit = "µs", ns = true, format = us },
      { name = "time min", unit = "µs", ns = true, format = us },
      { name = "time max", unit = "µs", ns = true, format = us },
      { name = "spread", unit = "%", format = "%.1f" }, { name = "noisy" },
      { name = "bandwidth", unit = "GB/s", format = "%.1f" },
      { name = "speed-up", unit = "x", format = "%.2f" }, { name = "against" },
      { name = "built" }, { name = "correct" }, { name = "out of bounds" }, { name = "changed input" }, { name = "timed out" },
      { name = "too fast" }, { name = "late days", format = "%d" }, { name = "submitted" },
      { name = "first wrong" }, { name = "reason" }, { name = "rubric" }, { name = "message" }, { name = "build log" },
      { name = "seconds", format = "%.1f" },
    } }
  local yes = function(b) return b and "yes" or "no" end
  for _, e in ipairs(entries) do
    local o = e.outcome
    t:add{ student = e.student, file = e.file, verdict = o.verdict, score = e.score, max = e.max, rank = e.rank,
      time = o.time, ["time min"] = o.min, ["time max"] = o.max, spread = o.spread,
      noisy = o.spread and yes(o.spread > 10) or nil, bandwidth = o.bandwidth,
      ["speed-up"] = o.speedup, against = o.speedup and o.reference or nil,
      built = yes(o.built), correct = yes(o.correct), ["out of bounds"] = yes(o.oob),
      ["changed input"] = yes(o.changed_input),
      ["timed out"] = yes(o.timed_out), ["too fast"] = yes(o.too_fast), ["late days"] = e.late_days,
      submitted = e.submitted, ["first wrong"] = o.first_wrong and o.first_wrong.text or nil,
      reason = o.reason, rubric = e.lines and table.concat(e.lines, "; ") or nil,
      message = not o.correct and o.message or nil, ["build log"] = o.build_log, seconds = e.seconds }
  end
  return t
end

--- The compact table for the terminal: student (its control characters
-- shown as escapes, clua.escape.terminal, so that two names stay apart),
-- verdict, score, time, rank (with "=" for a tie within the noise) and a
-- one-line reason.
function gradebook.compact(entries, title)
  local t = tablemodel.new{ title = title or "Gradebook", id = "leaderboard", columns = {
    { name = "student", key = true }, { name = "verdict" }, { name = "score" },
    { name = "time", unit = "µs", format = us }, { name = "rank" }, { name = "reason" } } }
  local sorted = gradebook.sorted(entries)
  for _, e in ipairs(sorted) do
    local o = e.outcome
    t:add{ student = gradebook.cut(escape.terminal(e.student), 24), verdict = o.verdict .. ((e.late_days or 0) > 0 and ", late" or ""),
      score = e.score and ("%s/%s"):format(gradebook.pts(e.score), gradebook.pts(e.max)) or nil,
      time = o.time, rank = e.rank and (tostring(e.rank) .. (e.tied and "=" or "")) or nil,
      reason = gradebook.cut(o.reason, 64) }
  end
  return t
end

--- A number of points as text: 3, 2.5, 0.33.
function gradebook.pts(v) return (("%.2f"):format(v):gsub("%.?0+$", "")) end

--- The entries, ranked first (by rank), then the others by student.
function gradebook.sorted(entries)
  local s = table.move(entries, 1, #entries, 1, {})
  table.sort(s, function(a, b)
    if a.rank and b.rank and a.rank ~= b.rank then return a.rank < b.rank end
    if (a.rank ~= nil) ~= (b.rank ~= nil) then return a.rank ~= nil end
    return a.student < b.student
  end)
  return s
end

--- One line: "9 submissions: 3 correct, 1 wrong, ...; fastest: r01 (1.8 ms)".
function gradebook.summary(entries)
  local count = {}
  for _, e in ipairs(entries) do count[e.outcome.verdict] = (count[e.outcome.verdict] or 0) + 1 end
  local parts = {}
  for _, v in ipairs(gradebook.VERDICTS) do
    if count[v] then parts[#parts + 1] = ("%d %s"):format(count[v], v) end
  end
  local best
  for _, e in ipairs(entries) do
    if e.outcome.verdict == "correct" and e.outcome.time and (not best or e.outcome.time < best.outcome.time) then best = e end
  end
  return ("%d submission%s: %s%s"):format(#entries, #entries == 1 and "" or "s",
    #parts > 0 and table.concat(parts, ", ") or "none",
    best and ("; fastest: %s (%.1f µs)"):format(best.student, best.outcome.time / 1e3) or "")
end

return gradebook
