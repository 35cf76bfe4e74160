--- clua.gradebook: what recipes/grade.lua makes of one submission's run, and
-- the gradebook of a class: a row per submission, ranks, speed-ups, the
-- summary, as a clua.report table (CSV, JSON, Markdown).
--
-- A submission runs as `clua recipes/RECIPE.lua --kernel FILE --json J` in
-- its own process; `gradebook.outcome` reads its exit status, its stderr and
-- its JSON and says what happened: correct (with its time), wrong (the first
-- wrong element), out of bounds (the buffer, offset and bytes), did not build
-- (the compiler's first lines), timed out, or crashed.
-- @module clua.gradebook
local report = require "clua.report"

local gradebook = {}

--- The verdicts, from best to worst.
gradebook.VERDICTS = { "correct", "wrong", "out of bounds", "did not build", "timed out", "crashed", "no kernel" }

local function first_line(s) return (s or ""):match("[^\n]+") or "" end

-- The student's message from a recipe's stderr ("recipe NAME: message"),
-- less the Lua location of the call that raised it.
local function recipe_error(err)
  local msg = err:match("recipe [%w_]+: ([^\n]*)") or first_line(err)
  return (msg:gsub("^[^%s:]+%.lua:%d+: ", ""))
end

-- The first lines of the compiler's log in a build failure.
local function build_excerpt(err, lines)
  local out = {}
  for l in err:gmatch("[^\n]+") do
    if l:match("error") or l:match("warning") or #out > 0 then out[#out + 1] = l end
    if #out >= (lines or 3) then break end
  end
  if #out == 0 then out[1] = recipe_error(err) end
  return table.concat(out, " | ")
end

-- The student's rows of a recipe's JSON tables: rows with a value "student: ...".
local function student_rows(doc)
  local found = {}
  for _, t in ipairs(doc and doc.tables or {}) do
    for _, row in ipairs(t.rows or {}) do
      for _, v in pairs(row) do
        if type(v) == "string" and v:match("^student: ") then found[#found + 1] = { table = t, row = row }; break end
      end
    end
  end
  return found
end

local function is_student(row)
  for _, v in pairs(row) do if type(v) == "string" and v:match("^student: ") then return true end end
  return false
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

--- What one run says: a table {verdict=, built=, correct=, oob=, timed_out=,
-- message=, first_wrong=, build_log=, time=, min=, max=, bandwidth=,
-- reference=, reference_time=}.
-- @int code the process's exit status (124/137: killed by the wall-clock limit; >128: a signal)
-- @string err its stderr
-- @tab[opt] doc its decoded --json (nil when none was written)
function gradebook.outcome(code, err, doc)
  err = err or ""
  local o = { built = true, correct = false, oob = false, timed_out = false }
  local msg = recipe_error(err)
  if code == 0 and doc then
    local rows = student_rows(doc)
    if #rows == 0 then
      o.verdict, o.message = "no kernel", "the recipe ran but no row of the student's kernel was found"
      return o
    end
    -- the student's best row (a sweep has several), and the recipe's best row of that table
    local best, bt
    for _, x in ipairs(rows) do
      local tc = time_column(x.table)
      local v = tc and x.row[tc]
      if type(v) == "number" and (not best or v < best.row[time_column(best.table)]) then best, bt = x, tc end
    end
    o.verdict, o.correct = "correct", true
    if best then
      local r = best.row
      o.time, o.min, o.max = r[bt], r.min, r.max
      local bc = bandwidth_column(best.table)
      o.bandwidth = bc and r[bc]
      for _, row in ipairs(best.table.rows) do
        local v = row[bt]
        if not is_student(row) and type(v) == "number" and (not o.reference_time or v < o.reference_time) then
          o.reference_time = v
          local key = best.table.columns[1] and best.table.columns[1].name
          o.reference = key and tostring(row[key])
        end
      end
    end
    return o
  end
  o.message = msg
  if code == 124 or code == 137 then
    o.verdict, o.timed_out = "timed out", true
    o.message = "killed at the wall-clock limit"
  elseif err:match("timed out after") then
    o.verdict, o.timed_out = "timed out", true
  elseif err:match("written at offset") or err:match("an input changed") then
    o.verdict, o.oob = "out of bounds", true
  elseif err:match("program:build") or err:match("clBuildProgram") or err:match("%-%-kernel [^:]+: no kernel")
    or err:match("cannot open kernel file") then
    o.verdict, o.built = "did not build", false
    o.build_log = build_excerpt(err)
  elseif err:match("verify ") or err:match("differ") or err:match("expected") then
    o.verdict = "wrong"
    o.first_wrong = err:match("first at index ([^;\n]+)") or err:match("worst at index ([^;\n]+)")
  elseif code and code > 128 then
    o.verdict = "crashed"
    o.message = ("signal %d: %s"):format(code - 128, msg)
  else
    o.verdict = "crashed"
  end
  return o
end

--- The gradebook table from the outcomes ({student=, file=, seconds=, outcome}):
-- ranks the correct ones by time (1 = fastest) and gives each its speed-up
-- over the recipe's reference (its own fastest kernel in the same table).
function gradebook.table(entries, meta)
  local t = report.new{ title = "Gradebook", id = "gradebook", meta = meta,
    columns = {
      { name = "student", key = true }, { name = "file" }, { name = "verdict" },
      { name = "rank", format = "%d" },
      { name = "time", unit = "µs", ns = true, format = function(v) return ("%.1f"):format(v / 1e3) end },
      { name = "min", unit = "µs", ns = true, format = function(v) return ("%.1f"):format(v / 1e3) end },
      { name = "max", unit = "µs", ns = true, format = function(v) return ("%.1f"):format(v / 1e3) end },
      { name = "bandwidth", unit = "GB/s", format = "%.1f" },
      { name = "speed-up", unit = "x", format = "%.2f" },
      { name = "built" }, { name = "correct" }, { name = "out of bounds" }, { name = "timed out" },
      { name = "first wrong" }, { name = "message" }, { name = "build log" },
      { name = "seconds", format = "%.1f" },
    } }
  local correct = {}
  for _, e in ipairs(entries) do
    if e.outcome.correct and e.outcome.time then correct[#correct + 1] = e end
  end
  table.sort(correct, function(a, b) return a.outcome.time < b.outcome.time end)
  local rank = {}
  for i, e in ipairs(correct) do rank[e] = i end
  for _, e in ipairs(entries) do
    local o = e.outcome
    t:add{ student = e.student, file = e.file, verdict = o.verdict, rank = rank[e], time = o.time, min = o.min,
      max = o.max, bandwidth = o.bandwidth,
      ["speed-up"] = o.reference_time and o.time and o.reference_time / o.time or nil,
      built = o.built and "yes" or "no", correct = o.correct and "yes" or "no",
      ["out of bounds"] = o.oob and "yes" or "no", ["timed out"] = o.timed_out and "yes" or "no",
      ["first wrong"] = o.first_wrong, message = not o.correct and o.message or nil, ["build log"] = o.build_log,
      seconds = e.seconds }
  end
  return t
end

--- One line: "40 submissions: 31 correct, 4 wrong, ...; fastest: s12 (1.8 ms)".
function gradebook.summary(entries)
  local count = {}
  for _, e in ipairs(entries) do count[e.outcome.verdict] = (count[e.outcome.verdict] or 0) + 1 end
  local parts = {}
  for _, v in ipairs(gradebook.VERDICTS) do
    if count[v] then parts[#parts + 1] = ("%d %s"):format(count[v], v) end
  end
  local best
  for _, e in ipairs(entries) do
    if e.outcome.correct and e.outcome.time and (not best or e.outcome.time < best.outcome.time) then best = e end
  end
  return ("%d submission%s: %s%s"):format(#entries, #entries == 1 and "" or "s",
    #parts > 0 and table.concat(parts, ", ") or "none",
    best and ("; fastest: %s (%.1f µs)"):format(best.student, best.outcome.time / 1e3) or "")
end

return gradebook
