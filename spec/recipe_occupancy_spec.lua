-- recipes/occupancy.lua --quick as a subprocess: its tables, its rows, and a
-- corrupted result caught (CLUA_CORRUPT) with no table printed.
local RECIPE = "occupancy"
package.path = "lua/?.lua;" .. package.path
local report = require("clua.report")
local support = require("spec.support.recipe")

local run = support.runner(RECIPE, { env_first = true, code_first = true })

describe("recipe occupancy", function()
  local by, out = support.tables(RECIPE)

  it("prints both sweeps and the plot", function()
    assert.matches("Occupancy by work%-group size", out)
    assert.matches("Occupancy by local memory reserved per group", out)
    assert.matches("Throughput vs ", out)
  end)

  -- A device without warps (a CPU) gets no occupancy figure: "-" and one note.
  local function applies(t)
    local notes = table.concat(t.notes, "\n")
    if t.rows[1].occupancy ~= nil then return true end
    assert.matches("occupancy does not apply", notes)
    for _, r in ipairs(t.rows) do
      assert.is_nil(r.occupancy)
      assert.is_nil(r["limited by"])
      assert.is_nil(r["groups/CU"])
    end
    return false
  end

  it("sweeps work-group sizes for copy, copy4, chase and chain, with the computed occupancy", function()
    local t = assert(by["work-group"])
    local seen, occ = {}, applies(t)
    for _, r in ipairs(t.rows) do
      seen[r.kernel] = (seen[r.kernel] or 0) + 1
      assert.is_true(r["work-group"] >= 32)
      assert.equal(0, r["local"])
      if occ then
        assert.is_true(r.occupancy > 0 and r.occupancy <= 100)
        assert.is_string(r["limited by"])
      end
      assert.is_true(r.rate > 0)
      assert.is_true(r.time >= r.min and r.time <= r.max)
    end
    for _, k in ipairs({ "copy", "copy4", "chase", "chain" }) do assert.is_true((seen[k] or 0) >= 2, k) end
  end)

  it("sweeps local memory from 0 upwards, lowering the computed occupancy", function()
    local t = assert(by["local"])
    local first, last = {}, {}
    for _, r in ipairs(t.rows) do
      if not first[r.kernel] then first[r.kernel] = r end
      last[r.kernel] = r
    end
    assert.is_nil(first.copy)
    for _, k in ipairs({ "copy4", "chase", "chain" }) do
      assert.equal(0, first[k]["local"])
      assert.is_true(last[k]["local"] > 0)
      if applies(t) then
        assert.is_true(last[k].occupancy < first[k].occupancy)
        assert.matches("local memory", last[k]["limited by"])
      end
    end
  end)

  it("shows the computed occupancy where it applies (--cc: a GPU's limits)", function()
    local json = os.tmpname()
    local status, stdout, stderr = run(nil, "--cc 9.0 --json " .. json)
    assert.equal(0, status, stderr)
    local d = report.load(json)
    os.remove(json)
    for _, t in ipairs(d.tables) do
      for _, r in ipairs(t.rows) do
        assert.is_number(r.occupancy)
        assert.is_string(r["limited by"])
      end
      assert.not_matches("occupancy does not apply", table.concat(t.notes, "\n"))
    end
    assert.matches("Throughput vs computed occupancy", stdout)
  end)

  it("leaves out, with a note, the work-group sizes the driver refuses", function()
    local json = os.tmpname()
    local status, _, stderr = run("LUA_INIT_5_4=@spec/refuse_shim.lua", "--json " .. json)
    assert.equal(0, status, stderr)
    local d = report.load(json)
    os.remove(json)
    local t = d.tables[1]
    assert.equal("work-group", t.id)
    assert.is_true(#t.rows >= 4)
    for _, r in ipairs(t.rows) do assert.is_true(r["work-group"] <= 256) end
    local notes = table.concat(t.notes, "\n")
    assert.matches("copy, work%-group %d+, 0 bytes local: left out, the driver refused it: CL_INVALID_WORK_GROUP_SIZE", notes)
  end)

  it("exits non-zero with no table when a result is corrupted", function()
    local status, stdout, stderr = run("CLUA_CORRUPT=occupancy")
    assert.is_not.equal(0, status)
    assert.equal("", stdout)
    assert.matches("verify copy %(work%-group %d+, 0 bytes local%): out%[0 %.%. %d+%): 1 of", stderr)
  end)
end)
