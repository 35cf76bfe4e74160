-- peak: the device's compute peak per type and vector width, clpeak's method
-- (chains of dependent multiply-adds over enough work-items to fill the
-- device, the repetition count calibrated to a target time) with a result the
-- host predicts: a kernel that skipped steps, or a compiler that folded the
-- chain away, fails verification instead of reporting 10^6 TFLOPS. Beside
-- each figure, the theoretical peak where the device's lanes per compute
-- unit are known (compute units x lanes x 2 x clock).
local recipe = require("clua.recipe")
local plot = require("clua.plot")
local commalist = require("clua.commalist")
local peakmod = require("clua.peak")

local R = recipe.new{ name = "peak", quick_size = "1MiB",
  description = [[Compute peak (multiply-add chains) for float, double and int, by vector width.]],
  seed = "clpeak's compute tests (float, double, int, half)",
  options = function(p)
    p:option("--types", "Types, comma-separated: float, double, int, half (default: every one the device has)."):argname("LIST")
    p:option("--widths", "Vector widths, comma-separated (default 1,2,4,8,16).", "1,2,4,8,16"):argname("LIST")
    p:option("--target-ms", "Time each run is calibrated to fill (default 20 on a GPU, 5 elsewhere; 2 with --quick; "
      .. "with --check-size, one iteration of 2 groups of 64).") :argname("MS"):convert(tonumber)
  end }

R:main(function(R, dev, info)
  local types = commalist.words(R.args.types or "float,double,int,half", "--types", { "float", "double", "int", "half" }, "type")
  local widths = commalist.integers(R.args.widths, "--widths")
  for _, w in ipairs(widths) do -- 1, 2, 4, 8 or 16
    if w > 16 or w & (w - 1) ~= 0 then error(("--widths: %s is no vector width (1, 2, 4, 8, 16)"):format(w), 0) end
  end
  local target = R.args.target_ms or (R.quick and 2 or (info.type == "GPU" and 20 or 5))
  local global, L, groups = peakmod.geometry(info, R.check_size)

  local t = R:table{ title = ("Compute peak: multiply-add chains, %d work-items (%d groups of %d)"):format(global, groups, L),
    id = "peak", columns = { { name = "type", key = true }, { name = "width", key = true, format = "%d" },
      { name = "peak", unit = "G/s", format = "%.1f", compare = true }, { name = "median", unit = "G/s", format = "%.1f" },
      R:spread_column(), { name = "theoretical", unit = "G/s", format = "%.0f" },
      { name = "% of theoretical", unit = "%", format = "%.1f" }, { name = "iterations", format = "%d" } } }
  local p = plot.new{ title = "Compute peak by vector width", x = { name = "vector width", log2 = true },
    y = { name = "operations", unit = "G/s", from = 0 } }

  local why_lanes
  for _, ty in ipairs(types) do
    local missing = peakmod.missing(info, ty)
    if missing then
      t:note(("%s: not measured: the device has no %s"):format(ty, missing))
    elseif ty == "half" then
      -- a chain over half cannot count past 2048 exactly: its steps could not
      -- be verified, and an unverified figure is not printed
      t:note("half: not measured: a half chain cannot count its steps exactly past 2048, so its result could not be checked")
    else
      local th, why = peakmod.theoretical(info, ty)
      why_lanes = why_lanes or why
      for _, w in ipairs(widths) do
        local m = peakmod.measure(R, ty, w, { target_ms = target }) -- R:measure, bound "compute" by its ops
        t:add{ type = ty, width = w, peak = m.peak / 1e9, median = m.median / 1e9, spread = m.spread,
          theoretical = th and th / 1e9, iterations = m.iterations, ["% of theoretical"] = th and m.peak / th * 100 }
        p:add(ty, w, m.peak / 1e9)
      end
    end
  end
  t:note(("operations: work-items x iterations x %d steps x %d chains x width x 2 (a multiply-add is 2); "
    .. "G/s = 10^9 FLOP/s (float, double) or OP/s (int); peak from the fastest of %d runs (clpeak reports "
    .. "the mean), median beside it"):format(peakmod.STEPS, peakmod.CHAINS, R.reps))
  t:note("verified: every work-item's sum of lanes equals W(2W-1) + 2WN exactly (N steps of x = x*a + a "
    .. "with a = 1 read from a buffer)")
  t:note(("theoretical: compute units x lanes x 2 x %s MHz (%s)"):format(info.max_clock_mhz or "?", why_lanes or "unknown"))
  R:emit(t)
  R:plot(p)
end)
