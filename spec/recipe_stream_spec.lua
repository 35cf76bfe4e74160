-- recipes/stream.lua --quick on the default device (PoCL in CI), run as a
-- subprocess: BabelStream's five kernels in float and double, verified by
-- replaying the recurrence; CLUA_CORRUPT=stream makes it exit non-zero with no
-- table.
local json = require("dkjson")
local support = require("spec.support.recipe")

local run = support.runner("stream", { env_first = true })
local slurp, by_id = support.slurp, support.by_id

describe("recipe stream", function()
  local out, code, err, tables

  setup(function()
    local path = os.tmpname()
    out, code, err = run(nil, "--json " .. path)
    local text = slurp(path)
    os.remove(path)
    tables = text and by_id(json.decode(text)) or {}
  end)

  it("runs --quick and exits 0", function()
    assert.are.equal(0, code, err)
    assert.truthy(out:find("BabelStream kernels", 1, true))
  end)

  it("has the five kernels for each precision, best >= median", function()
    local t = assert(tables.stream)
    local seen, precisions = {}, {}
    for _, r in ipairs(t.rows) do
      seen[r.precision .. " " .. r.kernel] = r
      precisions[r.precision] = true
      assert.is_true(r.best > 0)
      assert.is_true(r.best >= r.median)
      assert.is_true(r["min time"] <= r["median time"] and r["median time"] <= r["max time"])
    end
    assert.truthy(precisions.float)
    local n = 0
    for p in pairs(precisions) do
      n = n + 1
      for _, k in ipairs({ "copy", "mul", "add", "triad", "dot" }) do
        assert.truthy(seen[p .. " " .. k], p .. " " .. k)
      end
    end
    assert.are.equal(5 * n, #t.rows)
    -- BabelStream's byte counts: 2, 2, 3, 3, 2 arrays of 64K floats
    local mib = 65536 * 4 / 2 ^ 20
    assert.are.equal(2 * mib, seen["float copy"].bytes)
    assert.are.equal(3 * mib, seen["float triad"].bytes)
    assert.are.equal(2 * mib, seen["float dot"].bytes)
  end)

  it("says what it verified", function()
    local notes = table.concat(tables.stream.notes, "\n")
    assert.truthy(notes:find("float: 65536 elements", 1, true))
    assert.truthy(notes:find("iterations run", 1, true))
  end)

  it("marks cache figures: --quick's arrays fit the device's caches", function()
    local notes = table.concat(tables.stream.notes, "\n")
    assert.truthy(notes:find("c: a cache figure: the working set", 1, true), notes)
    for _, r in ipairs(tables.stream.rows) do assert.is_number(r.spread) end
  end)

  it("takes --precision and --reps (the replay follows the iterations run)", function()
    local path = os.tmpname()
    local _, c, e = run(nil, "--precision float --reps 3 --json " .. path)
    local doc = json.decode(slurp(path))
    os.remove(path)
    assert.are.equal(0, c, e)
    assert.are.equal(5, #doc.tables[1].rows)
    assert.truthy(table.concat(doc.tables[1].notes, "\n"):find("5 iterations run", 1, true))
  end)

  it("halves dot's work-group, with a note, while the driver refuses it", function()
    local path = os.tmpname()
    local _, c, e = run("CLUA_REFUSE_ABOVE=1 LUA_INIT_5_4=@spec/refuse_shim.lua", "--precision float --json " .. path)
    local doc = json.decode(slurp(path))
    os.remove(path)
    assert.are.equal(0, c, e)
    local notes = table.concat(doc.tables[1].notes, "\n")
    assert.truthy(notes:find("float: dot in work%-groups of %d+ left out: the driver refused it: CL_INVALID_WORK_GROUP_SIZE"), notes)
    assert.truthy(notes:find("groups x 1, verified", 1, true), notes)
    assert.are.equal(5, #doc.tables[1].rows)
  end)

  it("exits non-zero with no table when a result is corrupted", function()
    local o, c, e = run("CLUA_CORRUPT=stream")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("BabelStream kernels", 1, true))
    assert.truthy(e:find("verify", 1, true), e)
  end)
end)
