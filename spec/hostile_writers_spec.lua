-- Every writer of clua.report, clua.gradebook, clua.feedback and clua.lms
-- given the hostile names of issue 46 (a student's file name or a kernel's
-- #error is anything its author wants): the Markdown, rendered by a Markdown
-- library as a course system renders it (spec/support/markdown.lua), holds no
-- active HTML; every CSV cell, read by Python's csv module, starts no formula
-- (numbers stay numbers); the JSON is valid UTF-8; the terminal text carries
-- no control character.
local report = require("clua.report")
local gradebook = require("clua.gradebook")
local feedback = require("clua.feedback")
local lms = require("clua.lms")
local json = require("dkjson")
local markdown = require("spec.support.markdown")
local shell = require("spec.support.shell")

local it_md = markdown.render("x") and it or pending

-- The names of the probe: HTML, a script, a link, formulas, escape codes, a
-- carriage return that rewrites the line, bytes that are not UTF-8.
local IMG = "<img src=x onerror=alert(1)>"
local SCRIPT = "<script>alert(1)</script>"
local LINK = "[click](javascript:alert(1))"
local FORMULAS = { '=HYPERLINK("http://x","y")', "+cmd", "-2+3", "@SUM(A1)", "\t=1", "\r=1" }
local TITLE = "\27]0;pwned\7"
local CR = "bob\rverdict: correct, score 6 of 6"
local LATIN1 = "caf\xe9"

local function entries()
  local names = { IMG, SCRIPT, LINK, TITLE, CR, LATIN1 }
  for _, f in ipairs(FORMULAS) do names[#names + 1] = f end
  local out = {}
  for i, n in ipairs(names) do
    out[i] = { student = n, file = n .. ".cl", seconds = 1.5,
      outcome = { verdict = "did not build", built = false, correct = false, oob = false, timed_out = false,
        too_fast = false, reason = "line 1:2: error: " .. SCRIPT, message = "#error " .. SCRIPT,
        build_log = "k.cl:1:2: error: " .. SCRIPT .. "\n```\n\n" .. IMG .. "\n" },
      score = 0, max = 6, lines = { "+0 does not build", "-2 " .. IMG } }
  end
  return out
end

local function active(md)
  local html = assert(markdown.render(md))
  return markdown.active(html), html
end

-- Python's csv and json modules on files: {errors=, csv={path = rows}}.
local function python_check(files)
  local words = {}
  for i, f in ipairs(files) do words[i] = shell.quote(f) end
  local out, code = shell.run("python3 spec/support/safe_check.py " .. table.concat(words, " "))
  assert.are.equal(0, code, out)
  return json.decode(out)
end

describe("hostile names in every writer", function()
  local dir = os.tmpname()
  os.remove(dir)
  os.execute("mkdir -p " .. dir)
  teardown(function() os.execute("rm -rf " .. dir) end)

  it_md("report.markdown: a name is shown, never HTML or a link (gradebook, book.md)", function()
    local es = entries()
    local t = gradebook.compact(es, "Gradebook " .. IMG)
    t:note("alike: " .. SCRIPT .. " ~ " .. LINK)
    local found, html = active(report.markdown(t))
    assert.are.same({}, found, html)
    -- shown as text: its "<" an entity (a ">" alone opens no tag)
    assert.truthy(html:find("&lt;img src=x onerror=alert(1)>", 1, true) or html:find("&lt;img src=x onerror=alert(1)&gt;", 1, true), html)
    assert.falsy(html:find("<a ", 1, true), html)
    found, html = active(report.markdown(gradebook.table(es, { device = IMG })))
    assert.are.same({}, found, html)
  end)

  it_md("feedback: the student's name, file, reason and build log render as text", function()
    for _, e in ipairs(entries()) do
      local md = feedback.markdown(e, { assignment = "a " .. IMG, recipe = "template", source = "#error " .. SCRIPT })
      local found, html = active(md)
      assert.are.same({}, found, html)
      assert.truthy(html:find("&lt;script&gt;alert(1)&lt;/script&gt;", 1, true)
        or html:find("&lt;script>alert(1)&lt;/script>", 1, true), html)
    end
  end)

  it("CSV: no cell starts a formula, numbers stay numbers (report.csv, Moodle, Canvas)", function()
    local es = entries()
    local t = report.new{ title = "t", columns = { "student", "value", "note" } }
    for i, e in ipairs(es) do t:add{ e.student, i == 1 and -2.5 or i, e.lines[2] } end
    local names, by = {}, {}
    for i, e in ipairs(es) do names[i], by[e.student] = e.student, e end
    local function get(s) return -2.5, "+1 builds; " .. by[s].outcome.reason end
    local files = { dir .. "/t.csv", dir .. "/book.csv", dir .. "/moodle.csv", dir .. "/canvas.csv" }
    require("clua.files").write(files[1], report.csv(t))
    require("clua.files").write(files[2], report.csv(gradebook.table(es, {})))
    require("clua.files").write(files[3], lms.moodle(names, { { name = "=cmd", max = 6 } }, get))
    require("clua.files").write(files[4], lms.canvas(names, { { name = "a", max = 6 } }, get))
    local r = python_check(files)
    assert.are.same({}, r.errors)
    local rows = r.csv[files[1]]
    assert.are.equal("'" .. FORMULAS[1], rows[8][1]) -- kept whole, behind a '
    assert.are.equal("-2.5", rows[2][2]) -- a number, as it was
    assert.are.equal("caf\u{FFFD}", rows[7][1]) -- valid UTF-8
    assert.are.equal("-2.5", r.csv[files[3]][2][4]) -- a score is a number
    assert.are.equal("    Points Possible", r.csv[files[4]][2][1]) -- Canvas's own row, as Canvas writes it
  end)

  it("JSON: valid UTF-8 whatever bytes a name holds", function()
    local path = dir .. "/book.json"
    require("clua.files").write(path, report.json({ gradebook.table(entries(), {}) }, { similar = { { a = LATIN1 } } }))
    assert.are.same({}, python_check({ path }).errors)
    assert.matches("caf\u{FFFD}", require("clua.files").read(path), 1, true)
  end)

  it("terminal: control characters shown as escapes, never sent (report.text)", function()
    local es = entries()
    local t = gradebook.compact(es, "Gradebook" .. TITLE)
    t:note("alike: " .. CR)
    local text = report.text(t)
    assert.falsy(text:find("[\0-\9\11-\31\127]"), text)
    assert.truthy(text:find("\\e]0;pwned\\a", 1, true), text)
    assert.truthy(text:find("bob\\rverdict: correct", 1, true), text)
    assert.truthy(utf8.len(text), "valid UTF-8")
  end)
end)
