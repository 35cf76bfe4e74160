--- clua.peak: one compute-peak measurement, clpeak's method with a result
-- the host predicts (kernels/peak.cl): two chains of dependent multiply-adds
-- per work-item, x = x * a + a with a = 1 read from a buffer, every lane
-- starting at its own value; after N steps lane l holds l + N exactly and
-- the work-item writes the sum of its lanes, which the host checks. Used by
-- recipes/peak.lua (every type and width) and recipes/roofline.lua (the
-- compute roof).
-- @module clua.peak
local cl = require("cl")

local peak = {}

--- Multiply-adds of each chain per loop iteration (kernels/peak.cl).
peak.STEPS = 32

--- Independent chains per work-item.
peak.CHAINS = 2

-- The exact-result bound of each type: lane values l + N, and the sum of the
-- 2W lanes, must stay integers the type holds exactly.
local EXACT = { float = 2 ^ 24, double = 2 ^ 53, int = 2 ^ 31 }

-- Multiply-add lanes per compute unit and clock (one FMA = 2 operations), by
-- NVIDIA compute capability: the CUDA C++ Programming Guide's table
-- "Throughput of Native Arithmetic Instructions" (results per clock cycle per
-- multiprocessor: 32-bit floating-point multiply-add, 64-bit floating-point
-- multiply-add, 32-bit integer multiply-add).
local NVIDIA_LANES = {
  ["7.0"] = { float = 64, double = 32, int = 64 },
  ["7.5"] = { float = 64, double = 2, int = 64 },
  ["8.0"] = { float = 64, double = 32, int = 64 },
  ["8.6"] = { float = 128, double = 2, int = 64 },
  ["8.7"] = { float = 128, double = 2, int = 64 },
  ["8.9"] = { float = 128, double = 2, int = 64 },
  ["9.0"] = { float = 128, double = 64, int = 64 },
}

--- The types peak.measure takes.
peak.TYPES = { "float", "double", "int" }

--- The launch geometry that fills a device many times over: global, local
-- size and work-groups (64 groups per compute unit on a GPU, 4 elsewhere;
-- `small`, for a checking device: 2 groups of 64).
function peak.geometry(info, small)
  local L = math.min(small and 64 or 256, info.max_work_group_size)
  local groups = small and 2 or info.compute_units * (info.type == "GPU" and 64 or 4)
  return groups * L, L, groups
end

--- The extension a type needs that the device lacks: "cl_khr_fp64" for
-- double, "cl_khr_fp16" for half, where `info.extensions` does not list it;
-- else nil.
-- @param info a device's `info`
-- @string ty "float", "double", "int" or "half"
-- @treturn string|nil the extension missing
function peak.missing(info, ty)
  local need = ({ double = "cl_khr_fp64", half = "cl_khr_fp16" })[ty]
  for _, e in ipairs(need and info.extensions or {}) do if e == need then return nil end end
  return need
end

--- The theoretical peak of a type in operations/s (compute units x lanes x
-- 2 x clock), or nil; and where the lanes per compute unit came from.
-- @param info a device's `info`
-- @string ty "float", "double" or "int"
-- @treturn number|nil operations per second
-- @treturn string the source of the lanes, or why there is none
function peak.theoretical(info, ty)
  local cc = info.compute_capability and tostring(info.compute_capability)
  local lanes = cc and NVIDIA_LANES[cc]
  if not lanes or not lanes[ty] or not info.max_clock_mhz then
    return nil, cc and ("no lanes table for compute capability " .. cc)
      or "lanes per compute unit unknown for this device"
  end
  return info.compute_units * lanes[ty] * 2 * info.max_clock_mhz * 1e6,
    ("compute capability %s: %d lanes per SM (CUDA C++ Programming Guide, arithmetic instruction throughput)")
      :format(cc, lanes[ty])
end

--- Measures one type and vector width on R's device and queue: calibrates
-- the iterations to fill `opts.target_ms`, then runs the kernel through the
-- harness (R:measure: the output poisoned, every work-item's result verified
-- exactly, the input `a` unchanged, the operations held against the compute
-- bound; CLUA_CORRUPT's injection at the run's first verification).
-- `opts.corrupt` is accepted and ignored (the harness corrupts). With
-- --check-size (R.check_size), sizes for a checking device: the small
-- geometry and one iteration, not calibrated.
-- @param R a recipe (clua.recipe), its device chosen
-- @string ty "float", "double" or "int"
-- @int w the vector width: 1, 2, 4, 8 or 16
-- @tab opts `target_ms` (required), `corrupt`
-- @treturn table `{peak=, median= (operations/s), spread= (%), iterations=, global=, tm=, res=}`
-- (`res`: R:measure's result)
function peak.measure(R, ty, w, opts)
  assert(EXACT[ty], "clua.peak: unknown type " .. tostring(ty))
  local q = R.queue
  local global, L = peak.geometry(R.device.info, R.check_size)
  local defines = { S = ty, W = w, INTEGER = ty == "int" or nil, FP64 = ty == "double" or nil }
  local k = R:kernel("peak.cl", "peak", defines)
  local out = R:output("out", ty, global)
  local ab = R:input("a", cl.array(ty, 1):fill(1))
  -- the most iterations whose result stays exact: 2W x (2W + N) < EXACT
  local cap = math.max(1, math.floor((EXACT[ty] / (2 * w) - 2 * w) / peak.STEPS))
  cap = math.min(cap, 1 << 20)
  -- calibrate: a warm launch, a probe, then the iterations that fill the target
  local iterations = math.min(cap, R.check_size and 1 or 16)
  k:args(out, ab, cl.uint(iterations))
  if not R.check_size then
    q:launch(k, global, L)
    local probe = q:launch(k, global, L)
    q:finish()
    iterations = math.max(1, math.min(cap, math.floor(iterations * opts.target_ms * 1e6 / math.max(probe.duration, 1))))
    k:args(out, ab, cl.uint(iterations))
  end

  -- every work-item's sum of lanes: W(2W - 1) + 2W N; the operations held
  -- against the compute bound (R:measure)
  local n = iterations * peak.STEPS
  local ops = global * iterations * peak.STEPS * peak.CHAINS * w * 2
  local res = R:measure{ label = ("%s%s: sum of lanes after %d steps"):format(ty, w == 1 and "" or w, n),
    run = function() return q:launch(k, global, L) end, reads = { ab }, ops = ops, type = ty,
    outputs = { { out, expect = cl.array(ty, global):fill(w * (2 * w - 1) + 2 * w * n), exact = true } } }
  return { peak = ops / res.min * 1e9, median = ops / res.median * 1e9, spread = res.spread,
    iterations = iterations, global = global, tm = res.t, res = res }
end

return peak
