-- `clua grade` over the hostile names of issue 46, written with --out=-gb
-- (a stem that starts with a dash): a file named as HTML whose kernel's
-- #error is a script, names that are spreadsheet formulas (one not UTF-8),
-- a name of terminal escape codes and a carriage return that fakes a
-- verdict, a #error that is a javascript: link and a code fence. The
-- terminal gets no control character; book.md and every feedback file,
-- rendered by a Markdown library, hold no active HTML and no link; the
-- gradebook CSV and the Moodle and Canvas exports, read by Python's csv
-- module, are UTF-8 and start no formula; the JSON is valid UTF-8.
local json = require("dkjson")
local shell = require("spec.support.shell")
local markdown = require("spec.support.markdown")

local clua = os.getenv("CLUA") or "build/clua"
local here = os.getenv("PWD")
local FIX = "spec/fixtures/grade/triad/"

local SUBMISSIONS = {
  { "<img src=x onerror=alert(1)>.cl", "#error <script>alert(1)</script>\n" },
  { '=HYPERLINK("x")caf\xe9.cl', FIX .. "s01_correct.cl" },
  { "-2+3.cl", FIX .. "s03_wrong.cl" },
  { "\27]0;pwned\7x\rverdict: correct, score 6 of 6.cl", FIX .. "s01_correct.cl" },
  { "@SUM(A1).cl", "#error [x](javascript:alert(1))\n```\n<img src=x onerror=alert(2)>\n" },
}

describe("clua grade over hostile names", function()
  local dir, class, out, code
  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    class = dir .. "/class"
    assert(os.execute("mkdir -p " .. class))
    for _, s in ipairs(SUBMISSIONS) do
      local text = s[2]:match("%.cl$") and shell.read(s[2]) or s[2]
      require("clua.files").write(class .. "/" .. s[1], text)
    end
    out, code = shell.run(("cd %s && %s %s/recipes/grade.lua --recipe template --submissions class --timeout 5 "
      .. "--wall 60 --recipe-options --quick --out=-gb"):format(dir, clua:match("^/") and clua or (here .. "/" .. clua),
      here))
  end)
  teardown(function() os.execute("rm -rf " .. dir) end)

  it("grades each file into a row, and sends no control character to the terminal", function()
    assert.are.equal(0, code, out)
    assert.falsy(out:find("[%z\1-\8\11-\31\127]"), out)
    assert.truthy(out:find("\\e]0;pwned\\ax\\rverdict: correct, score 6 of 6", 1, true), out)
    assert.truthy(utf8.len(out), "the terminal's text is UTF-8")
    local doc = json.decode(shell.read(dir .. "/-gb.json"))
    assert.are.equal(#SUBMISSIONS, #doc.tables[1].rows)
  end)

  local it_md = markdown.render("x") and it or pending
  it_md("writes Markdown that renders with no active HTML and no link: book.md and every feedback file", function()
    local mds = { dir .. "/-gb.md" }
    for f in io.popen("ls " .. shell.quote(dir .. "/-gb-feedback")):lines() do mds[#mds + 1] = dir .. "/-gb-feedback/" .. f end
    assert.is_true(#mds >= 2)
    for _, path in ipairs(mds) do
      local html = markdown.render(shell.read(path))
      assert.are.same({}, markdown.active(html), path .. ":\n" .. html)
      assert.falsy(html:find("<a ", 1, true), path .. ":\n" .. html)
    end
    local book = markdown.render(shell.read(dir .. "/-gb.md"))
    assert.truthy(book:find("&lt;img src=x onerror=", 1, true), book)
  end)

  it("writes CSV that is UTF-8 and starts no formula, and JSON that is UTF-8", function()
    local files = {}
    for _, f in ipairs({ "-gb.csv", "-gb-moodle.csv", "-gb-canvas.csv", "-gb.json" }) do
      files[#files + 1] = shell.quote(dir .. "/" .. f)
    end
    local o, c = shell.run("python3 spec/support/safe_check.py " .. table.concat(files, " "))
    assert.are.equal(0, c, o)
    local r = json.decode(o)
    assert.are.same({}, r.errors)
    local names = {}
    for _, row in ipairs(r.csv[dir .. "/-gb-moodle.csv"]) do names[row[1]] = true end
    assert.truthy(names["'=HYPERLINK(\"x\")caf\u{FFFD}"], o)
    assert.truthy(names["'-2+3"], o)
    assert.truthy(names["'@SUM(A1)"], o)
  end)
end)
