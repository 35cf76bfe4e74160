--- clua.schema: the schema of each kind of JSON file clua writes, and the
-- check that a file read back is of the kind and version this clua reads.
-- clua.report re-exports these as report.SCHEMAS, report.schema (here
-- schema.name) and report.check_schema (here schema.check).
-- @module clua.schema
local schema = {}

--- The schema of each kind of JSON file clua writes, by kind: its version.
-- A file says which it follows in its field `schema`, "clua.KIND/N"
-- (schema.name); the JSON Schema of each is schema/KIND-N.json, and
-- docs/schema.md says when N changes (a field renamed or removed, or its
-- unit or meaning changed) and when it does not (a field added).
--   recipe     a recipe's --json (clua.output)
--   csv-meta   the metadata sidecar of a recipe's --csv file (FILE.meta.json)
--   card       the device report card's JSON (recipes/report.lua)
--   gradebook  the grader's STEM.json (recipes/grade.lua)
schema.SCHEMAS = { recipe = 1, ["csv-meta"] = 1, card = 1, gradebook = 1 }

--- The schema string of a kind of file: "clua.recipe/1".
-- @string kind a key of schema.SCHEMAS
function schema.name(kind)
  local n = schema.SCHEMAS[kind]
  if not n then error("report.schema: no kind of file '" .. tostring(kind) .. "'", 2) end
  return ("clua.%s/%d"):format(kind, n)
end

local KIND_NAMES = { recipe = "a recipe's --json", ["csv-meta"] = "the metadata of a CSV file",
  card = "a device report card", gradebook = "a gradebook", cluster = "a cluster report" }

-- The kind of a file written before files named their schema, from its fields.
local function legacy_kind(doc)
  if doc.report == "clua device report" then return "card" end
  if doc.report == "clua cluster report" then return "cluster" end
  if doc.grader then return "gradebook" end
  if doc.tables or doc.rows then return "recipe" end
  if doc.columns then return "csv-meta" end
end

--- Whether a decoded file is of `kind` in the version this clua reads.
-- A file without a `schema` field (written before clua's JSON named its
-- schema) is read as version 1 of the kind its fields show; `doc.schema_note`
-- then says so.
-- @tab doc the decoded file
-- @string kind a key of schema.SCHEMAS
-- @return true, or nil and the reason
function schema.check(doc, kind)
  if type(doc) ~= "table" then return nil, "not a JSON object" end
  local want = schema.name(kind)
  local s = doc.schema
  if s == nil then
    local k = legacy_kind(doc)
    if k ~= kind then
      return nil, ("it has no \"schema\" field and looks like %s, not %s (%s)")
        :format(KIND_NAMES[k] or "nothing clua writes", KIND_NAMES[kind], want)
    end
    doc.schema_note = ("it has no \"schema\" field (written before clua's JSON named its schema): read as %s"):format(
      ("clua.%s/1"):format(kind))
    if schema.SCHEMAS[kind] ~= 1 then return nil, doc.schema_note .. ", and this clua reads " .. want end
    return true
  end
  local k, n = tostring(s):match("^clua%.([%w-]+)/(%d+)$")
  if not k then return nil, ("its schema '%s' is not clua's (clua.KIND/N)"):format(tostring(s)) end
  if k ~= kind then
    return nil, ("it is %s (%s), not %s (%s)"):format(KIND_NAMES[k] or ("a clua." .. k), s, KIND_NAMES[kind], want)
  end
  if tonumber(n) ~= schema.SCHEMAS[kind] then
    return nil, ("it follows %s and this clua reads %s: %s, whose columns may have other names or units "
      .. "(docs/schema.md)"):format(s, want, tonumber(n) > schema.SCHEMAS[kind] and "a newer schema" or "an older schema")
  end
  return true
end

return schema
