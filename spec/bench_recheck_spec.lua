-- bench/recheck.sh runs every recipe --quick by two builds in turn, and
-- bench/recheck.lua compares their JSONs figure by figure: on stand-in
-- bundles and made-up JSONs, whose figures and noise are known.
local json = require("dkjson")
local shell = require("spec.support.shell")

local clua = os.getenv("CLUA") or "build/clua"

-- A recipe's JSON with one table: rows {key, value, spread}, value in unit.
local function card(name, unit, rows)
  local t = { id = "t", title = "t", columns = { { name = "k", key = true },
    { name = "v", unit = unit, compare = true }, { name = "spread", unit = "%" } }, rows = {} }
  for i, r in ipairs(rows) do t.rows[i] = { k = r[1], v = r[2], spread = r[3] } end
  return json.encode({ recipe = name, tables = { t } })
end

local put = require("clua.files").write

describe("bench/recheck", function()
  local dir
  before_each(function()
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. shell.quote(dir .. "/old") .. " " .. shell.quote(dir .. "/new")))
  end)
  after_each(function() os.execute("rm -rf " .. shell.quote(dir)) end)

  it("counts the figures beyond the larger of their spreads and 10 %, a time inverted", function()
    put(dir .. "/old/a.json", card("a", "GB/s", { { "x", 100, 2 }, { "y", 50, 2 }, { "z", 10, 30 } }))
    put(dir .. "/new/a.json", card("a", "GB/s", { { "x", 105, 2 }, { "y", 40, 2 }, { "z", 8, 30 } }))
    put(dir .. "/old/b.json", card("b", "ms", { { "x", 2, 1 } }))
    put(dir .. "/new/b.json", card("b", "ms", { { "x", 1, 1 } }))
    put(dir .. "/new/c.json", card("c", "GB/s", { { "x", 1, 1 } }))
    local out, code = shell.run(("%s bench/recheck.lua %s %s --list"):format(clua, shell.quote(dir .. "/old"),
      shell.quote(dir .. "/new")))
    assert.are.equal(0, code, out)
    -- a: x 1.05 and z 0.8 within noise (2 -> 10 %, 30 %), y 0.8 beyond 10 %; median 0.8
    assert.truthy(out:match("\na +3 +3 +3 +0%.800 +1\n"), out)
    assert.truthy(out:find("  a / t / y / v: 0.800 (noise 10 %)", 1, true), out)
    assert.falsy(out:find("a / t / z", 1, true), out)
    -- b: half the time is twice as good
    assert.truthy(out:match("\nb +1 +1 +1 +2%.000 +1\n"), out)
    assert.truthy(out:match("\nc +%- +1 +in NEW only\n"), out)
    assert.truthy(out:find("4 figures in both, 2 beyond their noise (50.0 %)", 1, true), out)
  end)

  it("refuses a call without two folders", function()
    local out, code = shell.run(clua .. " bench/recheck.lua " .. shell.quote(dir))
    assert.are.equal(2, code, out)
    assert.truthy(out:find("usage: clua bench/recheck.lua OLD_DIR NEW_DIR", 1, true), out)
  end)

  it("runs each recipe by both builds, the old first in odd rounds and the new first in even ones", function()
    -- stand-in bundles: ./run writes the --json it is given and logs who ran what
    local log = dir .. "/order.log"
    for _, side in ipairs { "old", "new" } do
      local b = dir .. "/b" .. side
      assert(os.execute("mkdir -p " .. shell.quote(b .. "/recipes")))
      for _, r in ipairs(side == "new" and { "s", "t", "report" } or { "s", "t", "u" }) do
        put(b .. "/recipes/" .. r .. ".lua", "")
      end
      put(b .. "/run", ([[#!/bin/sh
r=$(basename "$1" .lua); echo "%s $r $2" >> %s
[ "$r" = t ] && [ %s = old ] && exit 3
echo '{"recipe":"'$r'","tables":[]}' > "$4"
]]):format(side, shell.quote(log), side))
      assert(os.execute("chmod +x " .. shell.quote(b .. "/run")))
    end
    local out, code = shell.run(("bench/recheck.sh %s %s %s 2"):format(shell.quote(dir .. "/bold"),
      shell.quote(dir .. "/bnew"), shell.quote(dir .. "/out")))
    assert.are.equal(0, code, out)
    assert.are.equal(table.concat({
      "old s --quick", "new s --quick", "old t --quick", "new t --quick", "old u --quick",
      "new s --quick", "old s --quick", "new t --quick", "old t --quick", "old u --quick", "" }, "\n"),
      shell.read(log))
    assert.truthy(shell.slurp(dir .. "/out/1/new/s.json"), "round 1's JSON")
    assert.truthy(shell.slurp(dir .. "/out/2/old/u.json"), "round 2's JSON")
    assert.truthy(out:find("round 1 old t: exit 3", 1, true), out)
    assert.truthy(shell.read(dir .. "/out/failed.txt"):find("round 2 old t: exit 3", 1, true))
  end)
end)
