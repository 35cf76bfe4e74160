--- clua.classroom: one repository's grading as GitHub Classroom's
-- autograding reporter (`classroom-resources/autograding-grading-reporter`)
-- reads a test runner's result: `{version = 1, status, max_score, tests}`,
-- each test `{name, status = "pass"|"fail", score, message}`. The reporter
-- adds the tests' scores (a penalty is a test of negative score) and sends
-- "Points SCORE/MAX" to Classroom; the workflow hands it the JSON
-- base64-encoded (contrib/github-classroom/, docs/assignments.md).
-- @module clua.classroom
local json = require("dkjson")

local classroom = {}

local function round(v) return math.floor(v * 100 + 0.5) / 100 end

--- The runner's result.
-- @tab parts one per assignment: `assignment`, `entry` (`score`, `max`, `items`)
-- @tab[opt] opts `several` (true: test names start with the assignment's)
-- @treturn tab the result; its `status` is "pass" at full marks, else "fail"
function classroom.result(parts, opts)
  opts = opts or {}
  local doc, score, max = { version = 1, tests = {} }, 0, 0
  for _, p in ipairs(parts) do
    local e = p.entry
    score, max = score + (e.score or 0), max + (e.max or 0)
    for _, it in ipairs(e.items or {}) do
      doc.tests[#doc.tests + 1] = { name = (opts.several and (p.assignment .. ": ") or "")
        .. (it.penalty and ("penalty: " .. it.name) or it.floor and "total never below 0" or it.name),
        status = it.passed and "pass" or "fail", score = round(it.score), message = it.why or "" }
    end
  end
  doc.max_score, doc.score = round(max), round(score)
  doc.status = score >= max and "pass" or "fail"
  return doc
end

--- The result as JSON text.
-- @tab doc from `classroom.result`
-- @treturn string JSON
function classroom.encode(doc)
  return require("clua.escape").json(json.encode(doc, { indent = true, keyorder = { "version", "status", "max_score",
    "score", "tests", "name", "message" } })) .. "\n" -- valid UTF-8 whatever a name holds
end

return classroom
