-- offset: the effect of misaligned accesses on a copy kernel.
-- NVIDIA OpenCL Best Practices Guide, 3.2.1.3 "Effects of Misaligned
-- Accesses", Listing 3.5 (offsetCopy) and Figure 3.7: the effective bandwidth
-- of odata[xid] = idata[xid], xid = get_global_id(0) + offset, for offsets
-- 0..32. Same kernel (kernels/copy.cl), sizes and byte count as the plain C
-- baseline (bench/baseline.c): n = SIZE/4 work-items on buffers of
-- SIZE + 128 bytes, bytes = 2 x 4n (read + write).
local cl = require "cl"
local recipe = require "clua.recipe"
local plot = require "clua.plot"
local units = require "clua.units"

local R = recipe.new{
  name = "offset",
  description = "Misaligned accesses: offsetCopy (Listing 3.5) for offsets 0..32, effective bandwidth.",
  seed = "NVIDIA OpenCL Best Practices Guide 3.2.1.3, Listing 3.5, Figure 3.7",
  size = "256MiB", quick_size = "4MiB", quick_reps = 3,
  options = function(p)
    p:option("--max-offset", "Largest offset tried, in floats.", "32"):argname("N"):convert(math.tointeger)
    p:option("--local", "Work-group size (0: let the driver choose; capped by the device's maximum).", "256")
      :argname("N"):convert(math.tointeger)
  end,
}

local POISON = -999.25 -- the inputs are in [-1, 1): never a copied value

R:main(function(R, dev)
  local info = dev.info
  local maxoff = math.max(0, R.args.max_offset)
  local extra = math.max(32, maxoff) -- floats past n in each buffer: 128 bytes, as the baseline
  local bytes = math.tointeger(R.size)
  bytes = math.min(bytes, info.max_mem_alloc_size - extra * 4, info.global_mem_size // 4)
  local k = R:kernel("copy.cl", "offsetCopy")
  local lsz = R.args["local"]
  if lsz and lsz > 0 then lsz = math.min(lsz, info.max_work_group_size) else lsz = nil end
  local grain = lsz or 1
  local n = bytes // 4 // grain * grain
  if n == 0 then error(("--size %d is too small: at least %d bytes"):format(bytes, grain * 4)) end
  local m = n + extra -- floats per buffer
  local moved = 2 * 4 * n

  local src = cl.array("float", m)
  src:random(1, -1, 1)
  local got = cl.array("float", m)
  local poison = cl.array("float", extra)
  poison:fill(POISON)
  local q = R.queue
  local din = R.ctx:buffer(src, "read_only")
  local dout = R.ctx:buffer(m * 4, "write_only")

  local results = {}
  for off = 0, maxoff do
    q:fill(dout, POISON, { type = "float" })
    q:finish()
    k:args(dout, din, off)
    local t = R:time(function() return q:launch(k, n, lsz) end, { label = ("offset %d"):format(off) })
    got:fill(0)
    q:read(dout, got)
    if off == 1 then R:corrupt_one(got, off + n // 2) end
    -- every element: the copied range equals the input, the rest is still poison
    R:verify(("odata[%d..%d) (offset %d)"):format(off, off + n, off), got:slice(off, n), src:slice(off, n),
      { exact = true })
    if off > 0 then
      R:verify(("odata[0..%d) untouched (offset %d)"):format(off, off), got:slice(0, off), poison:slice(0, off),
        { exact = true })
    end
    R:verify(("odata[%d..%d) untouched (offset %d)"):format(off + n, m, off), got:slice(off + n, m - off - n),
      poison:slice(0, m - off - n), { exact = true })
    results[#results + 1] = { offset = off, t = t }
  end

  local base = results[1].t.median
  local t = R:table{
    title = ("offsetCopy: effective bandwidth by offset (%s copied)"):format(units.format_size(4 * n)),
    id = "offset",
    columns = {
      { name = "offset", unit = "floats", key = true },
      R:bw_column("bandwidth"),
      { name = "min", unit = R.bw_unit, format = "%.1f" }, { name = "max", unit = R.bw_unit, format = "%.1f" },
      { name = "time", unit = "µs", format = "%.1f" },
      { name = "vs offset 0", unit = "%", format = "%.1f" },
    },
  }
  local p = plot.new{ title = "offsetCopy: effective bandwidth (Figure 3.7)",
    x = { name = "offset", unit = "floats" }, y = { name = "effective bandwidth", unit = R.bw_unit } }
  for _, r in ipairs(results) do
    local bw = R:bw(moved, r.t.median)
    t:add{ offset = r.offset, bandwidth = bw, min = R:bw(moved, r.t.max), max = R:bw(moved, r.t.min),
      time = r.t.median / 1e3, ["vs offset 0"] = 100 * base / r.t.median }
    p:add(dev.name, r.offset, bw)
  end
  t:note(("n = %d work-items%s; buffers of %d bytes; bytes = 2 x 4n (read + write); median of %d, min/max "
    .. "bandwidth from the slowest/fastest run"):format(n, lsz and (", local size " .. lsz) or ", local size "
    .. "chosen by the driver", m * 4, R.reps))
  t:note("every output element checked: the copied range bit for bit against the input, the rest still poison")
  R:emit(t)
  R:plot(p)
end)
