-- recipes/image.lua --quick on the default device (PoCL in CI), run as a
-- subprocess: both memories for every pattern, the three filtering variants,
-- and CLUA_CORRUPT=image makes it exit non-zero with no table.
local json = require("dkjson")
local cl = require("cl")
local support = require("spec.support.recipe")

local run = support.runner("image", { env_first = true })
local slurp, by_id = support.slurp, support.by_id

local PATTERNS = { "copy (row-major)", "3x3 average (2D locality)", "shifted by 1 pixel (misaligned)",
  "transposed read (column walk)", "scattered (stride P mod W*H)" }
local FILTERS = { "global, bilinear by hand (4 reads)", "image, bilinear by hand (4 nearest reads)",
  "image, CLK_FILTER_LINEAR (1 read)" }

local describe_images = cl.device().info.image_support and describe or pending

describe_images("recipe image", function()
  local out, code, err, tables

  setup(function()
    local path = os.tmpname()
    -- 256x256: every pixel checked on the CPU; --full-check 128 would check rows
    out, code, err = run(nil, "--json " .. path)
    local text = slurp(path)
    os.remove(path)
    tables = text and by_id(json.decode(text)) or {}
  end)

  it("runs --quick and exits 0", function()
    assert.are.equal(0, code, err)
    assert.truthy(out:find("Image vs global reads, 256x256 floats", 1, true))
    assert.truthy(out:find("Bilinear interpolation", 1, true))
  end)

  it("has a __global and an image2d_t row for every pattern", function()
    local t = assert(tables.image)
    assert.are.equal(2 * #PATTERNS, #t.rows)
    for i, p in ipairs(PATTERNS) do
      local g, im = t.rows[2 * i - 1], t.rows[2 * i]
      assert.are.equal(p, g.pattern)
      assert.are.equal(p, im.pattern)
      assert.are.equal("__global", g.memory)
      assert.are.equal("image2d_t", im.memory)
      for _, r in ipairs({ g, im }) do
        assert.is_true(r.time > 0 and r.min <= r.time and r.time <= r.max)
        assert.is_true(r.bandwidth > 0)
        assert.are.equal("full", r.checked)
      end
      assert.is_true(math.abs(im["image speed-up"] - g.time / im.time) < 1e-9)
    end
  end)

  it("has the three filtering variants with their errors under tolerance", function()
    local t = assert(tables.filter)
    assert.are.equal(#FILTERS, #t.rows)
    for i, v in ipairs(FILTERS) do
      local r = t.rows[i]
      assert.are.equal(v, r.variant)
      assert.is_true(r.time > 0 and r.bandwidth > 0)
      assert.is_true(r["max error"] <= r.tolerance)
    end
    assert.are.equal(1, t.rows[1]["speed-up"])
  end)

  it("exits non-zero with no table when a result is corrupted", function()
    for _, args in ipairs({ "", "--full-check 128" }) do
      local o, c, e = run("CLUA_CORRUPT=image", args)
      assert.are_not.equal(0, c)
      assert.falsy(o:find("Image vs global", 1, true))
      assert.falsy(o:find("pattern", 1, true))
      -- the harness corrupts the run's first verification: the copy on the small image
      assert.truthy(e:find("verify copy (row-major) (global) 509x317: out[0 .. 161353): 1 of 161353", 1, true), e)
    end
  end)
end)
