-- template: the starting point of a new experiment. Copy it and its kernels:
--   cp recipes/template.lua recipes/NAME.lua; cp kernels/template.cl kernels/NAME.cl
-- then change the name, the kernels and the bytes each moves; run it with
--   build/clua recipes/NAME.lua --quick        (and --help for every option)
-- It measures c = a + scalar * b (the STREAM triad) with one float and with
-- one float4 per work-item, for a sweep of work-group sizes; every result is
-- checked against the CPU before any figure is printed. With --kernel FILE a
-- student's own triad is timed, checked and ranked beside them (assignment
-- mode, docs/assignments.md).
local cl = require "cl"
local recipe = require "clua.recipe"
local plot = require "clua.plot"
local units = require "clua.units"

-- 1. Options: the shared ones (--device, --quick, --reps, --size, --csv,
-- --json, --svg, --compare, --md, --gib, --help) come with recipe.new; add
-- the experiment's own in `options` (lua-argparse) and read them as R.args.NAME.
local R = recipe.new{
  name = "template",
  description = "c = a + scalar * b (STREAM triad), a float and a float4 per work-item, by work-group size.",
  seed = "STREAM and BabelStream's triad; a template for new recipes",
  quick_size = "1MiB", quick_reps = 3,
  student = "a kernel with the arguments of triad (__global float *c, __global const float *a, "
    .. "__global const float *b, float scalar, uint n), launched with one work-item per element "
    .. "(the global size rounded up to the work-group size); it must write c[i] = a[i] + scalar * b[i] "
    .. "for every i < n. Checked element by element against the CPU.",
  student_name = "triad",
  options = function(p)
    p:option("--scalar", "The triad's scalar.", "3"):argname("S"):convert(tonumber)
    p:option("--local", "Work-group sizes to sweep, comma-separated (default: 64 up to the device's "
      .. "maximum; 64,256 with --quick).")
      :argname("LIST")
  end,
}

local POISON = -999.25 -- never a result: any element left unwritten fails verification

R:main(function(R, dev)
  local info = dev.info
  local q = R.queue

  -- 2. Size the problem from the device: --size bytes per array (default
  -- 64 MiB on a GPU, 16 MiB elsewhere), within what one buffer may hold.
  local default = info.type == "GPU" and 64 * 2^20 or 16 * 2^20
  local bytes = math.tointeger(R.size or default)
  bytes = math.min(bytes, info.max_mem_alloc_size, info.global_mem_size // 8)
  local n = bytes // 16 * 4 -- floats, a multiple of 4 (triad4)
  if n == 0 then error("--size is too small: at least 16 bytes") end
  bytes = 4 * n
  local scalar = R.args.scalar

  -- 3. Kernels (kernels/template.cl, built once per device) and the variants
  -- to time: each with its global size and the bytes it moves.
  local variants = {
    { name = "triad (float)", k = R:kernel("template.cl", "triad"), items = n, count = n },
    { name = "triad4 (float4)", k = R:kernel("template.cl", "triad4"), items = n // 4, count = n // 4 },
  }
  local student, student_label = R:student_kernel()
  if student then variants[#variants + 1] = { name = student_label, k = student, items = n, count = n } end
  local moved = 3 * bytes -- a and b read, c written

  local sizes = {}
  if R.args["local"] then
    for s in R.args["local"]:gmatch("[^,%s]+") do sizes[#sizes + 1] = math.tointeger(tonumber(s)) end
  elseif R.quick then sizes = { 64, 256 }
  else
    -- Up to the device's maximum: a kernel's reported work_group_size is no
    -- guide (NVIDIA's driver reports 256 and runs 1024); a size the driver
    -- refuses is left out below, with a note.
    for s = 64, info.max_work_group_size do if s & (s - 1) == 0 then sizes[#sizes + 1] = s end end
  end

  -- 4. Data and the CPU reference, computed once (a Lua loop: a few million
  -- elements a second; cl.array's own operations run at C speed).
  local a = cl.array("float", n):random(1, -1, 1)
  local b = cl.array("float", n):random(2, -1, 1)
  local ref = cl.array("float", n)
  for i = 0, n - 1 do ref[i] = a[i] + scalar * b[i] end
  -- R:student_buffer: in assignment mode each buffer sits between guard zones,
  -- so a kernel writing outside c (or into a or b) fails R:check_student.
  local da = R:student_buffer("a", a, { input = true, flags = "read_only" })
  local db = R:student_buffer("b", b, { input = true, flags = "read_only" })
  local dc = R:student_buffer("c", bytes, { flags = "write_only" })
  local got = cl.array("float", n)

  -- 5. Time, read back, verify, for every variant and work-group size. A
  -- wrong result raises here: the recipe exits non-zero, no figure printed.
  local results, refused = {}, {}
  for _, v in ipairs(variants) do
    for _, L in ipairs(sizes) do
      v.k:args(dc, da, db, cl.float(scalar), cl.uint(v.count))
      local global = (v.items + L - 1) // L * L
      local ok, why = R:try_launch(v.k, global, L)
      if not ok then refused[#refused + 1] = ("%s, local size %d: left out, the driver refused it: %s"):format(v.name, L, why)
      else
        q:fill(dc, POISON, { type = "float" })
        local t = R:time(function() return q:launch(v.k, global, L) end, { label = v.name .. " " .. L })
        R:check_student(v.name)
        got:fill(0)
        q:read(dc, got)
        if #results == 1 then R:corrupt_one(got) end -- CLUA_CORRUPT: the check below must fail
        R:verify(("%s, local size %d"):format(v.name, L), got, ref)
        results[#results + 1] = { variant = v.name, ["local"] = L, t = t }
      end
    end
  end

  -- 6. Report: everything is verified; the table (text, --md, --csv, --json,
  -- --compare) and the plot (terminal, --svg). Median, min and max time of
  -- the repetitions: R:emit adds their spread, and flags a noisy row.
  local function us(ns) return ("%.1f"):format(ns / 1e3) end
  local t = R:table{
    title = ("Triad c = a + %g b on %d floats (%s per array)"):format(scalar, n, units.format_size(bytes)),
    id = "triad",
    columns = {
      { name = "variant", key = true }, { name = "local", key = true },
      { name = "time", unit = "µs", format = us, ns = true, compare = true },
      { name = "min", unit = "µs", format = us, ns = true }, { name = "max", unit = "µs", format = us, ns = true },
      R:bw_column("bandwidth", { compare = false }),
    },
  }
  local p = plot.new{ title = "Triad: effective bandwidth by work-group size",
    x = { name = "work-group size", log2 = true }, y = { name = "bandwidth", unit = R.bw_unit } }
  for _, r in ipairs(results) do
    local bw = R:bw(moved, r.t.median)
    t:add{ variant = r.variant, ["local"] = r["local"], time = r.t.median, min = r.t.min, max = r.t.max, bandwidth = bw }
    p:add(r.variant, r["local"], bw)
  end
  t:note(("bandwidth: 3 x %d bytes (a and b read, c written) / median time of %d runs"):format(bytes, R.reps))
  t:note("verified: every element against the CPU (tolerance 1e-5 relative)")
  for _, why in ipairs(refused) do t:note(why) end
  if student then R:rank(t, "time") end
  R:emit(t)
  R:plot(p)
end)
