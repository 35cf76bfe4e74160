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
local escape = require("clua.escape")

local lms = {}

local function line(t) local o = {}; for i, v in ipairs(t) do o[i] = escape.csv(v) end; return table.concat(o, ",") end

-- A score as a number of at most two decimals (3, 2.5, 0.33): a number, so
-- that escape.csv writes it as one, never as text.
local function num(v)
  if not v then return "" end
  return math.tointeger(v) or tonumber(("%.2f"):format(v)) or v
end

-- A header's name as a roster field: its letters and digits, lower case,
-- looked up here ("Email address" and "email" are both email). A Canvas
-- gradebook export names the student's display name "Student".
local FIELD = { student = "student", name = "name", fullname = "name", email = "email", emailaddress = "email",
  username = "username", id = "id", idnumber = "id", sisid = "sis_id", sisuserid = "sis_id", login = "login",
  sisloginid = "login", section = "section", firstname = "first", lastname = "last", surname = "last" }

--- The order in which a submission's name is looked up in a roster's columns.
lms.MATCH = { "student", "username", "login", "email", "email_user", "sis_id", "id", "name" }

--- Reads a roster: a CSV file (RFC 4180, clua.csvread: quoted cells, a
-- byte-order mark, CRLF, `;` as the separator) with a header, either clua's
-- own (`student` — the submission's name — and any of `name`, `email`,
-- `username`, `id`, `sis_id`, `login`, `section`) or a course system's
-- export used as it is: Canvas's gradebook export (`Student`, `ID`, `SIS
-- User ID`, `SIS Login ID`, `Section`; its `Points Possible` row is left
-- out) or Moodle's (`First name`, `Last name`/`Surname`, `Username`, `ID
-- number`, `Email address`). Each submission is matched to the row whose
-- `student`, else username, SIS login, email, the email's part before `@`,
-- SIS user id, id or name is the submission's name (a value two rows share
-- matches neither).
-- @string path the roster's file
-- @tab names the submissions' names
-- @treturn tab a table from each matched submission's name to its row
-- (`name`, `email`, `username`, `id`, `sis_id`, `login`, `section`, `student`)
-- @treturn {string,...} the names no row matched, in order
-- @raise `roster PATH: why` (cannot open it, a malformed CSV naming the line,
-- no column to match by)
function lms.roster(path, names)
  local text = require("clua.files").read(path)
  if not text then error("roster " .. path .. ": cannot open it", 0) end
  local head, recs = require("clua.csvread").records(text, { where = "roster " .. path })
  local canvas, cols = false, {}
  for _, h in ipairs(head) do
    local k = h:lower():gsub("[^%w]", "")
    if k == "sisloginid" or k == "sisuserid" then canvas = true end
  end
  for _, h in ipairs(head) do
    local k = h:lower():gsub("[^%w]", "")
    local f = FIELD[k]
    if canvas and k == "student" then f = "name" end
    if f and not cols[f] then cols[f] = h end
  end
  local any = false
  for _, f in ipairs(lms.MATCH) do if cols[f] then any = true end end
  if not any then
    error(("roster %s: no column to match the submissions by (student, username, login, email, sis_id, id or name; "
      .. "it has: %s)"):format(path, table.concat(head, ", ")), 0)
  end
  local rows = {}
  for _, rec in ipairs(recs) do
    local r = {}
    for f, h in pairs(cols) do
      local v = rec[h] and rec[h]:match("^%s*(.-)%s*$")
      if v and v ~= "" then r[f] = v end
    end
    if not r.name and (r.first or r.last) then r.name = ((r.first or "") .. " " .. (r.last or "")):match("^%s*(.-)%s*$") end
    r.first, r.last = nil, nil
    r.email_user = r.email and r.email:match("^([^@]+)@")
    local label = (r.name or ""):lower()
    if next(r) and label ~= "points possible" and label ~= "muted" then rows[#rows + 1] = r end
  end
  -- each field's values, those two rows share left out
  local index = {}
  for _, f in ipairs(lms.MATCH) do
    local by, twice = {}, {}
    for _, r in ipairs(rows) do
      local v = r[f]
      if v then
        if by[v] and by[v] ~= r then twice[v] = true end
        by[v] = r
      end
    end
    for v in pairs(twice) do by[v] = nil end
    index[f] = by
  end
  local map, missing = {}, {}
  for _, n in ipairs(names) do
    local found
    for _, f in ipairs(lms.MATCH) do
      found = index[f][n]
      if found then break end
    end
    if found then
      local r = {}
      for k, v in pairs(found) do if k ~= "email_user" then r[k] = v end end
      map[n] = r
    else missing[#missing + 1] = n end
  end
  return map, missing
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
