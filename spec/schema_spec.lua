-- The versioned JSON schema (docs/schema.md): each kind of file clua writes
-- names its schema, "clua.KIND/N", whose JSON Schema is schema/KIND-N.json;
-- --compare refuses a file of another kind or version with the reason and
-- reads one without the field (written before) as version 1, with a note;
-- numbers are written with "." whatever os.setlocale says. Every recipe's
-- JSON is validated where csv_spec runs them all, the card's in
-- recipe_report_spec, the gradebook's in grade_spec.
local json = require("dkjson")
local report = require("clua.report")
local support = require("spec.support.recipe")
local shell = require("spec.support.shell")
local schema = require("spec.support.schema")

-- spec/support/schema_check.py on the files: its output and whether it
-- passed; a bundle without python3-jsonschema skips the check.
local function check(files, legacy)
  local out, ok = schema.check(files, legacy)
  if ok == nil then return out, true end
  return out, ok
end

local function write(path, doc)
  local f = assert(io.open(path, "w"))
  f:write(type(doc) == "string" and doc or json.encode(doc))
  f:close()
end

local function ls(pattern)
  local files = {}
  for f in io.popen("ls " .. pattern .. " 2>/dev/null"):lines() do files[#files + 1] = f end
  return files
end

describe("the JSON schema", function()
  local dir

  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. dir))
  end)

  teardown(function() os.execute("rm -rf " .. dir) end)

  it("has a JSON Schema file for each kind of file, and python3-jsonschema to check them with", function()
    assert.is_true(schema.available() or not schema.source_tree, "python3-jsonschema is not installed (sh .ci/setup)")
    for kind, n in pairs(report.SCHEMAS) do
      assert.are.equal(("clua.%s/%d"):format(kind, n), report.schema(kind))
      local s = json.decode(support.read(("schema/%s-%d.json"):format(kind, n)))
      assert.are.equal("https://json-schema.org/draft/2020-12/schema", s["$schema"])
      assert.truthy(s.properties.schema and s.properties.schema.const == report.schema(kind), kind)
    end
    assert.has_error(function() report.schema("nosuchkind") end)
  end)

  it("reads the runs saved before files named their schema as version 1", function()
    local old = ls("docs/report-pocl-files/*.json") -- the PoCL card's, saved before (the H100's names it)
    if #old == 0 and not schema.source_tree then return pending("no saved runs in docs/ (a bundle)") end
    assert.is_true(#old >= 8, #old .. " saved recipe runs")
    local out, ok = check(old, "clua.recipe/1")
    assert.is_true(ok, out)
    out, ok = check(ls("docs/report-*.json"), "clua.card/1")
    assert.is_true(ok, out)
    for _, f in ipairs(old) do
      local doc = report.load(f, "recipe")
      assert.matches("no \"schema\" field", doc.schema_note)
    end
    assert.truthy(report.load("docs/report-pocl.json", "card").schema_note)
    -- the H100 card, remade since, names its schema: read without a note, and so are its recipes' runs
    assert.is_nil(report.load("docs/report-h100.json", "card").schema_note)
    out, ok = check(ls("docs/report-h100-files/*.json"), "clua.recipe/1")
    assert.is_true(ok, out)
  end)

  it("refuses a file of another kind or version, and says why", function()
    local t = report.new{ id = "t", columns = { { name = "n", key = true }, { name = "x", compare = true } },
      rows = { { 1, 2.0 } } }
    local function refusal(doc, kind)
      local ok, why = report.check_schema(doc, kind or "recipe")
      assert.is_nil(ok)
      local path = dir .. "/saved.json"
      write(path, doc)
      local ok2, err = pcall(report.load, path, kind or "recipe")
      assert.is_false(ok2)
      assert.truthy(err:find(path, 1, true), err)
      assert.truthy(err:find(why, 1, true), err)
      return why
    end
    local doc = report.decode(report.json({ t }, { schema = "clua.recipe/2" }))
    assert.matches("follows clua.recipe/2 and this clua reads clua.recipe/1: a newer schema", refusal(doc))
    assert.has_error(function() report.compare(t, doc, { file = "new.json" }) end,
      "report.compare: refusing to compare with new.json: it follows clua.recipe/2 and this clua reads "
      .. "clua.recipe/1: a newer schema, whose columns may have other names or units (docs/schema.md)")
    doc.schema = report.schema("gradebook")
    assert.matches("it is a gradebook %(clua.gradebook/1%), not a recipe's %-%-json %(clua.recipe/1%)",
      refusal(doc))
    doc.schema = "other.thing/1"
    assert.matches("not clua's", refusal(doc))
    assert.matches("looks like a device report card, not a recipe's",
      refusal({ report = "clua device report", recipes = {} }))
    assert.matches("looks like a recipe's %-%-json, not a device report card",
      refusal(report.decode(report.json({ t })), "card"))
    assert.matches("looks like nothing clua writes", refusal({ hello = 1 }))
    -- the same kind and version, and a file without the field, are compared
    doc.schema = report.schema("recipe")
    assert.is_true(report.check_schema(doc, "recipe"))
    local c = report.text(report.compare(t, doc, { file = "new.json" }))
    assert.is_nil(c:find("no \"schema\" field", 1, true))
    doc.schema = nil
    assert.is_true(report.check_schema(doc, "recipe"))
    c = report.text(report.compare(t, doc, { file = "old.json" }))
    assert.truthy(c:find("old.json: it has no \"schema\" field (written before clua's JSON named its schema): "
      .. "read as clua.recipe/1", 1, true), c)
  end)

  it("stamps a recipe's JSON and CSV sidecar, which validate; --compare refuses another kind before comparing",
    function()
      local j, c = dir .. "/timing.json", dir .. "/timing.csv"
      local _, code, err = support.run("timing", ("--json %s --csv %s"):format(j, c))
      assert.are.equal(0, code, err)
      local text = support.read(j)
      assert.matches('^{\n  "schema":"clua.recipe/1",\n', text)
      local files = { j }
      for _, f in ipairs(ls(dir .. "/timing*.meta.json")) do files[#files + 1] = f end
      assert.is_true(#files >= 2)
      assert.are.equal("clua.csv-meta/1", json.decode(support.read(files[2])).schema)
      local out, ok = check(files)
      assert.is_true(ok, out)

      local out2, code2 = support.run("timing", "--compare " .. j)
      assert.are.equal(0, code2, out2)
      assert.truthy(out2:find("vs saved", 1, true))
      -- the same run without the field: compared, with the note
      local doc = json.decode(text)
      doc.schema = nil
      write(dir .. "/old.json", doc)
      out2, code2 = support.run("timing", "--compare " .. dir .. "/old.json")
      assert.are.equal(0, code2, out2)
      assert.truthy(out2:find("read as clua.recipe/1", 1, true), out2)
      -- a gradebook: refused, with the reason, and exit 1
      doc.schema = "clua.gradebook/1"
      write(dir .. "/gb.json", doc)
      local _, code3, err3 = support.run("timing", "--compare " .. dir .. "/gb.json")
      assert.are.equal(1, code3)
      assert.truthy(err3:find("refusing to compare with " .. dir .. "/gb.json: it is a gradebook "
        .. "(clua.gradebook/1), not a recipe's --json (clua.recipe/1)", 1, true), err3)
    end)

  -- A comma-decimal locale, built into a folder of the spec's own (LOCPATH)
  -- from the locales package's sources, so that no locale need be installed.
  it("writes numbers with a decimal point under a comma-decimal locale", function()
    local loc = dir .. "/locale"
    if not os.execute(("mkdir -p %s && localedef -i de_DE -f UTF-8 %s/de_DE.UTF-8 >/dev/null 2>&1")
        :format(loc, loc)) then
      pending("no localedef or de_DE sources (Debian's locales package)")
      return
    end
    local lua = [[
      assert(os.setlocale("de_DE.UTF-8", "numeric"), "no de_DE.UTF-8")
      assert(tostring(1.5) == "1,5", "the locale has a decimal comma")
      local report = require("clua.report")
      local t = report.new{ title = "x", columns = { { name = "n", key = true },
        { name = "t", unit = "ms", format = "%.2f" }, { name = "g" } }, rows = { { 1, 1.5, 2.25e-3 } } }
      io.write(report.json({ t }), "\n=====\n", report.csv(t), "=====\n", report.text(t), "=====\n",
        report.markdown(t), "=====\n", tostring(2.5), "\n")
    ]]
    write(dir .. "/locale.lua", lua)
    local p = io.popen(("LOCPATH=%s %s %s 2>&1"):format(shell.quote(loc), support.clua, dir .. "/locale.lua"))
    local out = p:read("a")
    p:close()
    local parts = {}
    for part in (out .. "=====\n"):gmatch("(.-)\n?=====\n") do parts[#parts + 1] = part end
    assert.are.equal(5, #parts, out)
    local doc = json.decode(parts[1])
    assert.are.equal(1.5, doc.tables[1].rows[1].t, out)
    assert.are.same({ "1", "1.50", "0.002" }, doc.tables[1].cells[1])
    assert.truthy(parts[2]:find("\n1,1.5,0.00225\r", 1, true), parts[2])
    assert.truthy(parts[3]:find("1  1.50  0.002", 1, true), parts[3])
    assert.truthy(parts[4]:find("| 1 | 1.50 | 0.002 |", 1, true), parts[4])
    assert.are.equal("2,5", parts[5]:match("^%S+"), "the locale is restored after")
  end)
end)
