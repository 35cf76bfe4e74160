-- roofline: mixbench's method. One kernel family (kernels/roofline.cl) whose
-- arithmetic intensity is set by K, the multiply-adds done on each element
-- between reading and writing it, swept from 1/4 to 256 operations per byte
-- for float, double and int; the measured throughput against intensity, under
-- the two roofs measured in the same run: the bandwidth roof (the K = 0 copy,
-- read + write, as stream's copy) and the compute roof (clua.peak, as
-- recipes/peak.lua: the best of widths 1, 4 and 16). The ridge point is where
-- they meet. Every point is verified (element i, holding i mod 2^20, must
-- come back as that + K exactly) before a figure is printed.
local cl = require("cl")
local recipe = require("clua.recipe")
local plot = require("clua.plot")
local units = require("clua.units")
local peakmod = require("clua.peak")
local commalist = require("clua.commalist")

local R = recipe.new{ name = "roofline", quick_size = "1MiB", check_size = "8KiB",
  description = [[Throughput against arithmetic intensity (1/4 to 256 op/B) under the measured roofs.]],
  seed = "mixbench (Konstantinidis and Cotronis): the roofline of a device, measured",
  options = function(p)
    p:option("--types", "Types, comma-separated: float, double, int (default: all the device has)."):argname("LIST")
  end }

local SIZE = { float = 4, double = 8, int = 4 }
local BLOCK = 1 << 20 -- the input repeats 0 .. BLOCK-1: every value + K stays exact in float

-- Fills arr (n elements, n a multiple of BLOCK or smaller) with i mod BLOCK + add.
local function pattern(ty, n, add)
  local arr = cl.array(ty, n)
  local b = math.min(n, BLOCK)
  local block = cl.array(ty, b):ramp(add, 1)
  for first = 0, n - 1, b do arr:slice(first, b):copy(block) end
  return arr
end

R:main(function(R, dev)
  local info, q = dev.info, R.queue
  local gpu = info.type == "GPU"
  local types, skipped = {}, nil
  for _, t in ipairs(commalist.words(R.args.types or "float,double,int", "--types", { "float", "double", "int" }, "type")) do
    if peakmod.missing(info, t) then skipped = "double: not measured: the device has no cl_khr_fp64"
    else types[#types + 1] = t end
  end

  -- Elements per array: 2^26 on a GPU (256 MiB of float: far past any L2),
  -- 2^22 elsewhere, 2^18 with --quick, 2^10 with --check-size (K up to 16); a
  -- multiple of BLOCK and of 4 work-items' elements, within the allocation limits.
  local n = R.size and math.tointeger(R.size // 8) or (R.quick and (1 << 18)) or (gpu and (1 << 26) or (1 << 22))
  n = math.min(n, info.max_mem_alloc_size // 8, info.global_mem_size // 32)
  n = n >= BLOCK and n // BLOCK * BLOCK or math.max(1024, n // 1024 * 1024)
  local L = math.min(256, info.max_work_group_size)
  local global = n // 4
  if global % L ~= 0 then L = 64 end

  local ks, top = {}, R.check_size and 16 or R.quick and 256 or 1024
  for e = 0, 10, R.quick and 2 or 1 do if 1 << e <= top then ks[#ks + 1] = 1 << e end end

  local t = R:table{ title = ("Roofline: K multiply-adds per element read and written (%d elements)"):format(n), id = "roofline",
    columns = { { name = "type", key = true }, { name = "K", key = true, format = "%d" },
      { name = "intensity", unit = "op/B", format = "%.3g" }, { name = "throughput", unit = "G/s", format = "%.1f", compare = true },
      { name = "bandwidth", unit = "GB/s", format = "%.1f" }, R:spread_column(),
      { name = "roof", unit = "G/s", format = "%.1f" }, { name = "% of roof", unit = "%", format = "%.1f" } } }
  local roofs = R:table{ title = "The roofs, measured in this run", id = "roofs",
    columns = { { name = "type", key = true }, { name = "bandwidth", unit = "GB/s", format = "%.1f", compare = true },
      { name = "peak", unit = "G/s", format = "%.1f", compare = true }, { name = "peak width", format = "%d" },
      { name = "ridge", unit = "op/B", format = "%.2f" } } }
  local p = plot.new{ title = "Roofline: measured throughput under the measured roofs",
    x = { name = "arithmetic intensity", unit = "op/B", log2 = true },
    y = { name = "throughput", unit = "G/s", log2 = true } }

  local target = R.quick and 2 or (gpu and 20 or 5)
  for _, ty in ipairs(types) do
    local size = SIZE[ty]
    local ab = R:input("a", cl.array(ty, 1):fill(1))
    local din, dout = R:input("in", pattern(ty, n, 0)), R:output("out", ty, n)

    -- The compute roof: the best of three widths of clua.peak.
    local best, width = 0, nil
    for _, w in ipairs({ 1, 4, 16 }) do
      local m = peakmod.measure(R, ty, w, { target_ms = target })
      if m.peak > best then best, width = m.peak, w end
    end

    -- K = 0 (the bandwidth roof), then the sweep; intensity = 2K / (2 size).
    -- The contract: every element of out is i mod 2^20 + K; in and a
    -- unchanged; 2 x size bytes and 2K operations per element.
    local function point(K)
      local defs = { S = ty, K = K, INTEGER = ty == "int" or nil, FP64 = ty == "double" or nil, BLOCK = BLOCK }
      local kern, chk = R:kernel("roofline.cl", "roofline", defs), R:kernel("roofline.cl", "roofline_check", defs)
      kern:args(dout, din, ab)
      local res = R:measure{ label = ("%s, K = %d: i mod 2^20 + K"):format(ty, K), reads = { din, ab },
        run = function() return q:launch(kern, global, L) end, bytes = 2 * n * size,
        ops = K > 0 and 2 * K * n or nil, type = ty, roofline = false,
        -- every element checked on the device (roofline_check: the closed form); only a difference found
        -- is read back and named against the host's pattern
        outputs = { { dout, device = function(first, buf, lo, hi) return chk:args(buf, cl.uint(hi - lo), first), hi - lo end,
          check = function(got, what) return R:verify(what, got, pattern(ty, n, K), { exact = true }).max_rel end } } }
      -- the harness's notes (a cache figure, a host clock), once each
      R:add_notes(t, res)
      return res
    end
    local bw, peak_g = 2 * n * size / point(0).min, best / 1e9 -- bytes per ns = GB/s
    roofs:add{ type = ty, bandwidth = bw, peak = peak_g, ["peak width"] = width, ridge = peak_g / bw }

    for _, K in ipairs(ks) do
      local K2 = ty == "double" and 2 * K or K -- the same intensities for 8-byte elements
      local res, intensity = point(K2), K2 / size
      local gops, roof = 2 * K2 * n / res.min, math.min(peak_g, bw * intensity)
      t:add{ type = ty, K = K2, intensity = intensity, throughput = gops, bandwidth = 2 * n * size / res.min,
        spread = res.spread, roof = roof, ["% of roof"] = gops / roof * 100 }
      p:add(ty, intensity, gops)
    end
    -- the roof line: bandwidth x intensity up to the ridge, then the peak
    local lo, hi, x = ks[1] / 4, ks[#ks] / 4, ks[1] / 4
    while x <= hi * 1.0001 do p:add(ty .. " roof", x, math.min(peak_g, bw * x)); x = x * 2 end
    if peak_g / bw > lo and peak_g / bw < hi then p:add(ty .. " roof", peak_g / bw, peak_g) end
    p:style(ty .. " roof", { dashed = true })
  end

  t:note(("intensity: K multiply-adds (2K operations) per element over its read and its write (2 x its size); "
    .. "throughput and bandwidth from the fastest of %d runs"):format(R.reps))
  t:note("roof: min(peak, bandwidth x intensity), the roofs of the table below")
  t:note(("verified: every element (i mod 2^20 + K, exactly); %d work-items of 4 elements, groups of %d, %s per array")
    :format(global, L, units.format_size(n * 4)))
  if skipped then t:note(skipped) end
  roofs:note("bandwidth: the K = 0 copy (each element read and written once: stream's copy)")
  roofs:note("peak: clua.peak (recipes/peak.lua's chains), the best of vector widths 1, 4 and 16")
  roofs:note("ridge: peak / bandwidth: below it a kernel is memory-bound, above it compute-bound")
  R:emit(t)
  R:emit(roofs)
  R:plot(p)
end)
