-- recipes/atomics.lua --quick on the default device (PoCL in CI), run as a
-- subprocess: a row per memory, contention and type, every counter verified
-- exactly; CLUA_CORRUPT=atomics makes it exit non-zero with no table.
local json = require("dkjson")
local support = require("spec.support.recipe")

local run = support.runner("atomics", { env_first = true })

describe("recipe atomics", function()
  local out, code, err, t

  setup(function()
    local path = os.tmpname()
    out, code, err = run(nil, "--json " .. path)
    local text = support.slurp(path)
    os.remove(path)
    t = text and support.by_id(json.decode(text)).atomics
  end)

  it("runs --quick and exits 0", function()
    assert.are.equal(0, code, err)
    assert.truthy(out:find("Atomic adds:", 1, true))
  end)

  it("has every contention level and type, global and local", function()
    local seen = {}
    for _, r in ipairs(t.rows) do
      seen[r.memory .. "|" .. r.contention .. "|" .. r.type] = true
      assert.is_true(r.rate > 0)
      assert.is_number(r.spread)
    end
    for _, c in ipairs({ "global|one address|int", "global|one per work-group|uint", "global|all distinct|int",
      "global|one per warp (32)|float (compare-exchange)", "local|one per work-group|int", "local|all distinct|uint" }) do
      assert.is_true(seen[c], c)
    end
    assert.falsy(seen["local|one address|int"]) -- one address is global only
  end)

  it("has long where the device has cl_khr_int64_base_atomics, else says why", function()
    local long = false
    for _, r in ipairs(t.rows) do long = long or r.type == "long" end
    assert.is_true(long or out:find("no long row", 1, true) ~= nil)
  end)

  it("has the C11 row where the compiler takes it, else says why", function()
    local c11 = false
    for _, r in ipairs(t.rows) do c11 = c11 or r.type:find("C11", 1, true) ~= nil end
    assert.is_true(c11 or out:find("no C11 row", 1, true) ~= nil)
  end)

  it("exits non-zero with no table when a result is corrupted", function()
    local o, c, e = run("CLUA_CORRUPT=atomics")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("Atomic adds:", 1, true))
    assert.truthy(e:find("verify global, one address, int: counters", 1, true), e)
  end)
end)
