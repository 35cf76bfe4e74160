-- recipes/launch.lua --quick on the default device (PoCL in CI), run as a
-- subprocess: its table has the rows it should, the C program's figure (or
-- "not built") beside clua's, and CLUA_CORRUPT=launch makes it exit non-zero
-- with no table.
local json = require("dkjson")
local support = require("spec.support.recipe")

local run = support.runner("launch", { env_first = true })
local slurp, by_id = support.slurp, support.by_id

describe("recipe launch", function()
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
    assert.truthy(out:find("Kernel launch cost", 1, true))
  end)

  it("has the enqueue, dispatch and round-trip rows", function()
    local t = assert(tables.launch)
    local names = {}
    for i, r in ipairs(t.rows) do
      names[i] = r.figure
      assert.is_true(r.clua >= 0 and r.min <= r.clua and r.clua <= r.max, r.figure)
    end
    assert.truthy(names[1]:find("^enqueue, host side, an event each"))
    assert.truthy(names[2]:find("^enqueue, host side, no event %("))
    assert.truthy(names[3]:find("^enqueue, host side, no event, go%(%) of a q:launcher"))
    assert.are.same({ "dispatch: QUEUED -> START", "  QUEUED -> SUBMIT", "  SUBMIT -> START",
      "execution: START -> END", "round trip: enqueue + clFinish (host clock)" }, { table.unpack(names, 4) })
    assert.is_true(t.rows[1].clua > 0)
  end)

  it("puts the C program's figure and its spread beside clua's, or says it is not built", function()
    for i = 1, 3 do
      local r = tables.launch.rows[i]
      local built = io.open("build/bench/launch") ~= nil
      if built then
        local c, ratio = r.C or r["C, events"], r["clua / C"] or r["clua / C, events"]
        assert.is_number(c)
        assert.is_true(c > 0)
        assert.is_number(ratio)
        -- the spread of the C program's batches, from the note it writes
        assert.is_number(r["C spread"])
        assert.is_true(r["C spread"] >= 0)
      elseif i > 1 then
        assert.are.equal("not built", r.C)
      end
    end
  end)

  it("says 'not run' with --no-c", function()
    local o, c = run(nil, "--no-c --launches 3 --n 10")
    assert.are.equal(0, c)
    assert.truthy(o:find("not run", 1, true))
  end)

  it("exits non-zero with no table when a result is corrupted", function()
    local o, c, e = run("CLUA_CORRUPT=launch")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("Kernel launch cost", 1, true))
    assert.truthy(e:find("verify", 1, true), e)
  end)
end)
