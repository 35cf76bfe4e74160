-- peak: the device's compute peak per type and vector width, clpeak's method
-- (chains of dependent multiply-adds over enough work-items to fill the
-- device, the repetition count calibrated to a target time) with a result the
-- host predicts: a kernel that skipped steps, or a compiler that folded the
-- chain away, fails verification instead of reporting 10^6 TFLOPS. Beside
-- each figure, the theoretical peak where the device's lanes per compute
-- unit are known (compute units x lanes x 2 x clock).
local cl = require "cl"
local recipe = require "clua.recipe"
local plot = require "clua.plot"
local noise = require "clua.noise"

local R = recipe.new{
  name = "peak",
  description = "Compute peak (multiply-add chains) for float, double and int, by vector width.",
  seed = "clpeak's compute tests (float, double, int, half)",
  quick_size = "1MiB", quick_reps = 3,
  options = function(p)
    p:option("--types", "Types, comma-separated: float, double, int, half (default: every one the device has).")
      :argname("LIST")
    p:option("--widths", "Vector widths, comma-separated (default 1,2,4,8,16).", "1,2,4,8,16"):argname("LIST")
    p:option("--target-ms", "Time each run is calibrated to fill (default 20 on a GPU, 5 elsewhere; 2 with --quick).")
      :argname("MS"):convert(tonumber)
  end,
}

-- Multiply-add lanes per compute unit and clock (one FMA = 2 operations), by
-- NVIDIA compute capability: the CUDA C++ Programming Guide's table
-- "Throughput of Native Arithmetic Instructions" (operations per clock cycle
-- per multiprocessor: 32-bit floating-point multiply-add, 64-bit
-- floating-point multiply-add, 32-bit integer multiply-add).
local NVIDIA_LANES = {
  ["7.0"] = { float = 64, double = 32, int = 64 },
  ["7.5"] = { float = 64, double = 2, int = 64 },
  ["8.0"] = { float = 64, double = 32, int = 64 },
  ["8.6"] = { float = 128, double = 2, int = 64 },
  ["8.7"] = { float = 128, double = 2, int = 64 },
  ["8.9"] = { float = 128, double = 2, int = 64 },
  ["9.0"] = { float = 128, double = 64, int = 64 },
}

local STEPS = 32 -- multiply-adds of each chain per loop iteration (kernels/peak.cl)
local CHAINS = 2

-- The exact-result bound: lane values l + N must stay integers the type holds
-- exactly, and so must the sum of the 2W lanes.
local EXACT = { float = 2 ^ 24, double = 2 ^ 53, int = 2 ^ 31, half = 2 ^ 11 }

R:main(function(R, dev)
  local info = dev.info
  local q = R.queue
  local exts = {}
  for _, e in ipairs(info.extensions or {}) do exts[e] = true end
  local gpu = info.type == "GPU"

  local types = {}
  local wanted = R.args.types or "float,double,int,half"
  for t in wanted:gmatch("[^,%s]+") do
    if not EXACT[t] then error(("--types: unknown type '%s' (float, double, int, half)"):format(t), 0) end
    types[#types + 1] = t
  end
  local widths = {}
  for w in R.args.widths:gmatch("[^,%s]+") do
    local n = math.tointeger(tonumber(w))
    if not (n == 1 or n == 2 or n == 4 or n == 8 or n == 16) then
      error(("--widths: %s is no vector width (1, 2, 4, 8, 16)"):format(w), 0)
    end
    widths[#widths + 1] = n
  end
  local target = R.args.target_ms or (R.quick and 2 or (gpu and 20 or 5))

  -- Enough work-groups to fill every compute unit many times over.
  local L = math.min(256, info.max_work_group_size)
  local groups = info.compute_units * (gpu and 64 or 4)
  local global = groups * L

  local lanes = info.compute_capability and NVIDIA_LANES[tostring(info.compute_capability)]
  local lanes_why = info.compute_capability
    and ("compute capability %s: CUDA C++ Programming Guide, arithmetic instruction throughput"):format(
      info.compute_capability)
    or "lanes per compute unit unknown for this device"

  local t = R:table{
    title = ("Compute peak: multiply-add chains, %d work-items (%d groups of %d)"):format(global, groups, L),
    id = "peak",
    columns = {
      { name = "type", key = true }, { name = "width", key = true, format = "%d" },
      { name = "peak", unit = "G/s", format = "%.1f", compare = true },
      { name = "median", unit = "G/s", format = "%.1f" },
      noise.column(),
      { name = "theoretical", unit = "G/s", format = "%.0f" },
      { name = "% of theoretical", unit = "%", format = "%.1f" },
      { name = "iterations", format = "%d" },
    },
  }
  local p = plot.new{ title = "Compute peak by vector width", x = { name = "vector width", log2 = true },
    y = { name = "operations", unit = "G/s", from = 0 } }

  local first = true
  for _, ty in ipairs(types) do
    local missing = (ty == "double" and not exts.cl_khr_fp64 and "cl_khr_fp64")
      or (ty == "half" and not exts.cl_khr_fp16 and "cl_khr_fp16")
    if missing then
      t:note(("%s: not measured: the device has no %s"):format(ty, missing))
    elseif ty == "half" then
      -- a chain over half cannot count past 2048 exactly: its steps could not
      -- be verified, and an unverified figure is not printed
      t:note("half: not measured: a half chain cannot count its steps exactly past 2048, so its result "
        .. "could not be checked")
    else
      for _, w in ipairs(widths) do
        local defines = { S = ty, W = w, INTEGER = ty == "int" or nil, FP64 = ty == "double" or nil }
        local k = R:kernel("peak.cl", "peak", defines)
        local out = R.ctx:buffer(global * (ty == "double" and 8 or 4))
        local scalar = ty == "double" and cl.double or ty == "int" and cl.int or cl.float
        -- the most iterations whose result stays exact: 2W x (lanes + N) < EXACT
        local cap = math.max(1, math.floor((EXACT[ty] / (2 * w) - 2 * w) / STEPS))
        cap = math.min(cap, 1 << 20)
        -- calibrate: a probe, then iterations that fill the target time
        local iterations = math.min(cap, 16)
        k:args(out, scalar(1), scalar(1), cl.uint(iterations))
        q:launch(k, global, L)
        local probe = q:launch(k, global, L)
        q:finish()
        local ns = math.max(probe.duration, 1)
        iterations = math.max(1, math.min(cap, math.floor(iterations * target * 1e6 / ns)))
        k:args(out, scalar(1), scalar(1), cl.uint(iterations))
        local tm = R:time(function() return q:launch(k, global, L) end, { label = ("%s%d"):format(ty, w) })

        -- verify: every work-item's sum of lanes, W(2W - 1) + 2W N
        local n = iterations * STEPS
        local expected = w * (2 * w - 1) + 2 * w * n
        local got = cl.array(ty, global)
        q:read(out, got)
        if first then R:corrupt_one(got); first = false end
        local ref = cl.array(ty, global):fill(expected)
        R:verify(("%s%s: sum of lanes after %d steps"):format(ty, w == 1 and "" or w, n), got, ref, { exact = true })

        local ops = global * iterations * STEPS * CHAINS * w * 2
        local th = lanes and lanes[ty] and info.compute_units * lanes[ty] * 2 * info.max_clock_mhz * 1e6
        local row = { type = ty, width = w, peak = ops / tm.min, median = ops / tm.median,
          spread = noise.spread(tm), theoretical = th and th / 1e9, iterations = iterations }
        row["% of theoretical"] = th and row.peak * 1e9 / th * 100
        t:add(row)
        p:add(ty, w, row.peak)
      end
    end
  end
  t:note(("operations: work-items x iterations x %d steps x %d chains x width x 2 (a multiply-add is 2); "
    .. "peak from the fastest of %d runs (clpeak reports the mean), median beside it"):format(STEPS, CHAINS, R.reps))
  t:note(("verified: every work-item's sum of lanes equals W(2W-1) + 2WN exactly (N steps of x = x*a + b "
    .. "with a = b = 1 passed at run time)"))
  t:note(("theoretical: compute units x lanes x 2 x %d MHz (%s)"):format(info.max_clock_mhz or 0, lanes_why))
  R:emit(t)
  R:plot(p)
end)
