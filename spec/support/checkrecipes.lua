-- What the specs of the recipes under the checker share (spec/check_recipes_spec.lua,
-- check_recipes_more_a_spec.lua, check_recipes_more_b_spec.lua): the three
-- lists, which together hold every experiment of recipes/, and the check of
-- one: `clua check NAME --check-size` runs to the end with no finding, and
-- says exactly the rules the experiment declares (what Oclgrind cannot check
-- in its kernels, clua.checkrule). Not a spec (no _spec in the name).
package.path = "lua/?.lua;" .. package.path
local checker = require("clua.checker")

local M = {}

M.clua = os.getenv("CLUA") or "build/clua"

--- The experiments of each spec file; the tools of recipes/ (report, grade,
-- check) run no kernel of their own.
M.LISTS = {
  seeds = { "reduction", "scan", "transpose", "matmul", "banks", "histogram", "atomics" },
  more_a = { "aat", "constant", "divergence", "image", "launch", "math", "memory", "minimal",
    "multigpu", "occupancy" },
  more_b = { "offset", "overlap", "particles", "peak", "rect", "roofline", "stencil", "stream", "stride",
    "template", "timing", "transfer" },
}
M.TOOLS = { report = true, grade = true, check = true }

--- The rules each experiment declares (recipe.new's unchecked), as the
-- checker must say them: kind, kernels, the reason word for word.
M.RULES = {
  image = { { kind = "uninitialized value", kernels = "_image", why = "Oclgrind 21.10 does not follow defined "
    .. "values through images: its check reads an image's description from its record of the image argument, "
    .. "which holds only a pointer's worth, so every read_image result counts as undefined, whatever the image "
    .. "holds (out-of-bounds accesses, races and barriers are still checked in the image kernels)" } },
}

--- Adds one `it` per experiment of `list` to the current describe: run
-- under the checker at its check size (ended after `wall` seconds), exit
-- status 0, no fault, the rules it declares and no other. `b` holds the
-- spec's busted functions: `it`, `pending`, `assert`.
function M.describe(b, list, wall)
  local it, pending, assert = b.it, b.pending, b.assert
  if not checker.available() then
    pending("oclgrind is not installed (apt-get install oclgrind): the recipes are not checked")
    return
  end
  -- what Oclgrind finds in the recipes' kernels does not depend on the
  -- sanitizer: the plain binary's run checks them (check_spec runs clua
  -- itself under Oclgrind with both binaries)
  if (os.getenv("ASAN_OPTIONS") or "") ~= "" then
    pending("the recipes' kernels are checked with the plain binary, not again under ASan")
    return
  end
  for _, name in ipairs(list) do
    it(name .. " --check-size: no finding" .. (M.RULES[name] and ", and its rule said" or ""), function()
      local out, err = os.tmpname(), os.tmpname()
      local r = checker.run("recipes/" .. name .. ".lua", { "--check-size" }, { clua = M.clua, wall = wall or 300,
        stdout = out, stderr = err })
      local f = io.open(err)
      local text = f and f:read("a") or ""
      if f then f:close() end
      os.remove(out)
      os.remove(err)
      assert.is_false(r.timed_out, ("%s ran more than %d s under the checker"):format(name, wall or 300))
      assert.are.equal(0, r.status, text)
      assert.is_false(r.incomplete)
      local faults = {}
      for _, g in ipairs(r.findings) do if checker.is_fault(g) then faults[#faults + 1] = checker.describe(g) end end
      assert.are.same({}, faults)
      local said = {}
      for i, rule in ipairs(r.rules) do
        said[i] = { kind = rule.kind, kernels = rule.kernels, why = rule.why }
        assert.is_true(rule.count > 0, "a rule that set nothing aside: " .. rule.why)
      end
      assert.are.same(M.RULES[name] or {}, said)
    end)
  end
end

return M
