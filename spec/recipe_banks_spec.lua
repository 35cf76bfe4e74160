-- recipes/banks.lua --quick on the default device (PoCL in CI).
local support = require("spec.support.recipe")

local run = support.runner("banks")
local load_json, table_of = support.load_json, support.table_of

describe("recipes/banks.lua", function()
  local out, code, err, doc
  setup(function()
    local tmp = os.tmpname()
    local svg = os.tmpname()
    out, code, err = run("--json " .. tmp .. " --svg " .. svg)
    doc = load_json(tmp)
    local f = io.open(svg)
    doc.svg = f and f:read("a")
    if f then f:close() end
    os.remove(svg)
  end)

  it("exits 0 and prints the table and the plot", function()
    assert.are.equal(0, code, err)
    assert.truthy(out:find("Local-memory reads:", 1, true))
    assert.truthy(out:find("Bank conflicts: slowdown against stride 1", 1, true))
    assert.truthy(out:find("against the CPU's replay of the same chains", 1, true))
    assert.truthy(doc.svg and doc.svg:find("<svg", 1, true))
  end)

  it("has every stride, the random patterns and the broadcast, with the model's conflicts", function()
    local t = table_of(doc, "banks")
    assert.truthy(t)
    local seen, model = {}, {}
    for _, row in ipairs(t.rows) do
      seen[#seen + 1] = row.pattern
      model[row.pattern] = row.model
      assert.is_true(row.time > 0 and row.min <= row.time and row.time <= row.max)
      assert.is_true(row.slowdown > 0 and row["local reads"] > 0)
    end
    assert.are.same({ "stride 1", "stride 2", "stride 4", "stride 8", "stride 16", "stride 32", "stride 33",
      "random permutation", "random words", "broadcast" }, seen)
    assert.are.equal(1, t.rows[1].slowdown)
    for s, n in pairs{ [1] = 1, [2] = 2, [4] = 4, [8] = 8, [16] = 16, [32] = 32, [33] = 1 } do
      assert.are.equal(n, model["stride " .. s])
    end
    assert.are.equal(1, model["random permutation"])
    assert.are.equal(1, model["broadcast"])
    assert.is_true(model["random words"] > 1 and model["random words"] < 8)
  end)

  it("follows --banks in the model", function()
    local tmp = os.tmpname()
    local _, c, e = run("--banks 16 --reps 1 --warmup 0 --json " .. tmp)
    assert.are.equal(0, c, e)
    local rows = table_of(load_json(tmp), "banks").rows
    assert.are.same({ 16, 16, 1 }, { rows[5].model, rows[6].model, rows[7].model }) -- strides 16, 32, 33 over 16 banks
  end)

  it("fails without printing a figure when a result is corrupted", function()
    local o, c, e = run("", "CLUA_CORRUPT=banks")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("GB/s", 1, true))
    assert.falsy(o:find("slowdown", 1, true))
    assert.truthy(e:find("verify stride 1 (", 1, true), e)
  end)

  -- Assignment mode: out holds one word per work-item of the launch, every one owned, so a write outside
  -- the kernel's part lands past out (the guard) or in an input (table, start).
  it("fails a correct student's chase that also writes into its table, an input", function()
    local o, c, e = run("--groups 2 --reps 1 --kernel spec/fixtures/own/banks_input.cl")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("Local-memory reads", 1, true))
    assert.truthy(e:find("student: table: an input changed: 1 of 2048 elements, the first at index 2047", 1, true), e)
  end)

  it("fails a correct student's chase that also writes past its allocation", function()
    local o, c, e = run("--groups 2 --reps 1 --kernel spec/fixtures/own/banks_past_end.cl")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("Local-memory reads", 1, true))
    assert.truthy(e:find("student: out: 4 bytes written at offset 2048, past the end (2048 bytes) (after student: "
      .. "chase (banks_past_end.cl), stride 1)", 1, true), e)
  end)
end)
