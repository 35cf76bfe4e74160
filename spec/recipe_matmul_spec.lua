-- recipes/matmul.lua --quick on the default device (PoCL in CI).
local support = require("spec.support.recipe")

local run = support.runner("matmul")
local load_json, table_of = support.load_json, support.table_of

describe("recipes/matmul.lua", function()
  local out, code, err, doc
  setup(function()
    local tmp = os.tmpname()
    out, code, err = run("--json " .. tmp)
    doc = load_json(tmp)
  end)

  it("exits 0 and prints the guide's Table 3.2 and the N x N table", function()
    assert.are.equal(0, code, err)
    assert.truthy(out:find("the guide's Table 3.2", 1, true))
    assert.truthy(out:find("the slides' naive and tiled multiply", 1, true))
    assert.truthy(out:find("verified: tile 16: every element", 1, true))
  end)

  it("has the guide's three kernels with tile 16, beside the GTX 280's figures", function()
    local t = table_of(doc, "table_3_2")
    assert.truthy(t)
    local seen = {}
    for _, row in ipairs(t.rows) do
      if row.tile == 16 then seen[#seen + 1] = row.kernel end
      assert.is_true(row.time > 0 and row.min <= row.time and row.time <= row.max)
      assert.is_true(row.effective > 0 and row["GFLOP/s"] > 0)
    end
    assert.are.same({ "simpleMultiply", "coalescedMultiply", "sharedABMultiply" }, seen)
    assert.are.equal(8.8, t.rows[1]["GTX 280"])
    assert.are.equal(29.7, t.rows[3]["GTX 280"])
    assert.are.equal(1, t.rows[1].speedup)
  end)

  it("has the naive and tiled N x N rows", function()
    local t = table_of(doc, "nxn")
    assert.truthy(t)
    assert.are.equal("naive", t.rows[1].variant)
    assert.are.equal("tiled", t.rows[#t.rows].variant)
    for _, row in ipairs(t.rows) do assert.is_true(row["GFLOP/s"] > 0) end
  end)

  it("adds the warp-width tile with --tile, and checks sampled rows and sums on larger sizes", function()
    local tmp = os.tmpname()
    local _, c, e = run("--tile 32 --size 4MiB --n 160 --reps 1 --warmup 0 --json " .. tmp)
    assert.are.equal(0, c, e)
    local d = load_json(tmp)
    local tiles = {}
    for _, row in ipairs(table_of(d, "table_3_2").rows) do tiles[row.tile] = (tiles[row.tile] or 0) + 1 end
    assert.are.same({ [16] = 3, [32] = 3 }, tiles)
    local notes = table.concat(table_of(d, "table_3_2").notes, "\n")
    assert.truthy(notes:find("tile 32: %d+ whole rows against the CPU product; every row sum and column sum"), notes)
    assert.are.equal(3, #table_of(d, "nxn").rows)
  end)

  it("leaves out, with a note, a tile whose groups the driver refuses", function()
    local tmp = os.tmpname()
    local _, c, e = run("--tile 32 --reps 1 --warmup 0 --json " .. tmp, "LUA_INIT_5_4=@spec/refuse_shim.lua")
    assert.are.equal(0, c, e)
    local d = load_json(tmp)
    for _, id in ipairs({ "table_3_2", "nxn" }) do
      for _, row in ipairs(table_of(d, id).rows) do assert.are.equal(16, row.tile) end
      local notes = table.concat(table_of(d, id).notes, "\n")
      assert.truthy(notes:find("tile 32 left out: the driver refused simpleMultiply in 32 x 32 groups: "
        .. "CL_INVALID_WORK_GROUP_SIZE", 1, true), notes)
    end
  end)

  it("fails without printing a figure when a result is corrupted", function()
    local o, c, e = run("", "CLUA_CORRUPT=matmul")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("GB/s", 1, true))
    assert.falsy(o:find("Table 3.2", 1, true))
    assert.truthy(e:find("verify", 1, true), e)
  end)

  it("fails a student's kernel that writes an element of C outside the part it owns, naming it", function()
    -- correct on the full grid; its extra c[N * N - 1] lies outside the launch a tile row short
    local o, c, e = run("--tile 16 --n 16 --reps 1 --kernel spec/fixtures/own/matmul_outside.cl")
    assert.are.equal(1, c, e)
    assert.are.equal("", o)
    assert.truthy(e:find("student: matmul (matmul_outside.cl), tile 16, a tile row short: c[65535] written "
      .. "outside the part the kernel owns (c[0 .. 61440) of 65536 elements", 1, true), e)
  end)

  it("fails a student's kernel that writes past the end of C (a guard zone)", function()
    local o, c, e = run("--tile 16 --n 16 --reps 1 --kernel spec/fixtures/own/matmul_past_end.cl")
    assert.are.equal(1, c, e)
    assert.are.equal("", o)
    assert.truthy(e:find("student: c: 4 bytes written at offset 262144, past the end (262144 bytes)", 1, true), e)
  end)

  it("rejects a tile larger than a work-group", function()
    local _, c, e = run("--tile 1000")
    assert.are_not.equal(0, c)
    assert.truthy(e:find("exceeds the device", 1, true), e)
  end)
end)
