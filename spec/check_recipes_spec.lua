-- The recipes' own kernels on Oclgrind (clua check NAME --check-size):
-- reduction, scan, transpose, matmul, banks, histogram and atomics run to the
-- end at their check sizes with no finding: no out-of-bounds access, race,
-- divergent barrier or undefined value. (What Oclgrind cannot run, C11
-- atomics, is a note, not a finding: atomics leaves those rows out.) Pending
-- where Oclgrind is not installed.
package.path = "lua/?.lua;" .. package.path
local checker = require "clua.checker"

local CLUA = os.getenv("CLUA") or "build/clua"

describe("the recipes' kernels under the checker", function()
  if not checker.available() then
    pending("oclgrind is not installed (apt-get install oclgrind): the recipes are not checked")
    return
  end
  for _, name in ipairs({ "reduction", "scan", "transpose", "matmul", "banks", "histogram", "atomics" }) do
    it(name .. " --check-size: no finding, within 60 s of the machine's time", function()
      local out, err = os.tmpname(), os.tmpname()
      local r = checker.run("recipes/" .. name .. ".lua", { "--check-size" }, { clua = CLUA, wall = 300, stdout = out,
        stderr = err })
      local f = io.open(err)
      local text = f and f:read("a") or ""
      if f then f:close() end
      os.remove(out)
      os.remove(err)
      assert.are.equal(0, r.status, text)
      local faults = {}
      for _, g in ipairs(r.findings) do if checker.is_fault(g) then faults[#faults + 1] = checker.describe(g) end end
      assert.are.same({}, faults)
    end)
  end
end)
