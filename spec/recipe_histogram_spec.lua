-- recipes/histogram.lua --quick on the default device (PoCL in CI), run as a
-- subprocess: three variants by bin count and input, every bin verified
-- exactly; CLUA_CORRUPT=histogram makes it exit non-zero with no table; in
-- assignment mode a student's kernel is ranked, and one that writes a bin
-- past those it owns, or past hist, fails naming it.
local json = require("dkjson")
local support = require("spec.support.recipe")

local run = support.runner("histogram", { env_first = true })
local TITLE = "Histogram of 16384 keys"

describe("recipe histogram", function()
  local out, code, err, t

  setup(function()
    local path = os.tmpname()
    out, code, err = run(nil, "--json " .. path)
    local text = support.slurp(path)
    os.remove(path)
    t = text and support.by_id(json.decode(text)).histogram
  end)

  it("runs --quick and exits 0", function()
    assert.are.equal(0, code, err)
    assert.truthy(out:find(TITLE, 1, true))
  end)

  it("has the three variants at 16 and 65536 bins, uniform and skewed", function()
    local seen, n = {}, 0
    for _, r in ipairs(t.rows) do
      seen[("%s|%d|%s"):format(r.input, r.bins, r.variant)] = true
      assert.is_true(r.rate > 0)
      assert.is_number(r.spread)
      n = n + 1
    end
    for _, input in ipairs({ "uniform", "skewed" }) do
      for _, b in ipairs({ 16, 65536 }) do
        assert.is_true(seen[("%s|%d|global atomics"):format(input, b)])
        assert.is_true(seen[("%s|%d|sort-based (bitonic + binary search)"):format(input, b)])
      end
    end
    assert.is_true(n >= 8)
  end)

  it("ranks a correct student's kernel", function()
    local o, c, e = run(nil, "--kernel spec/fixtures/own/histogram_ok.cl")
    assert.are.equal(0, c, e)
    assert.truthy(o:find("skewed keys, 65536 bins: student: histogram (histogram_ok.cl) ranks", 1, true), o)
  end)

  it("fails a student's kernel that writes a bin past those it owns, inside hist", function()
    local o, c, e = run(nil, "--kernel spec/fixtures/own/histogram_outside.cl")
    assert.are.equal(1, c)
    assert.are.equal("", o)
    assert.truthy(e:find("student: histogram (histogram_outside.cl), uniform keys, 16 bins: hist[16] written "
      .. "outside the part the kernel owns (hist[0 .. 16) of 65536 elements", 1, true), e)
  end)

  it("fails a student's kernel that writes past hist", function()
    local o, c, e = run(nil, "--kernel spec/fixtures/own/histogram_past.cl")
    assert.are.equal(1, c)
    assert.are.equal("", o)
    assert.truthy(e:find("student: hist: 4 bytes written at offset 262144, past the end (262144 bytes)", 1, true), e)
  end)

  it("exits non-zero with no table when a result is corrupted", function()
    local o, c, e = run("CLUA_CORRUPT=histogram")
    assert.are_not.equal(0, c)
    assert.falsy(o:find(TITLE, 1, true))
    assert.truthy(e:find("verify global atomics, uniform keys, 16 bins: hist[0 .. 16)", 1, true), e)
  end)
end)
