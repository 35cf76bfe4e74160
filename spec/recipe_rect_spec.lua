-- recipes/rect.lua --quick on the default device (PoCL in CI), run as a
-- subprocess: the slides' 7x7-in-8x8 example, pitched transfers beside
-- contiguous ones, row kernels with and without padding; CLUA_CORRUPT=rect
-- makes it exit non-zero with no table.
local json = require("dkjson")
local support = require("spec.support.recipe")

local run = support.runner("rect", { env_first = true })
local slurp, by_id = support.slurp, support.by_id

describe("recipe rect", function()
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
    assert.truthy(out:find("The slides' example", 1, true))
  end)

  it("writes the 7x7 block into the 8x8 array and reads it back", function()
    local t = assert(tables.example)
    assert.are.equal(2, #t.rows)
    assert.are.equal("write_rect 7x7 -> 8x8", t.rows[1].operation)
    assert.are.equal(64, t.rows[1].checked)
    assert.are.equal(32, t.rows[1]["device pitch"])
    assert.are.equal("read_rect 8x8 -> 7x7", t.rows[2].operation)
    assert.truthy(out:find("D D D D D D D .", 1, true))
    assert.truthy(out:find(". . . . . . . .", 1, true))
  end)

  it("measures every pitched operation beside its contiguous twin", function()
    local t = assert(tables.transfers)
    local seen = {}
    for _, r in ipairs(t.rows) do
      local key = ("%s %d/%d"):format(r.operation, r.width, r.pitch)
      assert.falsy(seen[key], key)
      seen[key] = r
      assert.is_true(r.bandwidth > 0)
      assert.is_true(r["vs contiguous"] > 0)
    end
    for _, op in ipairs({ "write", "read", "copy" }) do
      assert.truthy(seen[op .. " 1000/1000"], op)
      assert.truthy(seen[op .. " 1024/1024"], op)
      assert.truthy(seen[op .. "_rect 1000/1000"], op)
      assert.truthy(seen[op .. "_rect 1000/1024"], op)
      assert.truthy(seen[op .. "_rect 1024/1024"], op)
      assert.are.equal(100, seen[op .. " 1000/1000"]["vs contiguous"])
    end
    assert.are.equal(15, #t.rows)
  end)

  it("runs the row kernel unpadded, padded, and padded without the edge check", function()
    local t = assert(tables.kernel)
    local names = {}
    for _, r in ipairs(t.rows) do
      names[#names + 1] = r.variant
      assert.is_true(r.bandwidth > 0)
    end
    assert.are.same({ "contiguous 1-D copy", "unpadded rows, edge check", "padded rows, edge check",
      "padded rows, no edge check" }, names)
    assert.are.equal(1000, t.rows[2].pitch)
    assert.are.equal("no", t.rows[2]["row start"])
    assert.are.equal(1024, t.rows[3].pitch)
    assert.are.equal("yes", t.rows[3]["row start"])
  end)

  it("exits non-zero with no table when a result is corrupted", function()
    local o, c, e = run("CLUA_CORRUPT=rect")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("The slides' example", 1, true))
    -- the harness corrupts the middle of the first result checked: the 7x7 block's row 3
    assert.truthy(e:find("verify 8x8 device array after write_rect of the 7x7 block: 1 of 55 elements differ "
      .. "(exact); worst at index 27", 1, true), e)
  end)
end)
