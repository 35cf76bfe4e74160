-- stride: the effect of strided accesses on a copy kernel.
-- NVIDIA OpenCL Best Practices Guide, 3.2.1.4 "Strided Accesses", Listing 3.6
-- (strideCopy) and Figure 3.9: work-item i copies element i * stride, for
-- strides 1..32 and beyond; the effective bandwidth counts only the useful
-- bytes (n floats read, n written). Same kernel (kernels/copy.cl), sizes and
-- byte count as the plain C baseline (bench/baseline.c): n = SIZE/4/stride
-- work-items on SIZE-byte buffers, bytes = 2 x 4n.
local cl = require "cl"
local recipe = require "clua.recipe"
local plot = require "clua.plot"
local units = require "clua.units"

local R = recipe.new{
  name = "stride",
  description = "Strided accesses: strideCopy (Listing 3.6) for strides 1..32 and beyond, effective bandwidth.",
  seed = "NVIDIA OpenCL Best Practices Guide 3.2.1.4, Listing 3.6, Figure 3.9",
  size = "256MiB", quick_size = "4MiB", quick_reps = 3,
  options = function(p)
    p:option("--max-stride", "Largest stride tried, in floats: every stride up to 32, then powers of two.",
      "1024"):argname("N"):convert(math.tointeger)
    p:option("--sector", "Bytes the memory system fetches at least per access, for the model column "
      .. "(default: 32 on a GPU, the cache line or 64 on a CPU).") :argname("BYTES"):convert(math.tointeger)
    p:option("--local", "Work-group size (0: let the driver choose; capped by the device's maximum).", "256")
      :argname("N"):convert(math.tointeger)
  end,
}

local POISON = -999.25 -- the inputs are in [-1, 1): never a copied value

local function strides(max)
  local list = {}
  for s = 1, math.min(32, max) do list[#list + 1] = s end
  local s = 64
  while s <= max do list[#list + 1] = s; s = s * 2 end
  return list
end

R:main(function(R, dev)
  local info = dev.info
  local bytes = math.tointeger(R.size)
  bytes = math.min(bytes, info.max_mem_alloc_size, info.global_mem_size // 4)
  local m = bytes // 4 -- floats per buffer
  local k = R:kernel("copy.cl", "strideCopy")
  local lsz = R.args["local"]
  if lsz and lsz > 0 then lsz = math.min(lsz, info.max_work_group_size) else lsz = nil end
  local grain = lsz or 1
  local sector = R.args.sector
  if not sector then
    if info.type == "GPU" then sector = 32
    else sector = (info.global_mem_cacheline_size or 0) > 0 and info.global_mem_cacheline_size or 64 end
  end

  local src = cl.array("float", m)
  src:random(1, -1, 1)
  local got = cl.array("float", m)
  local poison = cl.array("float", m)
  poison:fill(POISON)
  local q = R.queue
  local din = R.ctx:buffer(src, "read_only")
  local dout = R.ctx:buffer(m * 4, "write_only")

  local results = {}
  for _, s in ipairs(strides(R.args.max_stride)) do
    local n = m // s // grain * grain
    if n == 0 then break end
    q:fill(dout, POISON, { type = "float" })
    q:finish()
    k:args(dout, din, s)
    local t = R:time(function() return q:launch(k, n, lsz) end, { label = ("stride %d"):format(s) })
    got:fill(0)
    q:read(dout, got)
    if s == 2 then R:corrupt_one(got, (n // 2) * s) end
    -- every element: odata[i*s] = idata[i*s]; every other one still poison
    local g, e = cl.array("float", n), cl.array("float", n)
    g:gather(got, 0, s)
    e:gather(src, 0, s)
    R:verify(("odata[i*%d] (stride %d)"):format(s, s), g, e, { exact = true })
    for j = 1, s - 1 do
      g:gather(got, j, s)
      R:verify(("odata[i*%d+%d] untouched (stride %d)"):format(s, j, s), g, poison:slice(0, n), { exact = true })
    end
    local tail = m - n * s
    if tail > 0 then
      R:verify(("odata[%d..%d) untouched (stride %d)"):format(n * s, m, s), got:slice(n * s, tail),
        poison:slice(0, tail), { exact = true })
    end
    results[#results + 1] = { stride = s, n = n, t = t }
  end

  local base = R:bw(2 * 4 * results[1].n, results[1].t.median)
  local t = R:table{
    title = ("strideCopy: effective bandwidth by stride (%s buffers)"):format(units.format_size(m * 4)),
    id = "stride",
    columns = {
      { name = "stride", unit = "floats", key = true },
      { name = "work-items" },
      R:bw_column("bandwidth"),
      { name = "min", unit = R.bw_unit, format = "%.1f" }, { name = "max", unit = R.bw_unit, format = "%.1f" },
      { name = "time", unit = "µs", format = "%.1f" },
      { name = "vs stride 1", unit = "%", format = "%.1f" },
      { name = "model", unit = R.bw_unit, format = "%.1f" },
    },
  }
  local p = plot.new{ title = "strideCopy: effective bandwidth (Figure 3.9)",
    x = { name = "stride", unit = "floats", log2 = true }, y = { name = "effective bandwidth", unit = R.bw_unit } }
  for _, r in ipairs(results) do
    local moved = 2 * 4 * r.n
    local bw = R:bw(moved, r.t.median)
    local fetched = math.max(4, math.min(4 * r.stride, sector)) -- bytes fetched per useful float
    t:add{ stride = r.stride, ["work-items"] = r.n, bandwidth = bw, min = R:bw(moved, r.t.max),
      max = R:bw(moved, r.t.min), time = r.t.median / 1e3, ["vs stride 1"] = 100 * bw / base,
      model = base * 4 / fetched }
    p:add("measured", r.stride, bw)
    p:add(("model (%d-byte sectors)"):format(sector), r.stride, base * 4 / fetched)
  end
  t:note(("n = SIZE/4/stride work-items%s; bytes = 2 x 4n (useful bytes only); median of %d, min/max bandwidth "
    .. "from the slowest/fastest run"):format(lsz and (" (a multiple of the local size " .. lsz .. ")")
    or " (local size chosen by the driver)", R.reps))
  t:note(("model: stride 1's bandwidth x 4 / min(4 x stride, %d): every useful float costs a whole %d-byte "
    .. "sector once the stride spans one (--sector)"):format(sector, sector))
  t:note("every output element checked: odata[i*stride] bit for bit against the input (gathered), every other "
    .. "element still poison")
  R:emit(t)
  R:plot(p)
end)
