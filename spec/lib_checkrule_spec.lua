-- clua.checkrule: an experiment's rule of what the checker cannot check
-- (recipe.new's `unchecked`), checked when declared, written by a run under
-- the checker, read back, applied to its findings and said with them; and
-- clua.checker's verdict on a run whose reports Oclgrind cut short.
package.path = "lua/?.lua;" .. package.path
local checkrule = require("clua.checkrule")
local checker = require("clua.checker")
local recipe = require("clua.recipe")

local RULE = { kind = "uninitialized value", kernels = "_image", why = "the simulator cannot\n  follow images" }

describe("clua.checkrule", function()
  it("refuses a rule that names no known kind, no kernels or no reason", function()
    local function err(list)
      local ok, e = pcall(checkrule.validate, list)
      assert.is_false(ok)
      return tostring(e)
    end
    assert.matches("unchecked must be a list of {kind =, kernels =, why =}, got string", err("x"), 1, true)
    assert.matches("unchecked[1]: kind 'race' is none of out-of-bounds read, out-of-bounds write, data race, "
      .. "barrier divergence, uninitialized value", err({ { kind = "race", kernels = "k", why = "w" } }), 1, true)
    assert.matches("unchecked[1]: kernels: a Lua pattern of the kernels' names expected",
      err({ { kind = "data race", kernels = "[", why = "w" } }), 1, true)
    assert.matches("unchecked[2]: why: the reason, a string, expected",
      err({ RULE, { kind = "data race", kernels = "k", why = " " } }), 1, true)
    assert.matches("unchecked[1]: unknown field 'kernel'", err({ { kind = "data race", kernels = "k", why = "w",
      kernel = "k" } }), 1, true)
    assert.are.same({ RULE }, checkrule.validate({ RULE }))
  end)

  it("is refused by recipe.new with the recipe's other options", function()
    local ok, e = pcall(recipe.new, { name = "t", args = {}, unchecked = { { kind = "data race" } } })
    assert.is_false(ok)
    assert.matches("recipe.new: unchecked[1]: kernels: a Lua pattern", tostring(e), 1, true)
  end)

  it("is written by a run under the checker only, read back once, and sets aside the findings it names", function()
    local f = os.tmpname()
    checkrule.declare({ RULE }) -- CLUA_CHECK_RULES unset: nothing written
    local env = os.getenv("CLUA_CHECK_RULES")
    assert.is_true(env == nil or env == "")
    local h = assert(io.open(f, "w"))
    h:write(table.concat({ RULE.kind, RULE.kernels, "the simulator cannot follow images" }, "\t"), "\n")
    h:write(table.concat({ RULE.kind, RULE.kernels, "the simulator cannot follow images" }, "\t"), "\n")
    h:close()
    local rules = checkrule.read(f)
    os.remove(f)
    assert.are.same({ { kind = RULE.kind, kernels = "_image", why = "the simulator cannot follow images", count = 0 } },
      rules)
    local findings = { { kind = "uninitialized value", kernel = "copy_image", count = 5 },
      { kind = "uninitialized value", kernel = "copy_global", count = 2 },
      { kind = "data race", kernel = "copy_image", count = 1 } }
    checkrule.apply(findings, rules)
    assert.are.equal(rules[1], findings[1].unchecked)
    assert.is_nil(findings[2].unchecked)
    assert.is_nil(findings[3].unchecked)
    assert.are.equal(5, rules[1].count)
    assert.is_false(checker.is_fault(findings[1]))
    assert.is_true(checker.is_fault(findings[2]))
    assert.are.equal("uninitialized value in the kernels matching '_image': the simulator cannot follow images "
      .. "(5 reports set aside)", checkrule.describe(rules[1]))
  end)

  it("is said by the checker with every run, apart from the findings and notes", function()
    local rules = { { kind = RULE.kind, kernels = "_image", why = "why", count = 3 } }
    local g = { kind = "uninitialized value", kernel = "copy_image", count = 3, unchecked = rules[1] }
    local text = checker.format({ g }, { rules = rules })
    assert.are.equal("clua check: no findings\nnot checked, by the experiment's rule (what the simulator cannot "
      .. "check):\n  uninitialized value in the kernels matching '_image': why (3 reports set aside)\n", text)
  end)

  it("makes the checker call a run cut short with no fault kept incomplete, not clean", function()
    local text = checker.format({}, { truncated = true })
    assert.matches("^clua check: no findings in the reports kept, but Oclgrind stopped reporting after %d+: what "
      .. "came after went unchecked %(give smaller sizes%)\n$", text)
  end)
end)
