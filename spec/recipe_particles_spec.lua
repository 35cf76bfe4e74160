-- recipes/particles.lua --quick on the default device (PoCL in CI), run as a
-- subprocess: the Euler step in five layouts, with kernel and transfer times;
-- CLUA_CORRUPT=particles makes it exit non-zero with no table.
local json = require("dkjson")
local support = require("spec.support.recipe")

local run = support.runner("particles", { env_first = true })
local slurp, by_id = support.slurp, support.by_id

describe("recipe particles", function()
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
    assert.truthy(out:find("One Euler step of", 1, true))
  end)

  it("has one row per layout, with kernel and transfer times", function()
    local t = assert(tables.layouts)
    assert.are.equal(5, #t.rows)
    local want = { "^AoS float3", "^SoA float3", "^SoA float arrays", "^AoS float4%-padded", "^SoA float4" }
    for i, r in ipairs(t.rows) do
      assert.truthy(r.layout:find(want[i]), r.layout)
      assert.is_true(r.kernel > 0 and r.effective > 0)
      assert.is_true(r.actual >= r.effective - 1e-9)
      assert.is_true(r["H2D in"] > 0 and r["D2H out"] > 0)
    end
    assert.are.equal(1, t.rows[1]["vs AoS"])
    assert.are.equal(36, t.rows[1].stored)
    assert.are.equal(48, t.rows[4].stored)
    assert.are.equal(80, t.rows[4].moved)
  end)

  it("sets the transfers beside the kernel, with the seed's figures", function()
    local t = assert(tables.transfer)
    local seen = {}
    for _, r in ipairs(t.rows) do seen[r.step] = r end
    for _, s in ipairs({ "H2D pageable", "H2D pinned", "kernel, AoS", "D2H pageable", "D2H pinned" }) do
      assert.truthy(seen[s], s)
    end
    assert.are.equal(6, #t.rows)
    assert.are.equal(15.3e6, seen["H2D pageable"]["seed (GTX 280)"])
    assert.are.equal(1.32e6, seen["kernel, AoS"]["seed (GTX 280)"])
    assert.are.equal(1, seen["kernel, AoS"]["vs kernel"])
  end)

  it("exits non-zero with no table when a result is corrupted", function()
    local o, c, e = run("CLUA_CORRUPT=particles")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("One Euler step of", 1, true))
    assert.truthy(e:find("verify eulerAoS write: in[0 .. 589824)", 1, true), e)
  end)

  -- Assignment mode, SoA: out holds 9 n floats as in does; the step owns the 6 n of pos' and vel'.
  it("fails a correct student's step that also writes into out's force rows, naming the element and the part", function()
    local o, c, e = run(nil, "--reps 1 --kernel spec/fixtures/own/particles_outside.cl")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("One Euler step of", 1, true))
    assert.truthy(e:find("student: euler (particles_outside.cl): out[393221] written outside the part the kernel "
      .. "owns (out[0 .. 393216) of 589824 elements", 1, true), e)
  end)

  it("fails a correct student's step that also writes past its allocation", function()
    local o, c, e = run(nil, "--reps 1 --kernel spec/fixtures/own/particles_past_end.cl")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("One Euler step of", 1, true))
    assert.truthy(e:find("student: out: 4 bytes written at offset 2359296, past the end (2359296 bytes) (after "
      .. "student: euler (particles_past_end.cl))", 1, true), e)
  end)
end)
