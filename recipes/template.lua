-- template: the full starting point of a new experiment (recipes/minimal.lua
-- is the smallest: one kernel, one table). Copy it and its kernels into a
-- folder of your own (the recipe finds NAME.cl beside it):
--   cp "$(clua -e 'io.write(cl.root)')"/recipes/template.lua mywork/NAME.lua
--   cp "$(clua -e 'io.write(cl.root)')"/kernels/template.cl mywork/NAME.cl
-- then change the kernels and the bytes each moves; run it with
--   clua mywork/NAME.lua --quick        (and --help for every option)
-- It measures c = a + scalar * b (the STREAM triad) with one float and with
-- one float4 per work-item, for a sweep of work-group sizes. Each kernel runs
-- under a contract (R:measure, clua.harness): the buffers it reads, the part
-- of its output it owns and what that part must hold, the bytes it moves; the
-- harness checks all of it before any figure is printed. Optional: with
-- --kernel FILE a student's own triad is one more variant under the same
-- contract, timed, checked and ranked beside them (assignment mode,
-- docs/assignments.md); the lines marked "optional: assignment mode" are
-- that, and a recipe without it deletes them.
local cl = require("cl")
local recipe = require("clua.recipe")
local plot = require("clua.plot")
local units = require("clua.units")
local commalist = require("clua.commalist")

-- 1. Options: the shared ones (--device, --quick, --reps, --size, --csv,
-- --json, --svg, --compare, --md, --gib, --help) come with recipe.new; add
-- the experiment's own in `options` (lua-argparse) and read them as R.args.NAME.
-- description, seed and student are prose: a long string's white space folds.
-- The name is the file's (a copy mywork/vsize.lua is "vsize").
local TEMPLATE = recipe.script_name() == "template"
local R = recipe.new{
  description = [[c = a + scalar * b (STREAM triad), a float and a float4 per work-item, by work-group size.]],
  seed = "STREAM and BabelStream's triad; a template for new recipes",
  quick_size = "1MiB", check_size = "16784", quick_reps = 3, size_share = 8, -- check: 4196 floats, ragged
  -- Optional: assignment mode (--kernel FILE). `student` says what a
  -- student's kernel must do: the triad's, so it is the template's own; a copy
  -- that keeps assignment mode says what its own kernel must do and drops
  -- "TEMPLATE and" (so that --kernel and this text show in its --help).
  student = TEMPLATE and [[a kernel with the arguments of triad (__global float *c, __global const float *a,
    __global const float *b, float scalar, uint n), launched with one work-item per element (the global size
    rounded up to the work-group size); it must write c[i] = a[i] + scalar * b[i] for every i < n and nothing else
    of c (a and b must stay unchanged); each is checked once more on n - 1 elements, where it owns c[0 .. n - 1).
    Checked element by element against the CPU.]],
  student_name = TEMPLATE and "triad" or nil,
  options = function(p)
    p:option("--scalar", "The triad's scalar.", "3"):argname("S"):convert(require("clua.argcheck").number)
    p:option("--local", "Work-group sizes to sweep, comma-separated (default: 64 up to the device's "
      .. "maximum; 64,256 with --quick).")
      :argname("LIST")
  end,
}

R:main(function(R, dev)
  local info, q, scalar = dev.info, R.queue, R.args.scalar

  -- 2. Size the problem from the device: --size bytes per array (default
  -- 64 MiB on a GPU, 16 MiB elsewhere), within what one buffer may hold.
  local bytes = math.tointeger(R.size or (info.type == "GPU" and 64 or 16) * 2^20)
  -- floats, a multiple of 4 (triad4)
  local n = math.min(bytes, info.max_mem_alloc_size, info.global_mem_size // 8) // 16 * 4
  if n == 0 then error("--size is too small: at least 16 bytes") end
  bytes = 4 * n

  -- 3. Kernels (NAME.cl beside the recipe, else kernels/NAME.cl; built once per device) and the variants
  -- to time: each with the elements of c one work-item writes (`width`).
  -- Optional: assignment mode: with --kernel FILE, R:with_student adds the
  -- student's kernel as one more variant, a copy of the first.
  local variants = R:with_student{
    { label = "triad (float)", kernel = R:kernel(R.name .. ".cl", "triad"), width = 1 },
    { label = "triad4 (float4)", kernel = R:kernel(R.name .. ".cl", "triad4"), width = 4 },
  }
  -- Work-group sizes up to the device's maximum: a kernel's reported
  -- work_group_size is no guide (NVIDIA's driver reports 256 and runs 1024); a
  -- size the driver refuses is left out below, with a note.
  local sizes = R.args["local"] and commalist.integers(R.args["local"], "--local") or R.quick and { 64, 256 } or {}
  if #sizes == 0 then
    for s = 64, info.max_work_group_size do if s & (s - 1) == 0 then sizes[#sizes + 1] = s end end
  end

  -- 4. Data and the CPU reference, computed once (a Lua loop: a few million
  -- elements a second; cl.array's own operations run at C speed). R:input and
  -- R:output make the buffers the harness knows (in assignment mode each sits
  -- between guard zones, so a write past c, or into a or b, fails).
  local a = cl.array("float", n):random(1, -1, 1)
  local b = cl.array("float", n):random(2, -1, 1)
  local ref = cl.array("float", n)
  for i = 0, n - 1 do ref[i] = a[i] + scalar * b[i] end
  local da, db, dc = R:input("a", a), R:input("b", b), R:output("c", "float", n, "write_only")

  -- 5. The contract, for every variant and work-group size: the kernel reads
  -- a and b (unchanged after), owns c[0 .. m) of m elements, which must hold
  -- the reference, and moves 3 x 4 bytes and does 2 operations per element.
  -- R:measure poisons c, times the launch, and checks all of it; the element
  -- past m must stay poisoned, so each kernel is checked once more on n - 1
  -- elements (a tail past them, as the global size is rounded up). A wrong
  -- result raises: the recipe exits non-zero, no figure printed.
  local function set_args(v, L, m) -- for m elements: returns the global size and the elements owned
    local count = m // v.width
    v.kernel:args(dc, da, db, cl.float(scalar), cl.uint(count))
    return (count + L - 1) // L * L, count * v.width
  end
  local function outputs(owned) return { { dc, owns = { 0, owned }, expect = ref:slice(0, owned) } } end
  local function measure(v, L, m, once)
    local global, owned = set_args(v, L, m)
    return R:measure{ label = ("%s, local size %d%s"):format(v.label, L, once and ", n - 1 elements" or ""),
      run = function() return q:launch(v.kernel, global, L) end, reads = { da, db }, outputs = outputs(owned),
      bytes = 3 * 4 * m, ops = 2 * m, roofline = not once, reps = once and 1 or nil, warmup = once and 0 or nil }
  end

  -- 6. Measure and report: each variant at each work-group size the driver
  -- accepts, verified, is a row of the table (text, --md, --csv, --json,
  -- --compare) and a point of the plot (terminal, --svg). Median, min and max
  -- time of the repetitions: R:emit adds their spread, and flags a noisy row.
  local t = R:table{
    title = ("Triad c = a + %g b on %d floats (%s per array)"):format(scalar, n, units.format_size(bytes)),
    id = "triad",
    columns = { { name = "variant", key = true }, { name = "local", key = true }, R:time_columns("µs"),
      R:bw_column("bandwidth", { compare = false }) },
  }
  local p = plot.new{ title = "Triad: effective bandwidth by work-group size",
    x = { name = "work-group size", log2 = true }, y = { name = "bandwidth", unit = R.bw_unit } }
  local refused = {}
  for _, v in ipairs(variants) do
    for _, L in ipairs(sizes) do
      local global, owned = set_args(v, L, n)
      local ok, why = R:try_launch(v.kernel, global, L, { outputs = outputs(owned) }) -- the contract checked first
      if not ok then refused[#refused + 1] = ("%s, local size %d: left out, the driver refused it: %s"):format(v.label, L, why)
      else
        local r = measure(v, L, n)
        measure(v, L, n - v.width, true)
        R:add_row(t, r, { variant = v.label, ["local"] = L })
        p:add(v.label, L, r.bw)
      end
    end
  end
  t:note(("bandwidth: 3 x %d bytes (a and b read, c written) / median time of %d runs"):format(bytes, R.reps))
  t:note("verified: every element against the CPU (tolerance 1e-5 relative)")
  for _, why in ipairs(refused) do t:note(why) end
  if R.args.kernel then R:rank(t, "time") end -- optional: assignment mode
  R:emit(t)
  R:plot(p)
end)
