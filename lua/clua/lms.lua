--- clua.lms: the gradebook as a CSV file a course system imports.
--
-- * Moodle (Grades > Import > CSV file): one row per student, a column that
--   identifies the user (here `Username`, holding the submission's name or
--   the roster's username; `Email address` and `ID number` when the roster
--   gives them; at import, "Identify user by" maps one of them to the user
--   field of the same name), then one column per assignment with its score
--   and one `Feedback: ASSIGNMENT` column, mapped at import to the grade
--   item and to its feedback.
-- * Canvas (Grades > Import): the columns `Student`, `ID`, `SIS User ID`,
--   `SIS Login ID`, `Section` (Canvas matches a student by ID, else SIS User
--   ID, else SIS Login ID: the roster's `id`, `sis_id`, `login`, else the
--   submission's name as the SIS Login ID), then a column per assignment
--   named as in Canvas ("Reduction (12345)" matches assignment 12345; a new
--   name makes a new assignment), and a second row `Points Possible` with
--   each assignment's maximum.
--
-- Every field is written by clua.escape.csv: a score is a number; a text
-- (a student's name, a feedback line) that starts with = + - @ tab or CR
-- gets a ' first, so that no spreadsheet or course system reads it as a
-- formula, and is valid UTF-8.
-- @module clua.lms
local escape = require "clua.escape"

local lms = {}

local function line(t) local o = {}; for i, v in ipairs(t) do o[i] = escape.csv(v) end; return table.concat(o, ",") end

-- A score as a number of at most two decimals (3, 2.5, 0.33): a number, so
-- that escape.csv writes it as one, never as text.
local function num(v)
  if not v then return "" end
  return math.tointeger(v) or tonumber(("%.2f"):format(v)) or v
end

--- Reads a roster CSV (a header naming `student` — the submission's name —
-- and any of `name`, `email`, `username`, `id`, `sis_id`, `login`,
-- `section`): a table from the submission's name to its row.
function lms.roster(path)
  local f = io.open(path)
  if not f then error("roster " .. path .. ": cannot open it", 0) end
  local head, map = nil, {}
  for l in f:lines() do
    local cells = {}
    for c in (l:gsub("\r$", "") .. ","):gmatch('%s*("?)(.-)%1%s*,') do cells[#cells + 1] = c end
    if not head then head = cells
    elseif #cells > 0 then
      local row = {}
      for i, h in ipairs(head) do row[h] = cells[i] end
      if not row.student then f:close(); error("roster " .. path .. ": no column 'student'", 0) end
      map[row.student] = row
    end
  end
  f:close()
  return map
end

--- Moodle's grade import CSV.
-- @tab students the list of student names (rows, in order)
-- @tab assignments the list of {name=, max=}
-- @tparam function get `get(student, assignment_name)` -> score, feedback line
-- @tab[opt] roster from lms.roster
function lms.moodle(students, assignments, get, roster)
  roster = roster or {}
  local head = { "Username", "Email address", "ID number" }
  for _, a in ipairs(assignments) do head[#head + 1] = a.name end
  for _, a in ipairs(assignments) do head[#head + 1] = "Feedback: " .. a.name end
  local out = { line(head) }
  for _, s in ipairs(students) do
    local r = roster[s] or {}
    local row = { r.username or s, r.email or "", r.id or "" }
    local fb = {}
    for i, a in ipairs(assignments) do
      local score, text = get(s, a.name)
      row[#row + 1] = num(score)
      fb[i] = text or ""
    end
    for _, t in ipairs(fb) do row[#row + 1] = t end
    out[#out + 1] = line(row)
  end
  return table.concat(out, "\r\n") .. "\r\n"
end

--- Canvas's grade import CSV (arguments as lms.moodle).
function lms.canvas(students, assignments, get, roster)
  roster = roster or {}
  local head = { "Student", "ID", "SIS User ID", "SIS Login ID", "Section" }
  local pp = { "    Points Possible", "", "", "", "" }
  for _, a in ipairs(assignments) do head[#head + 1] = a.name; pp[#pp + 1] = num(a.max) end
  local out = { line(head), line(pp) }
  for _, s in ipairs(students) do
    local r = roster[s] or {}
    local row = { r.name or s, r.id or "", r.sis_id or "", r.login or (r.id or r.sis_id) and "" or s, r.section or "" }
    for _, a in ipairs(assignments) do row[#row + 1] = num((get(s, a.name))) end
    out[#out + 1] = line(row)
  end
  return table.concat(out, "\r\n") .. "\r\n"
end

return lms
