-- recipes/divergence.lua --quick as a subprocess: its rows, and a corrupted
-- result caught (CLUA_CORRUPT) with no table printed.
local RECIPE = "divergence"
package.path = "lua/?.lua;" .. package.path
local report = require "clua.report"

local CLUA = os.getenv("CLUA") or "build/clua"

-- Runs `env CLUA recipes/NAME.lua --quick ARGS` in a shell; returns the exit
-- status, stdout and stderr.
local function run(env, args)
  local err = os.tmpname()
  local cmd = ("%s %s recipes/%s.lua --quick %s 2>%s; echo \"exit=$?\""):format(env, CLUA, RECIPE, args or "", err)
  local p = assert(io.popen(cmd))
  local out = p:read("a")
  p:close()
  local f = io.open(err)
  local stderr = f and f:read("a") or ""
  if f then f:close() end
  os.remove(err)
  local status = tonumber(out:match("exit=(%d+)%s*$"))
  out = out:gsub("exit=%d+%s*$", "")
  return status, out, stderr
end

-- The tables of a --quick run, decoded from its --json output, by id.
local function tables()
  local json = os.tmpname()
  local status, out, stderr = run("", "--json " .. json)
  assert(status == 0, "the recipe failed: " .. stderr)
  local d = report.load(json)
  os.remove(json)
  local by = {}
  for _, t in ipairs(d.tables) do by[t.id] = t end
  return by, out
end

describe("recipe divergence", function()
  local by, out = tables()

  it("prints the table", function()
    assert.matches("Divergent branches", out)
  end)

  it("has the three variants for a long and a short branch", function()
    local t = assert(by.divergence)
    local seen = {}
    for _, r in ipairs(t.rows) do
      local len = r.branch:match("^(%a+)")
      seen[len .. " " .. r.variant] = r
      assert.is_true(r.time > 0 and r.slowdown > 0)
    end
    for _, len in ipairs({ "long", "short" }) do
      for _, v in ipairs({ "divergent", "aligned", "predicated" }) do
        assert.is_table(seen[len .. " " .. v], len .. " " .. v)
      end
      assert.near(1, seen[len .. " aligned"].slowdown, 1e-9)
      assert.equal(0, seen[len .. " aligned"]["divergent warps"])
      assert.equal(100, seen[len .. " divergent"]["divergent warps"])
    end
    assert.equal("lid % 2", seen["long divergent"].condition)
    assert.matches("^%(lid / %d+%) %% 2$", seen["long aligned"].condition)
  end)

  it("exits non-zero with no table when a result is corrupted", function()
    local status, stdout, stderr = run("CLUA_CORRUPT=divergence")
    assert.is_not.equal(0, status)
    assert.equal("", stdout)
    assert.matches("verify", stderr)
  end)
end)
