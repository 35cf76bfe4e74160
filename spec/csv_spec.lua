-- Every recipe's --csv, as a user's spreadsheet or pandas meets it: each
-- recipe (but the report card, the grader and the checker, which run others) runs --quick with --json
-- and --csv into a temporary folder; spec/support/csv_check.py (Python's csv
-- module, and pandas.read_csv where python3-pandas is installed) reads each
-- CSV file and compares it, header and fields, with the JSON table of the id
-- its sidecar (STEM.meta.json) names. The JSON in turn must say what its
-- values are: a time column whose cells show milliseconds holds nanoseconds
-- only under the unit "ns" (display_unit "ms"). The JSON and each sidecar
-- are validated here too, against the JSON Schema they name (schema/,
-- spec/support/schema_check.py), all in one run of the checker at the end,
-- so that every recipe runs once.
local json = require("dkjson")
local support = require("spec.support.recipe")
local shell = require("spec.support.shell")
local schema = require("spec.support.schema")
local meta_path = require("clua.output").meta_path

local recipes = {}
for name in io.popen("ls recipes"):lines() do
  local n = name:match("^(.-)%.lua$")
  if n and n ~= "report" and n ~= "grade" and n ~= "check" then recipes[#recipes + 1] = n end
end

local SCALE = { s = 1e9, ms = 1e6, us = 1e3, ["µs"] = 1e3, ns = 1 }

-- The first column of t whose cells are in a time unit but whose values are
-- not in it (a cell "0.123" ms beside a value 123456): its name, or nil.
local function mislabelled(t)
  for j, c in ipairs(t.columns) do
    if SCALE[c.unit or ""] and c.unit ~= "ns" then
      for i, row in ipairs(t.rows) do
        local v = row[c.name]
        local shown = tonumber(((t.cells[i] or {})[j] or ""):match("^%s*([-%d.e+]+)"))
        if type(v) == "number" and shown and math.abs(shown) >= 1 then
          local ratio = v / shown
          if ratio > 1.5 or ratio < 0.67 then
            return ("%s: '%s' shows %s %s for the value %s"):format(t.id, c.name, t.cells[i][j], c.unit, v)
          end
        end
      end
    end
  end
end

describe("every recipe's CSV", function()
  if (os.getenv("CLUA") or ""):find("/asan/", 1, true) then
    pending("in the plain binary's run: "
      .. "reads every recipe's CSV: Lua's formatting of runs the recipe specs make under ASan")
    return
  end
  local dir
  local validate = {} -- each recipe's JSON and sidecars, for the schema check at the end

  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. dir))
  end)

  teardown(function() os.execute("rm -rf " .. dir) end)

  it("finds the recipes", function() assert.is_true(#recipes >= 20, #recipes .. " recipes") end)

  for _, name in ipairs(recipes) do
    it(name .. ": plain CSV that Python reads back as the JSON's rows", function()
      local j, c = dir .. "/" .. name .. ".json", dir .. "/" .. name .. ".csv"
      local _, code, err = support.run(name, ("--json %s --csv %s"):format(j, c))
      assert.are.equal(0, code, err)
      local doc = json.decode(support.read(j))
      local files = {}
      for f in io.popen("ls " .. dir):lines() do
        if f:match("^" .. name:gsub("%p", "%%%0") .. "%.") and f:match("%.csv$") then
          files[#files + 1] = shell.quote(dir .. "/" .. f)
        end
      end
      assert.are.equal(#doc.tables, #files, "one CSV file per table")
      for _, f in ipairs(files) do
        local text = support.read(f:sub(2, -2))
        assert.is_falsy(text:match("^#"), f .. " starts with a comment line")
      end
      local p = io.popen(("python3 spec/support/csv_check.py %s %s 2>&1; echo \"exit=$?\"")
        :format(shell.quote(j), table.concat(files, " ")))
      local out = p:read("a")
      p:close()
      assert.truthy(out:match("exit=0%s*$"), out)
      for _, t in ipairs(doc.tables) do assert.is_nil(mislabelled(t)) end
      validate[#validate + 1] = j
      for _, f in ipairs(files) do validate[#validate + 1] = meta_path(f:sub(2, -2)) end
    end)
  end

  -- one run of the checker for every recipe's files (a Python start with
  -- jsonschema costs about as much as a --quick recipe): each problem it
  -- prints names its file
  it("every recipe's JSON and CSV sidecars hold the schema they name", function()
    assert.is_true(#validate >= 2 * #recipes, #validate .. " files for " .. #recipes .. " recipes")
    local vout, ok = schema.check(validate)
    assert.is_true(ok ~= false, vout)
  end)
end)
