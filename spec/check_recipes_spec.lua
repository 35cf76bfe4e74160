-- The recipes' own kernels on Oclgrind (clua check NAME --check-size): the
-- seeds' recipes (reduction, scan, transpose, matmul, banks, histogram,
-- atomics) run to the end at their check sizes with no finding: no
-- out-of-bounds access, race, divergent barrier or undefined value. (What
-- Oclgrind cannot run, C11 atomics, is a note, not a finding: atomics leaves
-- those rows out.) The other experiments: check_recipes_more_a_spec.lua and
-- check_recipes_more_b_spec.lua; the three lists hold every experiment of
-- recipes/ (checked here). Pending where Oclgrind is not installed.
local support = require("spec.support.checkrecipes")

describe("the recipes under the checker", function()
  it("are every experiment of recipes/, each in one list", function()
    local listed, found = {}, {}
    for _, list in pairs(support.LISTS) do
      for _, name in ipairs(list) do
        assert.is_nil(listed[name], name .. " is in two lists")
        listed[name] = true
      end
    end
    local ls = assert(io.popen("ls -1 recipes"))
    for file in ls:lines() do
      local name = file:match("^(.+)%.lua$")
      if name and not support.TOOLS[name] then
        found[name] = true
        assert.is_true(listed[name] ~= nil, "recipes/" .. file .. " is checked by no spec (spec/support/checkrecipes.lua)")
      end
    end
    ls:close()
    for name in pairs(listed) do assert.is_true(found[name] ~= nil, name .. " is listed but has no recipes/ file") end
  end)
end)

describe("the seeds' recipes' kernels under the checker", function()
  support.describe({ it = it, pending = pending, assert = assert }, support.LISTS.seeds)
end)
