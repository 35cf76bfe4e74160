-- recipes/transpose.lua --quick on the default device (PoCL in CI).
local support = require("spec.support.recipe")

local run = support.runner("transpose")
local load_json, table_of = support.load_json, support.table_of

-- The default tile: the warp width where the device reports one (NVIDIA: 32), else 16;
-- its column read is a 32-way bank conflict at 32, 8-way at 16 (32 banks).
local TILE = require("cl").device().info.warp_size or 16
local CONFLICT = ({ [16] = 8, [32] = 32 })[TILE]

describe("recipes/transpose.lua", function()
  local out, code, err, doc
  setup(function()
    local tmp = os.tmpname()
    out, code, err = run("--json " .. tmp)
    doc = load_json(tmp)
  end)

  it("exits 0 and prints the table", function()
    assert.are.equal(0, code, err)
    assert.truthy(out:find(("Transpose of a 256 x 256 float matrix (%d x %d tiles)"):format(TILE, TILE), 1, true), out)
    assert.truthy(out:find("verified: every element, exactly", 1, true))
  end)

  it("has the copy, the naive, the local and the padded local tile, against the copy", function()
    local t = table_of(doc, "transpose")
    assert.truthy(t)
    local seen = {}
    for _, row in ipairs(t.rows) do
      seen[#seen + 1] = row.variant
      assert.is_true(row.time > 0 and row.min <= row.time and row.time <= row.max)
      assert.is_true(row.bandwidth > 0 and row["of copy"] > 0)
    end
    assert.are.same({ "copy", "naive", "local tile", "padded local tile" }, seen)
    assert.are.equal(100, t.rows[1]["of copy"])
    assert.are.equal(CONFLICT, t.rows[3]["tile read"])
  end)

  it("transposes a non-square matrix with 32 x 32 tiles", function()
    local tmp = os.tmpname()
    local o, c, e = run("--tile 32 --aspect 3 --reps 1 --warmup 0 --json " .. tmp)
    assert.are.equal(0, c, e)
    assert.truthy(o:find("Transpose of a 128 x 384 float matrix (32 x 32 tiles)", 1, true), o)
    local t = table_of(load_json(tmp), "transpose")
    assert.are.same({ 32, 1 }, { t.rows[3]["tile read"], t.rows[4]["tile read"] })
  end)

  it("halves the tile, with a note, when the driver refuses its groups", function()
    local tmp = os.tmpname()
    local o, c, e = run("--reps 1 --warmup 0 --json " .. tmp, "CLUA_REFUSE_ABOVE=64 LUA_INIT_5_4=@spec/refuse_shim.lua")
    assert.are.equal(0, c, e)
    assert.truthy(o:find("(8 x 8 tiles)", 1, true), o)
    local notes = table.concat(table_of(load_json(tmp), "transpose").notes, "\n")
    assert.truthy(notes:find("tile 16 left out: the driver refused copy2d in 16 x 16 groups: "
      .. "CL_INVALID_WORK_GROUP_SIZE", 1, true), notes)
  end)

  it("fails without printing a figure when a result is corrupted", function()
    local o, c, e = run("", "CLUA_CORRUPT=transpose")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("GB/s", 1, true))
    assert.falsy(o:find("Transpose of", 1, true))
    assert.truthy(e:find("verify copy", 1, true), e)
  end)

  it("fails a student's kernel that writes an element of c outside the part it owns, naming it", function()
    -- correct on the full grid; its extra c[n - 1] lies outside the launch a tile column short
    local o, c, e = run("--reps 1 --kernel spec/fixtures/own/transpose_outside.cl")
    assert.are.equal(1, c, e)
    assert.are.equal("", o)
    assert.truthy(e:find(("student: transpose (transpose_outside.cl), a tile column short: c[65535] written "
      .. "outside the part the kernel owns (c[0 .. %d) of 65536 elements"):format((256 - TILE) * 256), 1, true), e)
  end)

  it("fails a student's kernel that writes past the end of c (a guard zone)", function()
    local o, c, e = run("--reps 1 --kernel spec/fixtures/own/transpose_past_end.cl")
    assert.are.equal(1, c, e)
    assert.are.equal("", o)
    assert.truthy(e:find("student: c: 4 bytes written at offset 262144, past the end (262144 bytes)", 1, true), e)
  end)
end)
