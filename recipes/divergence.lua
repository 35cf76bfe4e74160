-- divergence: branching on the work-item id. NVIDIA OpenCL Best Practices Guide
-- 6.1 (Branching and Divergence), 6.2 (Branch Predication); OpenCL slides
-- "Conditionals": a branch on get_local_id(0) % 2 splits every warp, which then
-- runs both paths one after the other; a branch on (get_local_id(0) / warp) % 2
-- does the same work without splitting any warp; a predicated form computes
-- both paths everywhere and selects. Long branches (the branch dominates) and
-- short ones (a couple of instructions, which a compiler may predicate itself).
local cl = require("cl")
local recipe = require("clua.recipe")
local units = require("clua.units")

local R = recipe.new{
  name = "divergence",
  description = [[Divergent branches: get_local_id(0) % 2 vs (get_local_id(0) / warp) % 2 vs a predicated (select)
    form, with long and short branches.]],
  seed = "NVIDIA OpenCL Best Practices Guide 6.1-6.2; OpenCL slides \"Conditionals\"",
  quick_size = "64KiB", check_size = "4KiB",
  options = function(p)
    p:int("--steps", "Steps per branch of the long branch (default 2048 on a GPU, 64 on a CPU, 16 with --quick, "
      .. "4 with --check-size).")
    p:option("--short-steps", "Steps per branch of the short branch.", "1"):argname("N"):convert(require("clua.argcheck").whole)
    p:int("--local", "Work-group size (default 256, or the largest multiple of 2 warps the device allows).")
    p:int("--warp", "Warp width (default: the device's warp_size, else the kernel's preferred work-group "
      .. "size multiple).")
  end,
}

-- The two paths in Lua (mod 2^32), as in kernels/divergence.cl.
local function path_a(x, steps)
  for _ = 1, steps do
    x = (x * 1664525 + 1013904223) & 0xFFFFFFFF
    x = (x * 22695477 + 1) & 0xFFFFFFFF
  end
  return x
end
local function path_b(x, steps)
  for _ = 1, steps do x = ((x ~ (x >> 15)) * 2246822519) & 0xFFFFFFFF end
  return x
end

R:main(function(R, dev)
  local info, q = dev.info, R.queue
  local gpu = info.type == "GPU"

  -- Inputs are bytes (0-255), so each path's result depends on 256 values only:
  -- two lookup tables are the CPU reference for any number of work-items.
  local n = R.size and math.tointeger(R.size) // 4 or (gpu and info.compute_units * 2048 * 4 or 2^18)
  local branches = { { name = "long", steps = R.args.steps or (R.check_size and 4 or R.quick and 16 or gpu and 2048 or 64) },
    { name = "short", steps = R.args.short_steps } }
  for _, b in ipairs(branches) do
    b.lut_a, b.lut_b = {}, {}
    for x = 0, 255 do b.lut_a[x], b.lut_b[x] = path_a(x, b.steps), path_b(x, b.steps) end
  end
  -- The warp width, before the kernels are built with it (-DWARP).
  local warp, warp_from = R.args.warp, "--warp"
  if not warp and info.warp_size then warp, warp_from = info.warp_size, "the device's warp_size" end
  if not warp then
    local probe = R:kernel("divergence.cl", "divergent", { STEPS = R.args.short_steps, WARP = 1 })
    warp = probe:info(dev).preferred_work_group_size_multiple or 1
    warp_from = "the kernel's preferred work-group size multiple"
  end

  local kmax = info.max_work_group_size -- the kernels' reported maximum is no guide (NVIDIA: 256, runs 1024)
  local lsz = R.args["local"] or math.min(256, kmax)
  if lsz % (2 * warp) ~= 0 then lsz = kmax // (2 * warp) * (2 * warp) end
  if lsz < 2 * warp then error(("a work-group of 2 warps (%d) is more than the device allows (%d)"):format(2 * warp, kmax)) end
  n = math.max(lsz, n // lsz * lsz)

  local input = cl.array("uint", n):random(21, 0, 255)
  local dIn, dOut = R:input("in", input), R:output("out", "uint", n, "write_only")

  -- The variants: which path work-item i takes (A when `a(lid)`), the
  -- condition as the kernel writes it, and the fraction of warps that hold
  -- both paths (lsz is a multiple of warps; the predicated form splits none).
  local variants = {
    { name = "divergent", a = function(lid) return lid % 2 == 1 end, text = "lid % 2" },
    { name = "aligned", a = function(lid) return (lid // warp) % 2 == 1 end, text = ("(lid / %d) %% 2"):format(warp) },
    { name = "predicated", a = function(lid) return lid % 2 == 1 end, text = "select(B, A, lid % 2)", split = 0 },
  }
  for _, v in ipairs(variants) do
    local split = 0
    for w0 = 0, lsz - 1, warp do
      for l = w0 + 1, w0 + warp - 1 do
        if v.a(l) ~= v.a(w0) then split = split + 1; break end
      end
    end
    v.split = v.split or split / (lsz // warp)
  end

  -- Each variant writes out[0 .. n), checked exactly against the lookup
  -- tables; the figure is steps/s, held against the compute bound (a step is
  -- several operations: counted as one, the check is lenient). Its 8n bytes
  -- bound nothing: thousands of steps a word make the kernels compute-bound.
  local results, base = {}, {}
  for _, b in ipairs(branches) do
    for _, v in ipairs(variants) do
      local k = R:kernel("divergence.cl", v.name, { STEPS = b.steps, WARP = warp }):args(dIn, dOut)
      local la, lb, c = b.lut_a, b.lut_b, v.a
      local res = R:measure{ label = ("%s (%s branch, %d steps)"):format(v.name, b.name, b.steps), reads = { dIn },
        run = function() return q:launch(k, n, lsz) end, ops = n * b.steps, roofline = false,
        bytes = 8 * n, bound = false,
        outputs = { { dOut, expect = function(i) return c(i % lsz) and la[input[i]] or lb[input[i]] end } } }
      results[#results + 1] = { branch = b, variant = v, t = res }
      if v.name == "aligned" then base[b] = res.median end
    end
  end

  -- Everything verified: the figures.
  local times = R:time_columns("ms", { format = "%.4f" })
  local t = R:table{
    title = ("Divergent branches (%d work-items, work-groups of %d, warp %d)"):format(n, lsz, warp),
    id = "divergence",
    columns = {
      { name = "branch", key = true }, { name = "variant", key = true }, { name = "condition" },
      { name = "divergent warps", unit = "%", format = "%.0f" },
      times, { name = "slowdown", unit = "x", format = "%.2f" }, { name = "steps/s", unit = "G", format = "%.1f" } },
  }
  for _, r in ipairs(results) do
    local b, v = r.branch, r.variant
    R:add_row(t, r.t, { branch = ("%s (%d step%s)"):format(b.name, b.steps, b.steps == 1 and "" or "s"),
      variant = v.name, condition = v.text, ["divergent warps"] = 100 * v.split,
      slowdown = r.t.median / base[b], ["steps/s"] = r.t.rate / 1e9 })
  end
  t:note(("warp width %d from %s"):format(warp, warp_from))
  t:note("path A: two dependent integer multiply-adds per step; path B: shift, xor, multiply per step; "
    .. "odd lanes (or odd warps) take A")
  t:note("slowdown: time / the warp-aligned branch's time for the same branch length; steps/s: n x steps / time")
  t:note(("inputs: %d random bytes; %s per kernel read and written"):format(n, units.format_size(8 * n)))
  R:emit(t)
end)
