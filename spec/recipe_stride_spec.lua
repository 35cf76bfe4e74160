-- recipes/stride.lua --quick on the default device (PoCL in CI), run as a
-- subprocess: one row per stride 1..32 then powers of two, with a bandwidth, a
-- model and a plot; CLUA_CORRUPT=stride makes it exit non-zero with no table.
local json = require("dkjson")
local support = require("spec.support.recipe")

local run = support.runner("stride", { env_first = true })
local slurp, by_id = support.slurp, support.by_id

describe("recipe stride", function()
  local out, code, err, tables

  setup(function()
    local path = os.tmpname()
    out, code, err = run(nil, "--json " .. path .. " --max-stride 128")
    local text = slurp(path)
    os.remove(path)
    tables = text and by_id(json.decode(text)) or {}
  end)

  it("runs --quick and exits 0", function()
    assert.are.equal(0, code, err)
    assert.truthy(out:find("strideCopy: effective bandwidth by stride", 1, true))
  end)

  it("has one row per stride 1..32, then 64 and 128", function()
    local t = assert(tables.stride)
    local want = {}
    for s = 1, 32 do want[#want + 1] = s end
    want[#want + 1] = 64
    want[#want + 1] = 128
    assert.are.equal(#want, #t.rows)
    for i, r in ipairs(t.rows) do
      assert.are.equal(want[i], r.stride)
      assert.is_true(r.bandwidth > 0)
      assert.is_true(r.min <= r.bandwidth and r.bandwidth <= r.max)
      assert.is_true(r.model > 0)
      assert.is_true(r["work-items"] > 0)
    end
    assert.are.equal(100, t.rows[1]["vs stride 1"])
    -- the model: stride 1's bandwidth over the floats of a sector, then flat
    assert.is_true(math.abs(t.rows[1].model - t.rows[1].bandwidth) < 1e-9)
    assert.is_true(math.abs(t.rows[2].model - t.rows[1].bandwidth / 2) < 1e-9)
    assert.is_true(math.abs(t.rows[33].model - t.rows[34].model) < 1e-9)
  end)

  it("draws the plot (Figure 3.9)", function()
    assert.truthy(out:find("strideCopy: effective bandwidth (Figure 3.9)", 1, true))
  end)

  it("fails a student's kernel that writes inside odata outside the part it owns", function()
    for _, c in ipairs({
      { "stride_outside.cl", "student: strideCopy (stride_outside.cl), stride 3: odata[1048320] written outside "
        .. "the part the kernel owns (odata[0 .. 1048318) of 1048576 elements" },
      { "stride_gap.cl", "student: strideCopy (stride_gap.cl), stride 2: odata[1] written outside the part the "
        .. "kernel owns (odata[i*2], 0 <= i < 524288)" },
      { "stride_past.cl", "student: odata: 4 bytes written at offset 4194304, past the end (4194304 bytes) (after "
        .. "student: strideCopy (stride_past.cl), stride 1)" },
    }) do
      local o, rc, e = run(nil, "--max-stride 4 --kernel spec/fixtures/own/" .. c[1])
      assert.are.equal(1, rc, c[1])
      assert.are.equal("", o)
      assert.truthy(e:find(c[2], 1, true), e)
    end
  end)

  it("has a spread column", function()
    for _, r in ipairs(tables.stride.rows) do assert.is_number(r.spread) end
  end)

  it("exits non-zero with no table when a result is corrupted", function()
    local o, c, e = run("CLUA_CORRUPT=stride")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("strideCopy: effective bandwidth by stride", 1, true))
    assert.truthy(e:find("verify", 1, true), e)
  end)
end)
