-- stream: BabelStream's five kernels (copy, mul, add, triad, dot) in float
-- and double, measured and verified the way BabelStream 5.0 does, so a user
-- can hold clua's figures against BabelStream's on the same card:
--   a = 0.1, b = 0.2, c = 0.0, scalar = 0.4; each iteration runs
--   copy c = a; mul b = scalar*c; add c = a + b; triad a = b + scalar*c;
--   dot sum(a*b) (work-group partial sums, added on the host);
--   bytes per element: 2, 2, 3, 3, 2 arrays x sizeof(T);
--   bandwidth from the fastest iteration, with the median beside it;
--   verification: the recurrence replayed on scalars on the host for the
--   number of iterations run, every element of a, b, c and the dot sum
--   compared with it (one R:measure an iteration: a, b, c are read and
--   written by it, the partial sums are its output, owned [0, groups)).
-- --size is the array size in elements, as BabelStream's --arraysize.
local cl = require("cl")
local recipe = require("clua.recipe")
local units = require("clua.units")

local R = recipe.new{
  name = "stream",
  description = [[BabelStream's kernels (copy, mul, add, triad, dot) in float and double; --size is the number of
    elements per array (BabelStream's --arraysize).]],
  seed = "BabelStream 5.0 (OpenCL): the issue's peer-tool recipe",
  size = "32M", quick_size = "64K", check_size = "4K", reps = 100, quick_reps = 5, size_unit = 8,
  options = function(p)
    p:option("--precision", "float, double or both.", "both"):choices({ "float", "double", "both" })
    p:int("--dot-groups", "Work-groups of the dot kernel (default: BabelStream's, compute units x 4 on a GPU, "
      .. "x 1 on a CPU).")
    p:int("--dot-wgsize", "Work-group size of the dot kernel, a power of two (default: BabelStream's, the "
      .. "device's maximum on a GPU, 2 x the double vector width on a CPU).")
  end,
}

local START_A, START_B, START_C, SCALAR = 0.1, 0.2, 0.0, 0.4
-- per element: the arrays read + written, and the operations (mul 1, add 1,
-- triad 2 (a multiply-add), dot 2; copy none)
local KERNELS = { { "copy", 2, 0 }, { "mul", 2, 1 }, { "add", 3, 1 }, { "triad", 3, 2 }, { "dot", 2, 2 } }

local function f32(x) return (string.unpack("<f", string.pack("<f", x))) end

-- The gold values after `iters` iterations, rounded as T after every operation.
local function replay(iters, round)
  local a, b, c, s = round(START_A), round(START_B), round(START_C), round(SCALAR)
  for _ = 1, iters do
    c = a
    b = round(s * c)
    c = round(a + b)
    a = round(b + round(s * c))
  end
  return a, b, c
end

R:main(function(R, dev)
  local info, q = dev.info, R.queue
  local ms = function(v) return ("%.4f"):format(v / 1e6) end
  local function mscol(name) return { name = name, unit = "ms", format = ms, ns = true } end
  local t = R:table{
    title = "BabelStream kernels: best bandwidth (from the fastest iteration) and median",
    id = "stream",
    columns = { { name = "precision", key = true }, { name = "kernel", key = true },
      { name = "bytes", unit = "MiB", format = "%.1f" }, R:bw_column("best"),
      { name = "median", unit = R.bw_unit, format = "%.1f" }, mscol("min time"), mscol("median time"),
      mscol("max time"), R:spread_column(), mscol("average") },
  }

  local notes, size_note = {}, nil
  for _, T in ipairs(R.args.precision == "both" and { "float", "double" } or { R.args.precision }) do
    if T == "double" and not info.double_support then
      notes[#notes + 1] = "double skipped: the device does not support double precision (cl_khr_fp64)"
    else
      local esize, round, eps = 4, f32, 2 ^ -23
      if T == "double" then esize, round, eps = 8, function(x) return x end, 2 ^ -52 end
      -- the array size: --size elements, within what the device holds (3 arrays)
      local n = math.tointeger(R.size)
      local fit = math.min(info.max_mem_alloc_size // esize, (info.global_mem_size * 9 // 10) // (3 * esize))
      if n > fit then
        n = fit // 1024 * 1024
        size_note = ("array size reduced to %d elements to fit the device"):format(n)
      end
      local defines = { TYPE = T, SCALAR = T == "double" and "0.4" or "0.4f", USE_FP64 = T == "double" or nil }
      local k = {}
      for _, kern in ipairs(KERNELS) do k[kern[1]] = R:kernel("stream.cl", kern[1] == "dot" and "stream_dot" or kern[1], defines) end

      -- BabelStream's dot configuration. BabelStream launches dot with the
      -- device's maximum and so does this (the kernel's reported
      -- work_group_size is no guide: NVIDIA's driver reports 256 and runs
      -- 1024); a size the driver refuses is halved below.
      local cpu = info.type == "CPU"
      local groups = R.args.dot_groups or info.compute_units * (cpu and 1 or 4)
      local wg = R.args.dot_wgsize or cpu and math.max(1, (info.preferred_vector_width or {}).double or 1) * 2
        or info.max_work_group_size
      wg = 1 << math.floor(math.log(math.min(wg, info.max_work_group_size), 2)) -- a power of two

      -- a, b and c are read and written by the recurrence (not poisoned: they
      -- hold its start values); the dot's partial sums are its output.
      local da, db, dc, dsum = R:output("a", T, n), R:output("b", T, n), R:output("c", T, n), R:output("sum", T, groups)
      for _, x in ipairs({ { da, START_A }, { db, START_B }, { dc, START_C } }) do q:fill(x[1], round(x[2]), { type = T }) end
      for name, b in pairs({ copy = { da, dc }, mul = { db, dc }, add = { da, db, dc }, triad = { da, db, dc } }) do
        k[name]:args(table.unpack(b))
      end
      -- dot tried once (it reads a and b, and its partial sums are written
      -- again by every timed iteration); halved while the driver refuses it.
      local ok, why = R:try_launch(k.dot:args(da, db, dsum, cl["local"](wg * esize), n), groups * wg, wg)
      while not ok do
        if wg == 1 or R.args.dot_wgsize then error(("dot in work-groups of %d: the driver refused it: %s"):format(wg, why)) end
        notes[#notes + 1] = ("%s: dot in work-groups of %d left out: the driver refused it: %s"):format(T, wg, why)
        wg = wg // 2
        ok, why = R:try_launch(k.dot:args(da, db, dsum, cl["local"](wg * esize), n), groups * wg, wg)
      end

      -- One repetition is one iteration of the five kernels; the verification
      -- replays the recurrence for the iterations run, and the dot's sum is
      -- held against the dot's rounding: each work-item adds n / (groups x wg)
      -- products in T, then a tree of log2(wg).
      local iterations, sum, gsum = 0, nil, nil
      local tol = eps * 100
      local terms = (n + groups * wg - 1) // (groups * wg)
      local dot_tol = math.max(T == "double" and 1e-8 or tol, (terms + math.log(wg, 2) + 2) * eps)
      local ref = cl.array(T, n)
      local function array(buf, which)
        return { buf, poison = false, check = function(got, what)
          ref:fill((select(which, replay(iterations, round))))
          return R:verify(("%s (%d iterations)"):format(what, iterations), got, ref, { tol = tol }).max_rel
        end }
      end
      -- Each kernel's figure: its own event in each repetition, held against
      -- the bound of the iteration's working set (a cache figure where the
      -- three arrays fit the device's caches), and its roofline point.
      local figures = {}
      for j, kern in ipairs(KERNELS) do
        figures[j] = { kern[1], event = j, bytes = kern[2] * esize * n, ops = kern[3] * n, type = T }
      end
      local res = R:measure{ label = T, bytes = 12 * esize * n, ops = 6 * n, type = T, roofline = false,
        figures = figures,
        outputs = { array(da, 1), array(db, 2), array(dc, 3), { dsum, owns = { 0, groups }, check = function(got, what)
          local ga, gb = replay(iterations, round)
          sum, gsum = got:sum(), ga * gb * n
          return R:verify_scalar(("%s: dot (%d iterations)"):format(what, iterations), sum, gsum, dot_tol)
        end } },
        run = function()
          iterations = iterations + 1
          return { q:launch(k.copy, n), q:launch(k.mul, n), q:launch(k.add, n), q:launch(k.triad, n),
            q:launch(k.dot, groups * wg, wg) }
        end }
      for _, f in ipairs(res.figures) do
        R:add_row(t, f, { precision = T, kernel = f.name, bytes = f.bytes / 2 ^ 20, best = R:bw(f.bytes, f.min),
          median = f.bw, ["min time"] = f.min, ["median time"] = f.median, ["max time"] = f.max, average = f.mean })
      end
      notes[#notes + 1] = ("%s: %d elements (%s per array), %d iterations run (%d warm-up), dot on %d groups x "
        .. "%d, verified: arrays within %.3g, dot sum %.10g vs %.10g (tolerance %.3g)"):format(T, n,
        units.format_size(n * esize), iterations, res.t.warmup, groups, wg, tol, sum, gsum, dot_tol)
      for _, b in ipairs({ da, db, dc, dsum, ref }) do b:release() end
    end
  end
  if #t.rows == 0 then error("no precision could run: " .. table.concat(notes, "; ")) end

  t:note("bytes: 2, 2, 3, 3, 2 arrays x element size x array size (BabelStream's); times: each kernel's "
    .. "profiling event (BabelStream times each call by the host clock around it and a finish, dot including "
    .. "the read of the partial sums)")
  if size_note then t:note(size_note) end
  for _, n in ipairs(notes) do t:note(n) end
  t:note("theoretical memory bandwidth: " .. R.facts:describe_theoretical("memory", R.divisor))
  R:emit(t)
end)
