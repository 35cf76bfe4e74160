-- clua.chase: the pointer chase's cycle and index places on the host, and
-- one chase point on the default device (PoCL in CI), verified against the
-- host's walk, and failing it under CLUA_CORRUPT.
package.path = "lua/?.lua;" .. package.path
local chase = require("clua.chase")
local recipe = require("clua.recipe")

-- a recipe of --quick's steps (4096 to 2^20 a launch), two repetitions
local function make() return recipe.new{ name = "chasedemo", args = { "--quick", "--reps", "2", "--warmup", "1" } } end

local DEFINES = { LINE = chase.LINE // 4, REPS = 64 }

describe("clua.chase", function()
  it("makes one cycle through every slot, the same for the same seed", function()
    for _, n in ipairs({ 1, 2, 3, 8, 1000 }) do
      local nxt, seen, j = chase.cycle(n), {}, 0
      assert.are.equal(n, #nxt)
      for step = 1, n do
        assert.is_nil(seen[j], ("n %d: slot %d visited twice, at step %d"):format(n, j, step))
        seen[j], j = true, nxt[j]
      end
      assert.are.equal(0, j, "n " .. n .. ": back at slot 0 after n steps")
    end
    local a, b, c = chase.cycle(64), chase.cycle(64), chase.cycle(64, 1)
    local same, differ = true, false
    for i = 0, 63 do
      same = same and a[i] == b[i]
      differ = differ or a[i] ~= c[i]
    end
    assert.is_true(same)
    assert.is_true(differ, "another seed, another order")
  end)

  it("puts each slot's index at a line of the slot, slot 0's at 0", function()
    local line = chase.LINE // 4
    assert.are.equal(0, chase.head(0, 256, 8))
    for i = 0, 99 do
      local h = chase.head(i, 256, 8)
      assert.is_true(h >= i * 256 and h < (i + 1) * 256, tostring(h))
      assert.are.equal(0, (h - i * 256) % line)
    end
    -- one line a slot: the slot's start
    assert.are.equal(5 * line, chase.head(5, line, 1))
  end)

  it("measures a point: latency, cycles, the steps a launch, its levels' point", function()
    local R = make()
    local ch = chase.new(R, DEFINES)
    local p = ch:point(16 * 1024, 128, "chase over 16 KiB")
    assert.are.equal(16 * 1024, p.ws)
    assert.are.equal(128, p.stride)
    assert.are.equal(128, p.slots)
    assert.is_true(p.steps >= 4096 and p.steps <= 2 ^ 20, tostring(p.steps))
    assert.is_true(p.ns > 0)
    assert.are.equal(p.ns, p.point.y)
    assert.are.equal(2, #p.point.times)
    assert.is_true(p.res.cache) -- 16 KiB: within the caches
    if ch.clock then
      assert.near(p.ns * ch.clock / 1e3, p.cycles, 1e-9)
      assert.truthy(ch:cycles(10):match("^ %(%d+ cycles%)$"))
    else
      assert.are.equal("", ch:cycles(10))
    end
    local notes = {}
    ch:notes({ note = function(_, n) notes[#notes + 1] = n end }, "; and more")
    assert.are.equal(3, #notes)
    assert.truthy(notes[1]:find("each launch 4096 to 1048576 steps (a probe of 4096 decides: about 1 ms)", 1, true))
    assert.truthy(notes[1]:find("median event time (2 runs)", 1, true))
    assert.truthy(notes[3]:find("host's walk of the same cycle; and more$"))
  end)

  it("fails the point whose state the harness changed (CLUA_CORRUPT)", function()
    local R = make()
    R.corrupt = true
    local ch = chase.new(R, DEFINES)
    local ok, err = pcall(ch.point, ch, 4096, 32, "chase over 4 KiB")
    assert.is_false(ok)
    assert.truthy(tostring(err):find("chase over 4 KiB: the index reached and the steps taken", 1, true), err)
  end)
end)
