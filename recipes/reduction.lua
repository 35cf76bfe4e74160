-- reduction: the sum of a large float vector through the classic ladder of
-- reduction kernels, against the copy kernel's bandwidth on the same bytes.
-- OpenCL optimisation slides, "How we sum elements of a vector with GPU?" (the
-- two-stage kernel); the GPU course's reduction steps (after M. Harris,
-- "Optimizing Parallel Reduction in CUDA"); Best Practices Guide A.2.
local cl = require("cl")
local recipe = require("clua.recipe")
local units = require("clua.units")

local R = recipe.new{
  name = "reduction",
  description = [[Sum of a float vector: the reduction ladder (divergent, bank-conflicting, sequential, add
    during load, unrolled last warp, many elements per work-item) and the slides' two-stage kernel.]],
  seed = "OpenCL slides \"How we sum elements of a vector with GPU?\"; Best Practices Guide A.2",
  quick_size = "1MiB", check_size = "16784", -- 4196 floats: a partial last work-group, for the checker
  student = [[a kernel with the arguments of reduce1-6 (__global const float *in, __global float *out, uint n,
    __local float *sdata); launched with --local L work-items per group and ceil(n / (P L)) groups (P =
    --kernel-per), work-group g must write the sum of in[g P L .. (g+1) P L) (those below n) to out[g]; the
    recipe launches it again on the partial sums until one value is left. Every partial sum of the first
    launch is checked against the CPU before any timing.]],
  student_name = "reduce",
  options = function(p)
    p:int("--local", "Work-group size, a power of two >= 64.", "256")
    p:int("--groups-per-cu", "Work-groups per compute unit for kernel 6 and the slides' kernel "
      .. "(default: the best of the sweep).")
    p:flag("--no-warp-sync", "Keep barriers in the unrolled last warp even on NVIDIA.")
    p:int("--kernel-per", "Assignment mode: elements each work-item of --kernel sums per launch.", "2", "P")
  end,
}

local U = 2.0^-24 -- unit roundoff of float
-- The bound of float summation along a tree of height h: |err| <= gamma_h *
-- sum|x| (Higham, Accuracy and Stability of Numerical Algorithms, 4.2).
local function gamma(h) return h * U / (1 - h * U) end

-- The ladder: kernel, label, elements one work-group sums per launch
-- (in units of the local size), and how each launch's adds nest:
-- "tree" log2(L) levels, "load" one add more, "grid" a sequential loop first.
local LADDER = {
  { k = "reduce1", label = "1 interleaved, divergent (tid % 2s)", per = 1, depth = "tree" },
  { k = "reduce2", label = "2 interleaved, strided index (bank conflicts)", per = 1, depth = "tree" },
  { k = "reduce3", label = "3 sequential addressing", per = 1, depth = "tree" },
  { k = "reduce4", label = "4 first add during load", per = 2, depth = "load" },
  { k = "reduce5", label = "5 unrolled last warp", per = 2, depth = "load" },
}

local function log2(x) return math.floor(math.log(x, 2) + 0.5) end

R:main(function(R, dev, info)
  local L = R.args["local"]
  if L < 64 or L & (L - 1) ~= 0 then error("--local must be a power of two >= 64, got " .. L) end
  -- The size asked is the size run (a ragged one leaves a partial last
  -- work-group, which is the point of asking for it), or it is refused with
  -- the reason; only the default shrinks to fit the device, and says so.
  local default = info.type == "GPU" and 2^28 or 2^24 -- bytes: 2^26 floats on a GPU, 2^22 on a CPU
  local limit = math.min(info.max_mem_alloc_size, info.global_mem_size // 4)
  local bytes, size_note = math.tointeger(R.size or default), nil
  if R.args.size then
    if bytes < 4 or bytes % 4 ~= 0 then
      error(("--size %d bytes is not a whole number of floats (4 bytes each): give a multiple of 4 bytes")
        :format(bytes), 0)
    end
    if bytes > limit then
      error(("--size %s is more than one vector may take on %s: %s (the smaller of its largest allocation "
        .. "and a quarter of its memory)"):format(units.format_size(bytes), info.name, units.format_size(limit)), 0)
    end
  elseif bytes > limit then
    size_note = ("the default size shrank from %s to %s: the smaller of %s's largest allocation and a "
      .. "quarter of its memory"):format(units.format_size(bytes), units.format_size(limit // 4 * 4), info.name)
    bytes = limit // 4 * 4
  end
  local n, cus, q = bytes // 4, info.compute_units, R.queue

  -- The unrolled last warp runs without barriers only where 32 work-items are
  -- known to run in lock step: an NVIDIA GPU that reports warp size 32.
  local warp_sync = not R.args.no_warp_sync and info.warp_size == 32
  local warp_why
  if warp_sync then
    warp_why = "5 and 6 end with the last warp unrolled without barriers (NVIDIA, warp size 32, "
      .. "volatile local memory); since Volta the hardware no longer guarantees a warp's lock step "
      .. "(CUDA asks for __syncwarp), so this rests on the compiler and is verified on every run"
  elseif R.args.no_warp_sync then
    warp_why = "5 and 6 keep a barrier between the unrolled steps (--no-warp-sync)"
  else
    warp_why = ("5 and 6 keep a barrier between the unrolled steps: %s has no known warp width "
      .. "(only NVIDIA reports warp size 32), and without barriers the steps would race, e.g. PoCL "
      .. "runs a work-group's work-items one after another between barriers"):format(info.name)
  end
  local prog = R:program("reduction.cl", { WARP_SYNC = warp_sync and 1 or 0 })
  -- The device's maximum is the limit: a kernel's reported work_group_size is
  -- no guide (NVIDIA's driver reports 256 and runs 1024); a refusal by the
  -- driver ends the run with the launch's explanation.
  if L > info.max_work_group_size then
    error(("--local %d exceeds the device's maximum work-group size %d"):format(L, info.max_work_group_size))
  end

  -- Input: floats in [0, 1] (all positive: the relative error of the sum is
  -- the relative error against sum |x|, which the bound below is about).
  local host = cl.array("float", n):random(7, 0, 1)
  local ref = host:sum() -- compensated double sum, in C
  local din = R:input("in", host)
  local maxp = (n + L - 1) // L
  local P = { R:output("out", "float", maxp), R:output("out (2nd launch)", "float", maxp) } -- ping-pong

  -- The launches of a variant, until one value is left: {kernel, src, dst,
  -- n, groups, height}; height bounds the additions any input goes through.
  local function plan(k, per, depth, groups)
    local seq, src, m, which = {}, din, n, 1
    repeat
      local g = (m + per * L - 1) // (per * L) -- one work-group per per*L elements
      if groups then g = #seq == 0 and math.min(groups, g) or 1 end -- fixed groups, then one
      local h = log2(L)
      if depth == "load" then h = h + 1
      elseif depth == "grid" then h = h + 2 * ((m + 2 * L * g - 1) // (2 * L * g))
      elseif depth == "slides" then h = h + (m + L * g - 1) // (L * g)
      elseif depth == "any" then h = per * L end -- any order of a group's per * L additions
      seq[#seq + 1] = { k = k, src = src, dst = P[which], which = which, n = m, groups = g, height = h }
      src, m, which = P[which], g, 3 - which
    until m == 1
    return seq
  end

  -- The contract of a variant's launches: each ping-pong buffer owns the
  -- partial sums its launches write (out[0 .. groups)); the last launch's
  -- out[0] must be the sum within gamma_h, the bound of a tree of height h.
  local function measure(label, seq)
    local h, owns = 0, { 0, 0 }
    for _, s in ipairs(seq) do
      h = h + s.height
      owns[s.which] = math.max(owns[s.which], s.groups)
    end
    local bound = gamma(h)
    local last = seq[#seq].which
    local outs = {}
    for w = 1, 2 do
      if owns[w] > 0 then
        outs[#outs + 1] = { P[w], owns = { 0, owns[w] }, check = w == last and function(got, what)
          return R:verify_scalar(what .. ": the sum", got[0], ref, bound) end or nil }
      end
    end
    local r = R:measure{ label = label, reads = { din }, outputs = outs, bytes = n * 4, ops = n - 1,
      run = function()
        local evs = {}
        for i, s in ipairs(seq) do evs[i] = q:launch(s.k:args(s.src, s.dst, cl.uint(s.n), cl["local"](L * 4)), s.groups * L, L) end
        return evs
      end }
    r.bound, r.launches = bound, #seq
    return r
  end

  -- The copy kernel on the same bytes: the device's streaming bandwidth.
  local dout = R:output("copy out", "float", n)
  local copy = R:kernel("copy.cl", "copy"):args(dout, din)
  local copy_local = n % L == 0 and L or nil -- a ragged size: the driver's work-group (copy.cl has no tail test)
  local tcopy = R:measure{ label = "copy", run = function() return q:launch(copy, n, copy_local) end, reads = { din },
    outputs = { { dout, expect = host, exact = true } }, bytes = 2 * bytes }
  local copy_bw = tcopy.bw

  -- The ladder, 1 to 5.
  local rows = {}
  for _, v in ipairs(LADDER) do
    local label = v.label
    if v.k == "reduce5" then label = label .. (warp_sync and " (warp-synchronous)" or " (barriers)") end
    rows[#rows + 1] = { label = label, r = measure(label, plan(prog:kernel(v.k), v.per, v.depth)) }
  end

  -- 6 and the slides' kernel: a sweep of work-groups per compute unit.
  local sweep = {}
  for _, g in ipairs(R.args.groups_per_cu and { R.args.groups_per_cu } or R.quick and { 2, 8 } or { 1, 2, 4, 8, 16, 32 }) do
    local groups = math.max(1, g * cus)
    sweep[#sweep + 1] = { g = g, groups = groups,
      r6 = measure(("6, %d groups/CU"):format(g), plan(prog:kernel("reduce6"), 2, "grid", groups)),
      rs = measure(("slides, %d groups/CU"):format(g), plan(prog:kernel("reduce_slides"), 1, "slides", groups)) }
  end
  local best6, bests = sweep[1], sweep[1]
  for _, s in ipairs(sweep) do
    if s.r6.median < best6.r6.median then best6 = s end
    if s.rs.median < bests.rs.median then bests = s end
  end
  rows[#rows + 1] = { label = ("6 many elements per work-item, unrolled (%d groups/CU)"):format(best6.g), r = best6.r6 }
  rows[#rows + 1] = { label = ("slides' two-stage kernel (%d groups/CU)"):format(bests.g), r = bests.rs }
  -- 6 with one float atomic per group into out[0] (zeroed first, not timed) instead of a
  -- second launch: any order of the G partial sums, so h grows by G.
  local ka, dsum = prog:kernel("reduce_atomic"), R:output("out (atomic)", "float", 1)
  local ga = gamma(log2(L) + 2 * ((n + 2 * L * best6.groups - 1) // (2 * L * best6.groups)) + best6.groups)
  ka:args(din, dsum, cl.uint(n), cl["local"](L * 4))
  local ra = R:measure{ label = "6, one atomic per group", reads = { din }, bytes = n * 4, ops = n - 1,
    outputs = { { dsum, check = function(got, what) return R:verify_scalar(what .. ": the sum", got[0], ref, ga) end } },
    run = function() q:fill(dsum, 0.0); return q:launch(ka, best6.groups * L, L) end }
  ra.bound, ra.launches = ga, 1
  rows[#rows + 1] = { label = ("6, one atomic per group instead of a second launch (%d groups/CU)"):format(best6.g), r = ra }

  -- Assignment mode (--kernel FILE): the student's kernel, with the arguments
  -- of 1-6. Before it is timed, its first launch is checked work-group by
  -- work-group (out[g], and nothing else of out) at the size run, at a size
  -- that leaves a partial last work-group (the size run when it is ragged)
  -- and at one partial work-group alone (what the later launches see). Past
  -- the n elements it is given, its input holds 1e30 for a whole span: a
  -- group that reads beyond n is wrong, and named.
  local student, student_label = R:student_kernel(nil, { WARP_SYNC = warp_sync and 1 or 0 })
  local kper, checked = R.args.kernel_per, {}
  if student then
    if not kper or kper < 1 then error("--kernel-per must be at least 1") end
    local span = kper * L
    local function first_launch(m)
      local g, r = (m + span - 1) // span, m % span
      local why = r == 0 and "" or (" (%d groups, the last one %d of %d elements)"):format(g, r, span)
      local data = cl.array("float", m + (R.check_size and 0 or span)):fill(1e30) -- the checker: no padding
      data:slice(0, m):copy(host:slice(0, m))
      local want = cl.array("double", g)
      for i = 0, g - 1 do want[i] = host:slice(i * span, math.min(span, m - i * span)):sum() end
      local din_m = R:input(("in (n = %d)"):format(m), data)
      local dout_m = R:output("out", "float", (m + L - 1) // L)
      R:measure{ label = ("%s, first launch, n = %d%s"):format(student_label, m, why), reps = 1, warmup = 0,
        reads = { din_m }, outputs = { { dout_m, owns = { 0, g }, expect = want, tol = gamma(span) } },
        run = function() return q:launch(student:args(din_m, dout_m, cl.uint(m), cl["local"](L * 4)), g * L, L) end }
      checked[#checked + 1] = m
    end
    if R:checking_student() then -- not in the grader's timing runs (--grading time)
      first_launch(n)
      local m2 = n % span ~= 0 and nil or n - span // 2 - 1
      if m2 and m2 > 0 then first_launch(m2) end
      local m3 = math.min(n, span // 2 + 3)
      if m3 ~= n and m3 ~= m2 then first_launch(m3) end
    end
    rows[#rows + 1] = { label = student_label, r = measure(student_label, plan(student, kper, "any")) }
  end

  -- Everything verified: the figures.
  local t = R:table{ title = ("Sum of %d floats (%s)"):format(n, units.format_size(bytes)), id = "reduction",
    columns = { { name = "variant", key = true }, { name = "launches" }, R:time_columns("µs"),
      R:bw_column("bandwidth", { compare = false }), { name = "of copy", unit = "%", format = "%.1f" },
      { name = "speed-up", unit = "x", format = "%.2f" }, { name = "rel. error", format = "%.2e" },
      { name = "bound", format = "%.1e" } } }
  R:add_row(t, tcopy, { variant = "copy kernel (reference; read + write)", launches = 1, ["of copy"] = 100 })
  local first, best = rows[1].r.median, rows[1]
  for _, row in ipairs(rows) do
    local r = row.r
    R:add_row(t, r, { variant = row.label, launches = r.launches, ["of copy"] = 100 * r.bw / copy_bw,
      ["speed-up"] = first / r.median, ["rel. error"] = r.err, bound = r.bound })
    if r.median < best.r.median then best = row end
  end
  t:note("time: first start to last end of all the variant's launches (each launch reduces the previous "
    .. "one's partial sums, until one value is left); bandwidth: input bytes / time; the copy kernel "
    .. "counts bytes read + written")
  t:note("of copy: bandwidth / the copy kernel's (kernels/copy.cl, same bytes, same run); speed-up: vs 1")
  t:note(("rel. error: |sum - S| / S against S, the double (compensated) CPU sum = %.17g; the data are "
    .. "floats in [0, 1] (seed 7); bound: gamma_h = h u / (1 - h u), u = 2^-24, h the most additions "
    .. "any element goes through; each result is checked against it"):format(ref))
  t:note(warp_why)
  if size_note then t:note(size_note) end
  if student then
    R:rank(t, "time", function(row) return row.variant ~= t.rows[1].variant end)
  end
  if #checked > 0 then
    t:note(("%s: %d elements per work-item per launch (--kernel-per), its error bound that of any "
      .. "order of a group's %d additions; its first launch was checked group by group at n = %s (%s)"):format(
      student_label, kper, kper * L, table.concat(checked, ", "), R.check_size and "its input ending at n: a read "
      .. "past it is the checker's finding" or "past n, its input held 1e30"))
  end
  t:note(("work-groups of %d work-items; 6 and the slides' kernel use the best of the groups-per-CU sweep "
    .. "(%d compute units); the slides' last step (work-item 0 adding every group's value after "
    .. "barrier(CLK_GLOBAL_MEM_FENCE)) races across work-groups, so its second stage is a second launch")
    :format(L, cus))
  t:note(("best: %s, %.1f%% of the copy kernel's bandwidth"):format(best.label, 100 * best.r.bw / copy_bw))
  R:emit(t)

  local us = function(v) return ("%.1f"):format(v / 1e3) end
  local cols = { { name = "groups/CU", key = true }, { name = "groups" } }
  for _, w in ipairs({ "6", "slides" }) do
    table.move({ { name = w .. " time", unit = "µs", format = us, ns = true, compare = w == "6" or nil },
      R:spread_column(w .. " spread"), R:bw_column(w .. " bandwidth", { theoretical = false, compare = false }),
      { name = w .. " of copy", unit = "%", format = "%.1f" } }, 1, 4, #cols + 1, cols)
  end
  local st = R:table{ title = "Kernel 6 and the slides' kernel by work-groups per compute unit", id = "groups", columns = cols }
  for _, s in ipairs(sweep) do
    local row = { ["groups/CU"] = s.g, groups = s.groups }
    for w, r in pairs({ ["6"] = s.r6, slides = s.rs }) do
      row[w .. " time"], row[w .. " spread"], row[w .. " bandwidth"], row[w .. " of copy"] = r.median, r.spread, r.bw,
        100 * r.bw / copy_bw
    end
    st:add(row)
  end
  st:note("each: two launches (the groups' partial sums, then one work-group over them), verified as above")
  R:emit(st)
end)
