-- Every writer of clua.report, clua.gradebook, clua.feedback and clua.lms
-- given the hostile names of issue 46 (a student's file name or a kernel's
-- #error is anything its author wants): the Markdown, rendered by a Markdown
-- library as a course system renders it (spec/support/markdown.lua), holds no
-- active HTML; every CSV cell, read by Python's csv module, starts no formula
-- (numbers stay numbers); the JSON is valid UTF-8; the terminal text carries
-- no control character. clua.escape, clua.svgsafe and clua.jsonin alone too.
local escape = require "clua.escape"
local report = require "clua.report"
local gradebook = require "clua.gradebook"
local feedback = require "clua.feedback"
local lms = require "clua.lms"
local svgsafe = require "clua.svgsafe"
local jsonin = require "clua.jsonin"
local json = require "dkjson"
local markdown = require "spec.support.markdown"
local shell = require "spec.support.shell"

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
    assert.truthy(html:find("&lt;img src=x onerror=alert(1)&gt;", 1, true), html)
    assert.falsy(html:find("<a ", 1, true), html)
    found, html = active(report.markdown(gradebook.table(es, { device = IMG })))
    assert.are.same({}, found, html)
  end)

  it_md("feedback: the student's name, file, reason and build log render as text", function()
    for _, e in ipairs(entries()) do
      local md = feedback.markdown(e, { assignment = "a " .. IMG, recipe = "template", source = "#error " .. SCRIPT })
      local found, html = active(md)
      assert.are.same({}, found, html)
      assert.truthy(html:find("&lt;script&gt;alert(1)&lt;/script&gt;", 1, true), html)
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

describe("clua.escape", function()
  it("replaces each byte that is no UTF-8 with U+FFFD, and leaves UTF-8 alone", function()
    assert.are.equal("a\u{FFFD}b\u{FFFD}", escape.utf8("a\xffb\xc3"))
    assert.are.equal("µs ✓", escape.utf8("µs ✓"))
    assert.are.equal("\u{FFFD}\u{FFFD}", escape.utf8("\xed\xa0")) -- a cut surrogate
  end)

  it("shows terminal controls as escapes: C0, DEL, C1, bidirectional overrides", function()
    assert.are.equal("\\e[31mred\\r\\n\\t\\x7f\\u{009b}\\u{202e}", escape.terminal("\27[31mred\r\n\t\127\u{9b}\u{202e}"))
    assert.are.equal("a\nb\\r", escape.terminal("a\nb\r", { lines = true }))
  end)

  it("escapes HTML text and attributes", function()
    assert.are.equal("&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;", escape.html([[<a href="x" title='y'>&]]))
  end)

  it("keeps Markdown text as text: entities, escaped syntax, code spans longer than any backtick run", function()
    assert.are.equal("&lt;b&gt; \\*x\\* [l\\](u) [r\\] [x] a\\|b my_kernel \\_x\\_ posx[], [0:0]",
      escape.markdown("<b> *x* [l](u) [r] [x] a|b my_kernel _x_ posx[], [0:0]"))
    assert.are.equal("\\# not a heading", escape.markdown("# not a heading", { line = true }))
    assert.are.equal("``a`b``", escape.md_code("a`b"))
    assert.are.equal("`` `x ``", escape.md_code("`x"))
    assert.are.equal("    a\n    ```\n    \\e", escape.md_block("a\n```\n\27\n"))
    assert.are.equal("x%20%28y%29%3Ajavascript", escape.md_url("x (y):javascript"))
  end)

  it("prefixes a text CSV cell that a spreadsheet would read as a formula, not a number", function()
    assert.are.equal("'=1+1", escape.csv("=1+1"))
    assert.are.equal("'-2+3", escape.csv("-2+3"))
    assert.are.equal('"\'=HYPERLINK(""x"")"', escape.csv('=HYPERLINK("x")'))
    assert.are.equal("-2.5", escape.csv(-2.5))
    assert.are.equal("3", escape.csv(3))
    assert.are.equal("", escape.csv(nil))
    assert.are.equal("plain", escape.csv("plain"))
  end)
end)

describe("clua.svgsafe", function()
  it("keeps clua's own plots whole", function()
    local plot = require("clua.plot").new{ title = "a <b> \"c\"", x = { name = "x" }, y = { name = "y" } }
    plot:add("s", 1, 2, "p", "tip")
    local svg = plot:svg()
    local clean = assert(svgsafe.clean(svg))
    local _, before = svg:gsub("<%a", "")
    local _, after = clean:gsub("<%a", "")
    assert.are.equal(before, after)
  end)

  it("drops scripts, event attributes, foreign objects, links and external references", function()
    local clean = assert(svgsafe.clean([[<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)" width="10"><script>alert(2)</script>
<foreignObject><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject><a href="javascript:alert(4)"><text>a</text></a>
<rect fill="url(http://evil/x)" width="1" onclick="x"/><text x="1">&lt;script&gt; &#60;</text><image href="http://x"/>
<style>@import url(http://x)</style><!-- c --></svg>]]))
    for _, bad in ipairs({ "script>", "onload", "onclick", "foreignObject", "href", "url(", "<a", "image", "style" }) do
      assert.falsy(clean:find(bad, 1, true), bad .. " in " .. clean)
    end
    assert.truthy(clean:find('<text x="1">&lt;script&gt; &lt;</text>', 1, true), clean)
  end)

  it("refuses what is not plain SVG: another file, a DOCTYPE, an entity, a broken tree", function()
    for _, text in ipairs({ "root:x:0:0:root:/root:/bin/bash\n", '<!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]><svg>&x;</svg>',
      "<svg><text>&x;</text></svg>", "<svg><g></svg>", "<html><script>alert(1)</script></html>", "<svg/><svg/>",
      "<svg a=1/>" }) do
      local clean, why = svgsafe.clean(text)
      assert.is_nil(clean, text)
      assert.is_string(why)
    end
  end)
end)

describe("clua.jsonin", function()
  it("refuses JSON nested too deep with a message, not a stack overflow", function()
    local ok, err = pcall(jsonin.decode, ("["):rep(200000) .. ("]"):rep(200000), "deep.json")
    assert.is_false(ok)
    assert.matches("^deep%.json: nested deeper than 100 arrays and objects", err)
    assert.are.same({ a = { "[", 1 } }, jsonin.decode('{"a": ["[", 1]}'))
  end)

  it("names the field of the wrong type", function()
    local shape = { type = "object", fields = { rows = { type = "array", items = { type = "object",
      fields = { seconds = "number" } } } } }
    local ok, err = pcall(jsonin.check, jsonin.decode('{"rows": [{"seconds": 1}, {"seconds": "<img>"}]}'), shape, "card")
    assert.is_false(ok)
    assert.are.equal("card.rows[2].seconds: a number expected, found a string", err)
  end)
end)
