-- clua.csvread: CSV files as RFC 4180 writes them and as spreadsheets and
-- course systems export them, read into rows; every malformed file an error
-- naming its line.
package.path = "lua/?.lua;" .. package.path
local csvread = require("clua.csvread")

describe("clua.csvread", function()
  it("reads quoted cells holding the separator, doubled quotes and line breaks", function()
    local rows = csvread.rows('student,name\r\n"ann","Lee, Ann"\r\nbo,"say ""hi"""\r\n"cy","two\r\nlines"\r\n')
    assert.are.same({ { "student", "name" }, { "ann", "Lee, Ann" }, { "bo", 'say "hi"' }, { "cy", "two\r\nlines" } }, rows)
  end)

  it("drops a byte-order mark, takes LF or CRLF, leaves out blank lines, keeps empty cells", function()
    local rows = csvread.rows("\239\187\191a,b,c\n\n1,,3\r\n,,\n4,5,\n")
    assert.are.same({ { "a", "b", "c" }, { "1", "", "3" }, { "", "", "" }, { "4", "5", "" } }, rows)
    assert.are.same({}, (csvread.rows("")))
    assert.are.same({ { "x" } }, (csvread.rows("x")))
  end)

  it("finds a semicolon or a tab as the separator from the first line", function()
    local rows, sep = csvread.rows('student;name;email\nann;"Lee; Ann";a@u\n')
    assert.are.equal(";", sep)
    assert.are.same({ "ann", "Lee; Ann", "a@u" }, rows[2])
    rows, sep = csvread.rows("a\tb\n1,5\t2\n")
    assert.are.equal("\t", sep)
    assert.are.same({ "1,5", "2" }, rows[2])
  end)

  it("says which line is malformed and how", function()
    local function err(text) local ok, e = pcall(csvread.rows, text, { where = "r.csv" }); assert.is_false(ok); return e end
    assert.are.equal("r.csv line 3: a quote inside an unquoted cell (quote the whole cell and double the quote)",
      err('a,b\n1,2\nx"y,z\n'))
    assert.are.equal("r.csv line 2: text after a quoted cell's closing quote: 'y,z'", err('a,b\n"x"y,z\n'))
    assert.are.equal("r.csv line 2: a quoted cell is not closed", err('a,b\n"x,z\n\n'))
    assert.are.equal("r.csv line 2: not UTF-8 (byte 5); save the file as CSV UTF-8", err("a,b\n\233t\233,z\n"))
  end)

  it("reads records by the header's names, and refuses a row wider than the header or a name given twice", function()
    local head, recs = csvread.records(' student , name\nann,Ann\nbo\n', { where = "r" })
    assert.are.same({ "student", "name" }, head)
    assert.are.same({ { student = "ann", name = "Ann" }, { student = "bo" } }, recs)
    assert.has_error(function() csvread.records("a,b\n1,2\n3,4,5\n", { where = "r" }) end, "r line 3: 3 cells, the header has 2")
    assert.has_error(function() csvread.records("a,a\n", { where = "r" }) end, "r: the header names 'a' twice")
    assert.has_error(function() csvread.records("\n\n", { where = "r" }) end, "r: no header (the file is empty)")
    -- a trailing empty cell past the header is no fault (a spreadsheet's trailing separator)
    local _, r2 = csvread.records("a,b\n1,2,\n")
    assert.are.same({ { a = "1", b = "2" } }, r2)
  end)
end)
