-- R:measure's parts, each a module of one concern: what is run
-- (clua.contract), how it is timed (clua.timed), what is checked
-- (clua.checks). Their @usage examples run here, on the default device, so
-- that the docs cannot go stale; and R:measure reads no option none of them
-- reads.
package.path = "lua/?.lua;" .. package.path
local cl = require("cl")
local recipe = require("clua.recipe")
local contract = require("clua.contract")
local checks = require("clua.checks")
local timed = require("clua.timed")
local usage = require("spec.support.usage")

local function make()
  local R = recipe.new{ name = "parts", args = { "--reps", "3", "--warmup", "1" } }
  local sink = { write = function(s) return s end, flush = function(s) return s end }
  R.out, R.err = sink, sink
  return R
end

describe("R:measure's parts", function()
  it("runs the @usage examples of clua.contract, clua.timed and clua.checks", function()
    local env = { cl = cl, contract = contract, checks = checks, timed = timed }
    env.R = make()
    assert.are.equal(5, usage.run("lua/clua/contract.lua", env))
    env.R = make()
    assert.are.equal(1, usage.run("lua/clua/timed.lua", env))
    env.R = make()
    assert.are.equal(4, usage.run("lua/clua/checks.lua", env))
  end)

  it("splits R:measure's options among the three, each named once", function()
    local seen = {}
    for _, m in ipairs({ contract, timed, checks }) do
      for _, k in ipairs(m.OPTIONS) do
        assert.is_nil(seen[k], k)
        seen[k] = true
      end
    end
    local R = make()
    local ok, why = pcall(R.measure, R, { label = "x", run = function() end, colour = 1 })
    assert.is_false(ok)
    for k in pairs(seen) do assert.truthy(why:find(k, 1, true), k) end
  end)

  it("checks.results names an unowned element a kernel wrote, and contract.check an output option it does not know", function()
    local R = make()
    local out = R:output("out", "float", 64)
    local c = contract.check(R, { label = "half", outputs = { { out, owns = { 0, 32 }, expect = function() return 0 end } } },
      checks.OUTPUT)
    contract.poison(c)
    R.queue:fill(out, 0, { type = "float" }); R.queue:finish()   -- all 64, not the 32 it owns
    local ok, why = pcall(checks.results, R, c, {})
    assert.is_false(ok)
    assert.truthy(why:find("half: out[32] written outside the part the kernel owns (out[0 .. 32) of 64 elements", 1, true),
      why)
    ok, why = pcall(contract.check, R, { outputs = { { out, expct = 1 } } }, checks.OUTPUT)
    assert.is_false(ok)
    assert.truthy(why:find("outputs[1]: unknown option 'expct' (known: owns, poison, name, queue, expect, check", 1, true),
      why)
  end)

  it("budget_ms fits the repetitions to a time, 5 to R.reps; --quick and --reps keep their counts", function()
    local function reps(args, spec)
      local R = recipe.new{ name = "budget", args = args }
      R.out, R.err = make().out, make().err
      local buf = R.ctx:buffer(4096)
      spec.label, spec.run = "fill", function() return R.queue:fill(buf, 0, { type = "uchar" }) end
      return R:measure(spec).t.reps
    end
    assert.equal(10, reps({}, { budget_ms = 1000 }))                -- a fill of 4 KiB: R.reps fit easily
    assert.equal(5, reps({}, { budget_ms = 1e-6 }))                 -- nothing fits: the floor
    assert.equal(3, reps({ "--reps", "3" }, { budget_ms = 1e-6 }))  -- --reps: its count, the floor below it too
    assert.equal(3, reps({ "--quick" }, { budget_ms = 1000 }))      -- --quick: its count
    assert.equal(12, reps({ "--reps", "12" }, { budget_ms = 1000 }))
    local R = make()
    for _, bad in ipairs({ { budget_ms = 0 }, { budget_ms = "100" }, { budget_ms = 100, reps = 4 },
      { budget_ms = 100, target_ms = 10 } }) do
      bad.label, bad.run = "x", function() end
      local ok, why = pcall(R.measure, R, bad)
      assert.is_false(ok)
      assert.truthy(why:find("R:measure: budget_ms", 1, true), why)
    end
  end)
end)
