--- clua.gradescope: one submission's grading as Gradescope's autograder
-- reads it, `/autograder/results/results.json` (the format of Gradescope's
-- "Autograder Specifications", docs/assignments.md): the score, the
-- student's feedback as the top-level output (Markdown), a test per line of
-- the rubric (`name`, `score`, `max_score`, `status`, `output`,
-- `visibility`; a penalty is a test of negative score and no maximum), and a
-- leaderboard entry for the time of a correct kernel (ascending: faster
-- ranks higher).
-- @module clua.gradescope
local json = require("dkjson")

local gradescope = {}

--- Where Gradescope's harness puts things, under its root (`/autograder`).
-- @string root the root (`--gradescope-root`, else CLUA_GRADESCOPE_ROOT, else /autograder)
-- @treturn tab `submission` (the student's files), `results` (the folder of
-- results.json), `json` (results.json), `metadata` (submission_metadata.json), `out` (the gradebook's stem)
function gradescope.paths(root)
  return { submission = root .. "/submission", results = root .. "/results", json = root .. "/results/results.json",
    metadata = root .. "/submission_metadata.json", out = root .. "/results/clua/gradebook" }
end

local function round(v, d) local m = 10 ^ (d or 2); return math.floor(v * m + 0.5) / m end

--- The results document.
-- @tab parts one per assignment: `assignment` (its name), `entry` (the
-- graded entry: `score`, `max`, `items` from clua.rubric.score, `outcome`)
-- @tab opts `output` (the text for the student: the feedback, Markdown),
-- `seconds` (the grading's time), `visibility` (of the tests; default "visible"),
-- `several` (true: test names start with the assignment's)
-- @treturn tab the document (`gradescope.encode` writes it)
function gradescope.results(parts, opts)
  opts = opts or {}
  local doc = { score = 0, execution_time = math.floor((opts.seconds or 0) + 0.5), output = opts.output or "",
    output_format = "md", tests = {} }
  local board = {}
  for _, p in ipairs(parts) do
    local e = p.entry
    doc.score = doc.score + (e.score or 0)
    local pre = opts.several and (p.assignment .. ": ") or ""
    for _, it in ipairs(e.items or {}) do
      doc.tests[#doc.tests + 1] = { name = pre .. (it.penalty and ("penalty: " .. it.name) or it.floor and "total never below 0"
        or it.name), score = round(it.score), max_score = round(it.max), status = it.passed and "passed" or "failed",
        output = it.why or "", visibility = opts.visibility or "visible" }
    end
    local o = e.outcome or {}
    if o.correct and o.time then
      board[#board + 1] = { name = pre .. "time (µs)", value = round(o.time / 1e3, 1), order = "asc" }
    end
  end
  doc.score = round(doc.score)
  if #board > 0 then doc.leaderboard = board end
  return doc
end

--- The document as JSON text, keys in the order of Gradescope's specification.
-- @tab doc from `gradescope.results`
-- @treturn string JSON
function gradescope.encode(doc)
  return require("clua.escape").json(json.encode(doc, { indent = true, keyorder = { "score", "execution_time", "output",
    "output_format", "visibility", "stdout_visibility", "tests", "leaderboard", "name", "score", "max_score", "status",
    "value", "order" } })) .. "\n" -- valid UTF-8 whatever a name holds
end

--- The student's name from Gradescope's submission_metadata.json (the first
-- user's), or nil.
-- @string text the file's contents (nil: none)
-- @treturn string|nil the name
function gradescope.student(text)
  local d = text and json.decode(text)
  local u = type(d) == "table" and type(d.users) == "table" and d.users[1]
  return type(u) == "table" and type(u.name) == "string" and u.name or nil
end

return gradescope
