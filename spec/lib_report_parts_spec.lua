-- The results table's modules, each on its own (clua.tablemodel, clua.render,
-- clua.schema, clua.saved), and clua.report re-exporting them under the
-- names it had.
package.path = "lua/?.lua;" .. package.path
local tablemodel = require("clua.tablemodel")
local render = require("clua.render")
local schema = require("clua.schema")
local saved = require("clua.saved")
local report = require("clua.report")

local function sample()
  return tablemodel.new{ title = "Copies", columns = {
    { name = "size", key = true },
    { name = "time", unit = "ms", format = "%.2f" },
    { name = "rate", unit = "GB/s", value = function(row) return row.size / row.time end },
  }, rows = { { size = 8, time = 2 }, { size = 16, time = 2 } } }
end

describe("the results table's modules", function()
  it("clua.report re-exports each part's functions, not copies of them", function()
    assert.are.equal(tablemodel.new, report.new)
    assert.are.equal(tablemodel.from_data, report.from_data)
    assert.are.equal(tablemodel.without_empty, report.without_empty)
    assert.are.equal(tablemodel.c_numeric, report.c_numeric)
    for _, name in ipairs({ "text", "csv", "csv_meta", "markdown", "json" }) do
      assert.are.equal(render[name], report[name], name)
    end
    assert.are.equal(schema.SCHEMAS, report.SCHEMAS)
    assert.are.equal(schema.name, report.schema)
    assert.are.equal(schema.check, report.check_schema)
    assert.are.equal(saved.compare, report.compare)
    assert.are.equal(saved.load, report.load)
    assert.are.equal(saved.decode, report.decode)
  end)

  it("tablemodel: a cell's raw value, its text, and whether a column holds numbers", function()
    local t = sample()
    local time, rate, size = t:column("time"), t:column("rate"), t:column("size")
    assert.are.equal(2, tablemodel.value(time, t.rows[1]))
    assert.are.equal("2.00", tablemodel.cell(time, t.rows[1]))
    assert.are.equal(8, tablemodel.value(rate, t.rows[2]))
    assert.are.equal("-", tablemodel.cell(time, {}))
    assert.is_true(tablemodel.is_numeric(t, size))
    assert.is_false(tablemodel.is_numeric(tablemodel.new{ columns = { "a" }, rows = { { "x" } } }, { name = "a" }))
    assert.is_true(tablemodel.is(t))
    assert.is_false(tablemodel.is({ columns = {} }))
  end)

  it("render: a table of the model as text, CSV and JSON; its JSON read back renders the same text", function()
    local t = sample()
    local text = render.text(t)
    assert.truthy(text:find("rate", 1, true))
    assert.truthy(text:find("2.00", 1, true))
    assert.are.equal("size,time (ms),rate (GB/s)\r\n8,2,4\r\n16,2,8\r\n", render.csv(t))
    local back = tablemodel.from_data(saved.decode(render.json(t)))
    assert.are.equal(render.text(t), render.text(back))
  end)

  it("schema: the name of a kind, and a file of another kind refused with why", function()
    assert.are.equal("clua.recipe/1", schema.name("recipe"))
    assert.has_error(function() schema.name("nothing") end, "report.schema: no kind of file 'nothing'")
    assert.is_true(schema.check({ schema = "clua.card/1" }, "card"))
    local ok, why = schema.check({ schema = "clua.card/1" }, "recipe")
    assert.is_nil(ok)
    assert.truthy(why:find("a device report card", 1, true), why)
  end)

  it("saved: a table compared with its own saved run is 1.000 on every row", function()
    local t = sample()
    local c = saved.compare(t, saved.decode(render.json({ t }, { schema = schema.name("recipe") })), { file = "old.json" })
    local ratio = c:column("vs saved")
    assert.are.equal("1.000", tablemodel.cell(ratio, c.rows[1]))
    assert.are.equal("1.000", tablemodel.cell(ratio, c.rows[2]))
    assert.truthy(c.notes[#c.notes]:find("old.json", 1, true))
  end)
end)
