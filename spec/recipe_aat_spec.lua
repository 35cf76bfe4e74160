-- recipes/aat.lua --quick on the default device (PoCL in CI).
local support = require("spec.support.recipe")

local run = support.runner("aat")
local load_json, table_of = support.load_json, support.table_of

describe("recipes/aat.lua", function()
  local out, code, err, doc
  setup(function()
    local tmp = os.tmpname()
    out, code, err = run("--json " .. tmp)
    doc = load_json(tmp)
  end)

  it("exits 0 and prints the guide's Table 3.3", function()
    assert.are.equal(0, code, err)
    assert.truthy(out:find("the guide's Table 3.3", 1, true))
    assert.truthy(out:find("verified: tile 16: every element", 1, true))
  end)

  it("has the guide's three kernels with tile 16, their bank conflicts and the GTX 280's figures", function()
    local t = table_of(doc, "table_3_3")
    assert.truthy(t)
    local seen, way = {}, {}
    for _, row in ipairs(t.rows) do
      if row.tile == 16 then seen[#seen + 1] = row.kernel; way[#way + 1] = row["tile write"] or "-" end
      assert.is_true(row.time > 0 and row.min <= row.time and row.time <= row.max)
      assert.is_true(row.effective > 0)
    end
    assert.are.same({ "simpleMultiply", "coalescedMultiply", "coalescedMultiplyPadded" }, seen)
    -- 32 banks, warps of 32: a 16-wide column is 8-way; padded to 17, one bank still takes 2
    assert.are.same({ "-", 8, 2 }, way)
    assert.are.same({ 1.1, 24.8, 30.3 }, { t.rows[1]["GTX 280"], t.rows[2]["GTX 280"], t.rows[3]["GTX 280"] })
  end)

  it("adds the warp-width tile with --tile: 32-way unpadded, conflict-free padded", function()
    local tmp = os.tmpname()
    local _, c, e = run("--tile 32 --size 4MiB --reps 1 --warmup 0 --json " .. tmp)
    assert.are.equal(0, c, e)
    local d = load_json(tmp)
    local t = table_of(d, "table_3_3")
    local way = {}
    for _, row in ipairs(t.rows) do if row.tile == 32 then way[#way + 1] = row["tile write"] or "-" end end
    assert.are.same({ "-", 32, 1 }, way)
    local notes = table.concat(t.notes, "\n")
    assert.truthy(notes:find("tile 32: %d+ whole rows against the CPU product; every row sum and column sum"), notes)
  end)

  it("leaves out, with a note, a tile whose groups the driver refuses", function()
    local tmp = os.tmpname()
    local _, c, e = run("--tile 32 --reps 1 --warmup 0 --json " .. tmp, "LUA_INIT_5_4=@spec/refuse_shim.lua")
    assert.are.equal(0, c, e)
    local t = table_of(load_json(tmp), "table_3_3")
    for _, row in ipairs(t.rows) do assert.are.equal(16, row.tile) end
    local notes = table.concat(t.notes, "\n")
    assert.truthy(notes:find("tile 32 left out: the driver refused simpleMultiply in 32 x 32 groups: "
      .. "CL_INVALID_WORK_GROUP_SIZE", 1, true), notes)
  end)

  it("models the guide's half-warps with --banks 16: 16-way unpadded, conflict-free padded", function()
    local tmp = os.tmpname()
    local _, c, e = run("--banks 16 --reps 1 --warmup 0 --json " .. tmp)
    assert.are.equal(0, c, e)
    local rows = table_of(load_json(tmp), "table_3_3").rows
    assert.are.same({ 16, 1 }, { rows[2]["tile write"], rows[3]["tile write"] })
  end)

  it("fails without printing a figure when a result is corrupted", function()
    local o, c, e = run("", "CLUA_CORRUPT=aat")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("GB/s", 1, true))
    assert.falsy(o:find("Table 3.3", 1, true))
    assert.truthy(e:find("verify", 1, true), e)
  end)

  it("fails a student's kernel that writes an element of C outside the part it owns, naming it", function()
    -- correct on the full grid; its extra c[M * M - 1] lies outside the launch a tile row short
    local o, c, e = run("--tile 16 --reps 1 --kernel spec/fixtures/own/aat_outside.cl")
    assert.are.equal(1, c, e)
    assert.are.equal("", o)
    assert.truthy(e:find("student: aat (aat_outside.cl), tile 16, a tile row short: c[65535] written "
      .. "outside the part the kernel owns (c[0 .. 61440) of 65536 elements", 1, true), e)
  end)

  it("fails a student's kernel that writes past the end of C (a guard zone)", function()
    local o, c, e = run("--tile 16 --reps 1 --kernel spec/fixtures/own/aat_past_end.cl")
    assert.are.equal(1, c, e)
    assert.are.equal("", o)
    assert.truthy(e:find("student: c: 4 bytes written at offset 262144, past the end (262144 bytes)", 1, true), e)
  end)
end)
