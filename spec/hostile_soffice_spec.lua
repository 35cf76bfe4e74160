-- The grader's CSVs of the hostile folder opened in LibreOffice (issue 46,
-- "done when": the CSVs "open in LibreOffice (`soffice --headless
-- --convert-to`) as text"). The folder holds files named as HTML, as
-- formulas (=HYPERLINK with a comma in it, +, -, @, a tab then =), with a
-- line feed, a carriage return and terminal escape codes, `a b` beside
-- `a_b`, a symbolic link and a named pipe. `clua grade` writes the
-- gradebook and the Moodle and Canvas exports; LibreOffice opens each (as
-- UTF-8, the way the files are written) and saves it twice: as flat
-- OpenDocument, where no cell may hold a formula or a hyperlink and every
-- score is a number, and as CSV with formulas written out, where every name
-- cell must read as the student's name: as it is, or behind the `'` that
-- clua.escape.csv puts before a text a spreadsheet would read as a formula
-- (a carriage return in a cell is a line break to LibreOffice). A CSV of
-- raw formulas beside them shows that this LibreOffice does evaluate a
-- formula it opens, and that the check sees it.
--
-- LibreOffice is too heavy for CI (about 200 MB): the spec is pending where
-- soffice is missing. To run it:
--   apt-get install --no-install-recommends libreoffice-calc-nogui
--   .ci/test build/clua -- spec/hostile_soffice_spec.lua
local json = require("dkjson")
local csvread = require("clua.csvread")
local shell = require("spec.support.shell")

local CLUA = os.getenv("CLUA") or "build/clua"
local here = os.getenv("PWD")
local clua = CLUA:match("^/") and CLUA or (here .. "/" .. CLUA)
local q = shell.quote

local CORRECT = shell.read("spec/fixtures/grade/triad/s01_correct.cl")
local NOKERNEL = "void helper(void) {}\n" -- "did not build" at once: no compiler run
-- name (the file is NAME.cl) and whether its kernel is the correct triad
local NAMES = {
  { "<img src=x onerror=alert(1)>" }, { '=HYPERLINK("x","y")', true }, { "+cmd" }, { "-2+3", true },
  { "@SUM(A1)" }, { "\t=1" }, { "new\nline" }, { "cr\rname" }, { "esc\27[31mred" }, { "\27]0;pwned\7x" },
  { "a b", true }, { "a_b" }, { "ok", true },
}

local function have_soffice() return os.execute("command -v soffice >/dev/null 2>&1") == true end

-- The text LibreOffice shows for a name: clua.escape.csv's ' where a spreadsheet would see a formula,
-- a carriage return as a line break.
local function shown(name)
  local s = name:match("^ *[=+%-@\t\r\n]") and "'" .. name or name
  return (s:gsub("\r\n?", "\n"))
end

describe("the grader's CSVs of the hostile folder opened in LibreOffice", function()
  if not have_soffice() then
    pending("soffice not installed")
    return
  end
  local dir, out, code
  local CSVS = { "gb.csv", "gb-moodle.csv", "gb-canvas.csv" }
  local cells, texts = {}, {} -- per file: the .fods' cells; the rows of the CSV LibreOffice wrote

  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    local class = dir .. "/class"
    assert(os.execute(("mkdir -p %s/fods %s/csv %s"):format(q(dir), q(dir), q(class))))
    for _, n in ipairs(NAMES) do
      local f = assert(io.open(class .. "/" .. n[1] .. ".cl", "wb"))
      f:write(n[2] and CORRECT or NOKERNEL)
      f:close()
    end
    assert(os.execute(("echo 'root:x:0:0' > %s/secret && ln -s ../secret %s/link.cl && mkfifo %s/pipe.cl"):format(
      q(dir), q(class), q(class))))
    out, code = shell.run(("cd %s && timeout 600 %s %s/recipes/grade.lua --recipe template --submissions class "
      .. "--recipe-options '--quick --size 4096 --local 64' --timeout 5 --wall 60 --no-check --rounds 1 --out gb")
      :format(q(dir), q(clua), q(here)))
    -- raw formulas: what LibreOffice makes of a cell it evaluates
    local ctl = assert(io.open(dir .. "/control.csv", "w"))
    ctl:write('name,n\n=1+2,3\n"=HYPERLINK(""http://x"",""y"")",4\n')
    ctl:close()
    local inputs = { "control.csv" }
    for i, f in ipairs(CSVS) do inputs[i + 1] = f end
    -- UTF-8 (76) comma-separated, quoted by ", from line 1; a profile of its own (none shared, no lock)
    local soffice = ("cd %s && HOME=%s LANG=C.UTF-8 timeout 300 soffice -env:UserInstallation=file://%s/profile "
      .. "--headless --infilter=CSV:44,34,76,1 "):format(q(dir), q(dir), dir)
    local o1, c1 = shell.run(soffice .. "--convert-to fods --outdir fods " .. table.concat(inputs, " "))
    assert.are.equal(0, c1, o1)
    -- the same, written back as CSV (UTF-8, formulas as their text)
    local o2, c2 = shell.run(soffice .. "--convert-to 'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,true'"
      .. " --outdir csv " .. table.concat(inputs, " "))
    assert.are.equal(0, c2, o2)
    local fods = {}
    for _, f in ipairs(inputs) do fods[#fods + 1] = q(dir .. "/fods/" .. f:gsub("%.csv$", ".fods")) end
    local js, jc = shell.run("python3 spec/support/fods_cells.py " .. table.concat(fods, " "))
    assert.are.equal(0, jc, js)
    for path, rows in pairs(json.decode(js)) do cells[path:match("([^/]*)%.fods$") .. ".csv"] = rows end
    for _, f in ipairs(inputs) do texts[f] = csvread.rows(assert(shell.slurp(dir .. "/csv/" .. f)), { where = f }) end
  end)
  teardown(function() if dir then os.execute("rm -rf " .. q(dir)) end end)

  it("grades every file of the folder: one row each", function()
    assert.are.equal(0, code, out)
    for _, f in ipairs(CSVS) do assert.truthy(cells[f], "LibreOffice did not open " .. f) end
    -- a header, a row a file (the link and the pipe too), and Canvas's "Points Possible" row
    assert.are.equal(#NAMES + 3, #cells["gb.csv"])
    assert.are.equal(#NAMES + 3, #cells["gb-moodle.csv"])
    assert.are.equal(#NAMES + 4, #cells["gb-canvas.csv"])
  end)

  it("the check sees a formula where a CSV holds one (LibreOffice evaluates what it opens)", function()
    local rows = cells["control.csv"]
    assert.are.equal("of:=1+2", rows[2][1].formula)
    assert.are.equal("float", rows[2][1].type)
    assert.truthy(rows[3][1].formula and rows[3][1].formula:match("HYPERLINK"), json.encode(rows[3][1]))
  end)

  it("opens every cell of the gradebook, Moodle and Canvas CSVs as a value: no formula, no hyperlink", function()
    for _, f in ipairs(CSVS) do
      for r, row in ipairs(cells[f]) do
        for c, cell in ipairs(row) do
          assert.is_nil(cell.formula, ("%s row %d cell %d is a formula: %s"):format(f, r, c, json.encode(cell)))
          assert.is_false(cell.link, ("%s row %d cell %d holds a hyperlink: %s"):format(f, r, c, json.encode(cell)))
        end
      end
    end
  end)

  it("shows every name as the student's text (behind a ' where it would be a formula), every score a number",
    function()
      local want = {}
      for _, n in ipairs(NAMES) do want[#want + 1] = shown(n[1]) end
      want[#want + 1], want[#want + 2] = "link", "pipe"
      table.sort(want)
      -- the columns that hold a name: the student and the file; Moodle's username; Canvas's student and login
      local columns = { ["gb.csv"] = { 1, 2 }, ["gb-moodle.csv"] = { 1 }, ["gb-canvas.csv"] = { 1, 4 } }
      local score = { ["gb.csv"] = 4, ["gb-moodle.csv"] = 4, ["gb-canvas.csv"] = 6 }
      for _, f in ipairs(CSVS) do
        local first = f == "gb-canvas.csv" and 3 or 2 -- past the header (and Canvas's points row)
        for _, col in ipairs(columns[f]) do
          local got = {}
          for r = first, #texts[f] do
            local text = texts[f][r][col]
            if col == 2 then text = text:gsub("%.cl$", "") end
            got[#got + 1] = text
            assert.are.equal("string", cells[f][r][col].type, ("%s row %d: %s"):format(f, r, json.encode(cells[f][r][col])))
          end
          table.sort(got)
          assert.are.same(want, got, f .. " column " .. col)
        end
        for r = first, #cells[f] do
          local c = cells[f][r][score[f]]
          assert.are.equal("float", c.type, ("%s row %d score: %s"):format(f, r, json.encode(c)))
        end
      end
    end)
end)
