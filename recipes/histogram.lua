-- histogram: the histogram every GPU course sets, three ways, over 16 to
-- 65536 bins and uniform and skewed keys: global atomics (one per key),
-- bins privatised in each work-group's local memory and merged at the end
-- (one atomic per bin per group), and sort-based (a bitonic sort, then each
-- bin's count from two binary searches). The seed's "atomics may be used for
-- integer types" (OpenCL slides, "How we sum elements of a vector with GPU?").
local cl = require("cl")
local recipe = require("clua.recipe")
local units = require("clua.units")

local MAXB = 65536
local R = recipe.new{
  name = "histogram",
  description = [[Histogram of 16-bit keys into 16..65536 bins, uniform and skewed: global atomics,
    local-memory privatised bins merged at the end, and sort-based; verified exactly against the CPU.]],
  seed = "OpenCL slides \"How we sum elements of a vector with GPU?\" (\"atomics may be used for integer types\")",
  student = [[a kernel with the arguments of hist_global (__global const uint *keys, uint n, uint shift,
    __global uint *hist, __local uint *lhist, uint lbins), launched like it: a grid-stride loop's work-groups
    of --local over n 16-bit keys; it must add to hist[b] the number of keys k with k >> shift == b, for the B
    = 65536 >> shift bins, which the recipe zeroes before each launch (hist holds 65536 uints: the rest must
    stay untouched); lhist holds lbins uints of local memory (B when they fit, else 0). Verified exactly at
    every bin count and input.]],
  student_name = "histogram",
  options = function(p)
    p:int("--keys", "Keys (default 2^24 on a GPU, 2^20 on a CPU, 2^14 with --quick, 2^8 with --check-size).")
    p:int("--local", "Work-group size.", "256")
    p:int("--groups-per-cu", "Work-groups per compute unit of the one-launch kernels.", "4")
  end,
}

R:main(function(R, dev, info)
  local n = R.args.keys or (R.check_size and 2^8 or R.quick and 2^14 or info.type == "GPU" and 2^24 or 2^20)
  local L = math.min(R.args["local"], info.max_work_group_size)
  local G = math.max(1, R.args.groups_per_cu * info.compute_units)
  local N2, passes = 1, {} -- the sort's power of two, and its launches' (k, j)
  while N2 < n do
    N2 = N2 * 2
    for e = math.log(N2, 2) - 1, 0, -1 do passes[#passes + 1] = { N2, 1 << e } end
  end
  local BINS = R.check_size and { 16, 256 } or R.quick and { 16, MAXB } or { 16, 256, 4096, MAXB }
  local q, prog = R.queue, R:program("histogram.cl")
  local step, counts = prog:kernel("bitonic_step"), prog:kernel("hist_sorted")
  local VARIANTS = { { id = "global", label = "global atomics", kernel = prog:kernel("hist_global") },
    { id = "local", label = "privatised in local memory", kernel = prog:kernel("hist_local") },
    { id = "sort", label = "sort-based (bitonic + binary search)" } }
  local variants = R:with_student(VARIANTS, nil, VARIANTS[1])
  local hist = R:output("hist", "uint", MAXB)
  local scratch = R.ctx:buffer(N2 * 4)
  local zero, pad = cl.array("uint", 1), cl.array("uint", 1):fill(0xFFFFFFFF)
  local lfit = (info.local_mem_size - 1024) // 4 -- bins a work-group's local memory holds

  -- Keys: uniform in [0, 65535], or skewed: floor(65536 u^4), u uniform in [0, 1] (in float, on the device), so
  -- that bin 0 of B takes B^(-1/4) of them (half at 16 bins); the CPU counts them (h[key]) from Lua lists.
  local function keys_of(dist)
    local k, h = cl.array("uint", n), {}
    if dist == "uniform" then k:random(11, 0, MAXB - 1) else
      local du, dk = R.ctx:buffer(cl.array("float", n):random(12)), R.ctx:buffer(4 * n)
      q:launch(prog:kernel("skew_keys"):args(du, dk, cl.uint(n)), n); q:read(dk, k)
    end
    for first = 0, n - 1, 65536 do
      for _, x in ipairs(k:totable(first, math.min(65536, n - first))) do h[x] = (h[x] or 0) + 1 end
    end
    return k, h
  end

  local t = R:table{ title = ("Histogram of %d keys (%s), work-groups of %d"):format(n, units.format_size(4 * n), L),
    id = "histogram", columns = { { name = "input", key = true }, { name = "bins", key = true },
      { name = "variant", key = true }, R:time_columns("µs"), { name = "rate", unit = "Gkey/s", format = "%.3f", compare = true },
      { name = "vs global", unit = "x", format = "%.2f" } } }
  local skipped = {}
  for _, dist in ipairs({ "uniform", "skewed" }) do
    local host, h = keys_of(dist)
    local keys = R:input("keys (" .. dist .. ")", host)
    for _, B in ipairs(BINS) do
      local shift, want = 0, cl.array("uint", B):fill(0)
      while MAXB >> shift > B do shift = shift + 1 end
      for j = 0, MAXB - 1 do want[j >> shift] = want[j >> shift] + (h[j] or 0) end
      local lbins = B <= lfit and B or 0
      local base
      for _, v in ipairs(variants) do
        local run
        if v.id == "sort" then
          counts:args(scratch, cl.uint(n), cl.uint(shift), hist, cl.uint(B))
          run = function()
            local evs = { q:copy(keys, scratch, { size = 4 * n }) }
            if N2 > n then evs[#evs + 1] = q:fill(scratch, pad, { offset = 4 * n, size = 4 * (N2 - n) }) end
            for _, p in ipairs(passes) do
              evs[#evs + 1] = q:launch(step:args(scratch, cl.uint(p[1]), cl.uint(p[2])), N2, math.min(L, N2))
            end
            evs[#evs + 1] = q:launch(counts, (B + L - 1) // L * L, L)
            return evs
          end
        elseif v.id == "local" and lbins == 0 then
          if skipped[#skipped] ~= B and skipped[1] ~= B then skipped[#skipped + 1] = B end
        else
          v.kernel:args(keys, cl.uint(n), cl.uint(shift), hist, cl["local"](math.max(lbins, 1) * 4), cl.uint(lbins))
          run = function()
            q:fill(hist, zero, { size = 4 * B })
            return q:launch(v.kernel, G * L, L)
          end
        end
        if run then
          -- Contract: hist[0 .. B) holds the CPU's counts exactly; the rest of hist is untouched.
          local label = ("%s, %s keys, %d bins"):format(v.label, dist, B)
          local res = R:measure{ label = label, run = run, reads = { keys }, bytes = 4 * n, budget_ms = 100,
            outputs = { { hist, owns = { 0, B }, expect = want, exact = true } } }
          base = base or res.median
          R:add_row(t, res, { input = dist, bins = B, variant = v.label, rate = n / res.median,
            ["vs global"] = base / res.median })
        end
      end
    end
  end
  t:note("rate: keys / time; every bin verified exactly against the CPU's count, the bins past B untouched")
  t:note(("global and privatised: %d work-groups (%d per compute unit) in a grid-stride loop, hist zeroed before "
    .. "each launch (not timed); sort-based: the keys copied, padded to %d, bitonic-sorted (%d launches) and "
    .. "counted, all timed"):format(G, R.args.groups_per_cu, N2, #passes))
  t:note("skewed: key = floor(65536 u^4) (in float), u uniform: bin 0 of B bins takes B^(-1/4) of the keys (half at 16 bins)")
  if #skipped > 0 then
    t:note(("privatised: no row at %s bins: they do not fit the work-group's %s of local memory")
      :format(table.concat(skipped, ", "), units.format_size(info.local_mem_size)))
  end
  for _, dist in ipairs(variants[4] and { "uniform", "skewed" } or {}) do -- assignment mode: ranks
    for _, B in ipairs(BINS) do
      R:rank(t, "time", function(r) return r.input == dist and r.bins == B end,
        { name = "variant", prefix = ("%s keys, %d bins: "):format(dist, B) })
    end
  end
  R:emit(t)
end)
