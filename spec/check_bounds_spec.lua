-- A student's kernel with no bounds check, under the checker at the
-- recipe's check size (clua check NAME --check-size --kernel FILE): the
-- check size leaves a partial last work-group (reduction 4196 floats, scan
-- 2049 uints, the template 4196 floats) and, on Oclgrind, assignment mode's
-- buffers end where their data do (clua.guard: no zones there), so the read
-- past the input is a finding with the kernel file's line, as the grader's
-- check sees it (spec/grade_check_spec.lua). Pending where Oclgrind is not
-- installed.
local shell = require("spec.support.shell")
local write = require("clua.files").write

local clua = os.getenv("CLUA") or "build/clua"
local have = os.execute("command -v oclgrind >/dev/null 2>&1") == true

-- The recipe's own kernel less its bounds check: scan_plain's loads, unguarded.
local function scan_unbounded()
  local src = shell.read("kernels/scan.cl")
  local n
  src, n = src:gsub("base %+ (%a)i < n %? in%[base %+ %1i%] : 0;", "in[base + %1i];")
  assert(n == 2, "kernels/scan.cl's two guarded loads")
  return (src:gsub("__kernel void scan_plain%(", "__kernel void scan("))
end

local CASES = {
  { recipe = "reduction", file = "spec/fixtures/grade/reduction/r03_tail.cl", line = 8 },
  { recipe = "scan", source = scan_unbounded, line = "%d+", text = "in%[base %+ [ab]i%];" },
  { recipe = "template", source = function()
      return "__kernel void triad(__global float *c, __global const float *a, __global const float *b, float scalar,\n"
        .. "                    uint n)\n{\n    size_t i = get_global_id(0);\n    c[i] = a[i] + scalar * b[i];\n}\n"
    end, line = 5 },
}

describe("a kernel with no bounds check under the checker", function()
  if not have then
    pending("oclgrind is not installed (apt-get install oclgrind)")
    return
  end
  for _, c in ipairs(CASES) do
    it(c.recipe .. " --check-size: its read past the input, with the line", function()
      local file = c.file
      if not file then
        file = os.tmpname() .. ".cl"
        write(file, c.source())
      end
      local out, code = shell.run(("%s check %s --check-size --kernel %s"):format(clua, c.recipe, shell.quote(file)))
      if not c.file then os.remove(file) end
      assert.are.equal(1, code, out)
      assert.matches("out%-of%-bounds read %(4 bytes, global memory%) in kernel '%w+' at " .. file:gsub("%p", "%%%0")
        .. ":" .. c.line .. ":%d+", out)
      if c.text then assert.matches(c.text, out) end
    end)
  end
end)
