--- clua.report: the results table under the one name it had before it was
-- split, re-exporting each part from its own module, so that
-- `require "clua.report"` works as it did:
--
--   clua.tablemodel  the table: report.new, from_data, without_empty,
--                    c_numeric, OPTIONS, COLUMN
--   clua.render      its text, CSV, Markdown and JSON: report.text, csv,
--                    csv_meta, markdown, json
--   clua.schema      the kinds of JSON file: report.SCHEMAS, report.schema
--                    (schema.name), report.check_schema (schema.check)
--   clua.saved       saved runs: report.decode, load, compare
--
-- New code requires the part it uses. "report" here is the results table,
-- not the device report card (the command `clua report`,
-- recipes/report.lua) nor its web page (clua.html).
-- @module clua.report
local tablemodel = require("clua.tablemodel")
local render = require("clua.render")
local schema = require("clua.schema")
local saved = require("clua.saved")

return {
  new = tablemodel.new, from_data = tablemodel.from_data, without_empty = tablemodel.without_empty,
  c_numeric = tablemodel.c_numeric, OPTIONS = tablemodel.OPTIONS, COLUMN = tablemodel.COLUMN,
  text = render.text, csv = render.csv, csv_meta = render.csv_meta, markdown = render.markdown, json = render.json,
  SCHEMAS = schema.SCHEMAS, schema = schema.name, check_schema = schema.check,
  decode = saved.decode, load = saved.load, compare = saved.compare,
}
