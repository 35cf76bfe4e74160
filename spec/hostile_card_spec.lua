-- `clua report --from-json` on the hostile cards of issue 46 (a shared card
-- is anyone's file): a figure named by a path out of the card's folder, an SVG
-- beside the card holding a script, an event attribute and a foreign object,
-- a field of HTML where a number belongs, a card of another schema version,
-- a recipe's JSON, JSON nested 10^5 deep, a card of too many rows or bytes.
-- The page renders, in headless chromium (spec/support/browser.lua), with no
-- script of the card run and no line of another file; the rest is refused with
-- a message naming the file and the field, never a traceback. And the card's
-- Markdown (card.md) keeps a --note as text, rendered by a Markdown library.
local json = require("dkjson")
local shell = require("spec.support.shell")
local browser = require("spec.support.browser")
local markdown = require("spec.support.markdown")
local files = require("clua.files")

local clua = os.getenv("CLUA") or "build/clua"
local it_browser = browser.chromium() and it or pending
local it_md = markdown.render("x") and it or pending

local IMG = "<img src=x onerror=alert(3)>"

local function report(args)
  return shell.run(("%s recipes/report.lua %s"):format(clua, args))
end

local function copy(t) return json.decode(json.encode(t)) end

describe("the card page from a saved JSON, of anyone's making", function()
  local dir = os.tmpname()
  os.remove(dir)
  local base -- a real card: the PoCL one of docs/, two recipes of it
  setup(function()
    assert(os.execute("mkdir -p " .. dir .. "/card-files"))
    base = json.decode(shell.read("docs/report-pocl.json"))
    base.recipes = { base.recipes[1], base.recipes[2] }
  end)
  teardown(function() os.execute("rm -rf " .. dir) end)

  local function write(name, doc)
    files.write(dir .. "/" .. name, type(doc) == "string" and doc or json.encode(doc))
    return dir .. "/" .. name
  end

  it_browser("looks figures up by name in the card's folder only, inlines an SVG cleaned: no script runs, "
    .. "no foreign file shows", function()
    local doc = copy(base)
    doc.recipes[1].svgs = { "../../../../../../etc/passwd", "/etc/passwd", "evil.svg", "..svg" }
    write("card-files/evil.svg", [[<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)" width="200" height="50">]]
      .. [[<script>alert(2)</script><foreignObject width="100" height="20"><div xmlns="http://www.w3.org/1999/xhtml">]]
      .. [[<img src="x" onerror="alert(4)"/></div></foreignObject><a href="javascript:alert(5)"><text y="20">click</text>]]
      .. [[</a><text x="1" y="40">the plot</text></svg>]])
    local card = write("card.json", doc)
    local out, code = report("--from-json " .. card .. " --html " .. dir .. "/card.html")
    assert.are.equal(0, code, out)
    local page = shell.read(dir .. "/card.html")
    assert.falsy(page:find("root:", 1, true), "a line of /etc/passwd in the page")
    assert.truthy(page:find("Missing plot: ../../../../../../etc/passwd (not a file name of the card", 1, true))
    assert.truthy(page:find("the plot", 1, true)) -- the SVG's drawing is kept
    local r = assert(browser.check(dir .. "/card.html"))
    assert.are.same({}, r.alerts)
    assert.are.same({}, r.handlers)
    assert.are.equal(0, r.foreign)
    assert.are.equal(1, r.scripts) -- the page's own tip script
    assert.is_false(r.passwd)
    assert.are.same({}, r.external)
    assert.are.same({}, r.errors)
  end)

  it("refuses a field of the wrong type, naming it (a seconds of HTML, a size of text, a row of arrays)", function()
    local doc = copy(base)
    doc.recipes[2].seconds = IMG
    local out, code = report("--from-json " .. write("seconds.json", doc))
    assert.are.equal(1, code, out)
    assert.truthy(out:find("report --from-json: " .. dir .. "/seconds.json: card.recipes[2].seconds: a number expected, "
      .. "found a string", 1, true), out)
    doc = copy(base)
    doc.device.global_mem = "lots"
    out, code = report("--from-json " .. write("mem.json", doc))
    assert.are.equal(1, code, out)
    assert.truthy(out:find("card.device.global_mem: a number expected, found a string", 1, true), out)
    doc = copy(base)
    doc.recipes[1].tables[1].cells[1] = { "a" }
    out, code = report("--from-json " .. write("cells.json", doc))
    assert.are.equal(1, code, out)
    assert.truthy(out:find("recipes[1].tables[1]: cells[1] holds 1 cells for", 1, true), out)
    assert.falsy(out:find("traceback", 1, true), out)
  end)

  it("escapes every field it shows (html.card, given a card it did not check)", function()
    local doc = copy(base)
    doc.recipes[2].seconds = IMG
    doc.date, doc.clua = IMG, IMG
    local page = require("clua.html").card(doc, { note = IMG })
    assert.falsy(page:find("<img", 1, true))
  end)

  it("refuses a card of another schema version, and a recipe's JSON, as --compare does", function()
    local doc = copy(base)
    doc.schema = "clua.card/2"
    local out, code = report("--from-json " .. write("v2.json", doc))
    assert.are.equal(1, code, out)
    assert.truthy(out:find("refusing to render " .. dir .. "/v2.json: it follows clua.card/2 and this clua reads "
      .. "clua.card/1", 1, true), out)
    out, code = report("--from-json " .. write("recipe.json", shell.read("docs/report-h100-files/peak.json")))
    assert.are.equal(1, code, out)
    assert.truthy(out:find("it is a recipe's --json (clua.recipe/1), not a device report card (clua.card/1)", 1, true), out)
  end)

  it("refuses JSON nested 10^5 deep, or malformed, with a message", function()
    local out, code = report("--from-json " .. write("deep.json", ("["):rep(100000) .. ("]"):rep(100000)))
    assert.are.equal(1, code, out)
    assert.truthy(out:find("deep.json: nested deeper than 100 arrays and objects", 1, true), out)
    out, code = report("--from-json " .. write("bad.json", '{"schema": "clua.card/1", '))
    assert.are.equal(1, code, out)
    assert.truthy(out:find("bad.json: bad JSON", 1, true), out)
    assert.falsy(out:find("stack", 1, true), out)
  end)

  it("refuses a card of more rows or bytes than it may hold, at once", function()
    local doc = copy(base)
    local t = doc.recipes[1].tables[1]
    local row, cells = t.rows[1], t.cells[1]
    t.rows, t.cells = {}, {}
    for i = 1, 25000 do t.rows[i], t.cells[i] = row, cells end
    local card = write("rows.json", doc)
    local t0 = os.time()
    local out, code = report("--from-json " .. card)
    assert.are.equal(1, code, out)
    assert.truthy(out:find("rows.json: 25", 1, true) and out:find("rows, more than the 20000 a card may hold", 1, true),
      out)
    -- a file over the size limit is not even read
    assert(os.execute("truncate -s 17M " .. dir .. "/huge.json"))
    out, code = report("--from-json " .. dir .. "/huge.json")
    assert.are.equal(1, code, out)
    assert.truthy(out:find("huge.json: 17825792 bytes, more than the 16777216 a JSON input may have", 1, true), out)
    assert.is_true(os.time() - t0 < 60)
  end)

  it_md("card.md keeps a --note, and a name of HTML, as text", function()
    local out, code = report(("--recipes nosuchrecipe --note %s --out %s/note.md"):format(
      shell.quote("see " .. IMG .. " <script>alert(1)</script> [x](javascript:alert(1))"), dir))
    assert.are.equal(0, code, out)
    local html = markdown.render(shell.read(dir .. "/note.md"))
    assert.are.same({}, markdown.active(html))
    assert.falsy(html:find("<a ", 1, true), html)
    -- shown as text: its "<" an entity (a ">" alone opens no tag)
    assert.truthy(html:find("&lt;img src=x onerror=alert(3)>", 1, true)
      or html:find("&lt;img src=x onerror=alert(3)&gt;", 1, true), html)
  end)
end)
