-- recipes/scan.lua --quick on the default device (PoCL in CI), run as a
-- subprocess: the work-group and large-array rows without and with padding,
-- and CLUA_CORRUPT=scan makes it exit non-zero with no table.
local json = require("dkjson")
local support = require("spec.support.recipe")

local run = support.runner("scan", { env_first = true })
local slurp, by_id = support.slurp, support.by_id

describe("recipe scan", function()
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
    assert.truthy(out:find("Exclusive scan of 262144 uints", 1, true))
  end)

  it("has both scopes without and with padding, padding speed-ups against the unpadded row", function()
    local t = assert(tables.scan)
    assert.are.equal(6, #t.rows)
    local i = 0
    for _, scope in ipairs({ "work-group scan", "large-array scan" }) do
      for _, pad in ipairs({ "no padding", "CONFLICT_FREE_OFFSET", "zero-conflicts offset" }) do
        i = i + 1
        local r = t.rows[i]
        assert.are.equal(scope .. ", " .. pad, r.variant)
        assert.is_true(r.time > 0 and r.min <= r.time and r.time <= r.max)
        assert.is_true(r.bandwidth > 0)
        if pad == "no padding" then
          assert.is_nil(r["padding speed-up"])
        else
          local plain = t.rows[i - (pad == "CONFLICT_FREE_OFFSET" and 1 or 2)]
          assert.is_true(math.abs(r["padding speed-up"] - plain.time / r.time) < 1e-9)
        end
      end
    end
    assert.are.equal(1, t.rows[1].launches)
    assert.are.equal(3, t.rows[4].launches) -- 262144 -> 512 -> 1: scan, scan, add
  end)

  it("takes --local 512, and names the driver's refusal when every kernel is refused", function()
    local o, c, e = run(nil, "--local 512 --reps 1 --warmup 0")
    assert.are.equal(0, c, e)
    assert.truthy(o:find("blocks of 1024", 1, true), o)
    o, c, e = run("LUA_INIT_5_4=@spec/refuse_shim.lua", "--local 512 --reps 1 --warmup 0")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("Exclusive scan", 1, true))
    assert.truthy(e:find("--local 512: the driver refused every scan kernel", 1, true), e)
    assert.truthy(e:find("CL_INVALID_WORK_GROUP_SIZE", 1, true), e)
  end)

  it("exits non-zero with no table when a result is corrupted", function()
    local o, c, e = run("CLUA_CORRUPT=scan")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("Exclusive scan", 1, true))
    assert.falsy(o:find("variant", 1, true))
    assert.truthy(e:find("verify work-group scan, no padding: out[0 .. 262144)", 1, true), e)
  end)

  -- Assignment mode: 1000 uints, out holds two whole blocks of 512; a scan owns out[0 .. 1000).
  it("fails a correct student's scan that also writes into out's tail past n, naming the element and the part", function()
    local o, c, e = run(nil, "--size 4000 --reps 1 --kernel spec/fixtures/own/scan_outside.cl")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("Exclusive scan", 1, true))
    assert.truthy(e:find("work-group scan, student: scan (scan_outside.cl): out[1000] written outside the part the "
      .. "kernel owns (out[0 .. 1000) of 1024 elements", 1, true), e)
  end)

  it("fails a correct student's scan that also writes past its allocation", function()
    local o, c, e = run(nil, "--size 4000 --reps 1 --kernel spec/fixtures/own/scan_past_end.cl")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("Exclusive scan", 1, true))
    assert.truthy(e:find("student: out: 4 bytes written at offset 4096, past the end (4096 bytes) (after work-group "
      .. "scan, student: scan (scan_past_end.cl))", 1, true), e)
  end)
end)
