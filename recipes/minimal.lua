-- minimal: the smallest recipe, one kernel and one table; start a new
-- experiment from it in a folder of your own (recipes/template.lua is the
-- full template: a sweep, a plot, assignment mode):
--   mkdir mywork && cd mywork
--   cp "$(clua -e 'io.write(cl.root)')"/recipes/minimal.lua vscale.lua
--   cp "$(clua -e 'io.write(cl.root)')"/kernels/minimal.cl vscale.cl
--   clua vscale.lua --quick                 (--help: every option)
-- The recipe takes its name from its file, and its kernel from NAME.cl beside
-- it: change the kernel, the reference (step 2) and the bytes it moves (3).
local cl = require("cl")
local recipe = require("clua.recipe")

local R = recipe.new{
  description = [[c = 2 a, one float per work-item: one kernel, one table (a template for new recipes).]],
  quick_size = "1MiB", check_size = "16KiB", -- check_size: --check-size, small enough for clua check (Oclgrind)
}

R:main(function(R, dev)
  -- 1. The problem: --size bytes per array (default 16 MiB), within one buffer.
  local n = math.min(R.size or 16 * 2^20, dev.info.max_mem_alloc_size) // 4
  local L = math.min(256, dev.info.max_work_group_size)

  -- 2. The data and what the kernel must give, computed on the CPU.
  local a = cl.array("float", n):random(1, -1, 1)
  local ref = cl.array("float", n)
  for i = 0, n - 1 do ref[i] = 2 * a[i] end
  local da, dc = R:input("a", a), R:output("c", "float", n)

  -- 3. The kernel (NAME.cl beside the recipe, else clua's kernels/) and its
  -- contract: it reads a (unchanged after), writes all of c, which must hold
  -- the reference, and moves 2 x 4 bytes per element. R:measure times it and
  -- checks all of it: a wrong result ends the recipe, no figure printed.
  local k = R:kernel(R.name .. ".cl", "scale")
  k:args(dc, da, cl.uint(n))
  local res = R:measure{ label = "scale", run = function() return R.queue:launch(k, (n + L - 1) // L * L, L) end,
    reads = { da }, outputs = { { dc, owns = { 0, n }, expect = ref } }, bytes = 2 * 4 * n, ops = n }

  -- 4. The table: text, --md, --csv, --json, --compare.
  local t = R:table{ title = ("c = 2 a on %d floats"):format(n), id = "scale",
    columns = { { name = "kernel", key = true }, R:time_columns("µs"), R:bw_column("bandwidth", { compare = false }) } }
  R:add_row(t, res, { kernel = "scale" })
  R:emit(t)
end)
