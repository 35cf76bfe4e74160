-- offset: the effect of misaligned accesses on a copy kernel.
-- NVIDIA OpenCL Best Practices Guide, 3.2.1.3 "Effects of Misaligned
-- Accesses", Listing 3.5 (offsetCopy) and Figure 3.7: the effective bandwidth
-- of odata[xid] = idata[xid], xid = get_global_id(0) + offset, for offsets
-- 0..32. Same kernel (kernels/copy.cl), sizes and byte count as the plain C
-- baseline (bench/baseline.c): n = SIZE/4 work-items on buffers of
-- SIZE + 128 bytes, bytes = 2 x 4n (read + write).
local cl = require("cl")
local recipe = require("clua.recipe")
local plot = require("clua.plot")
local units = require("clua.units")
local sweeptable = require("clua.sweeptable")

local R = recipe.new{ name = "offset", size = "256MiB", quick_size = "4MiB", check_size = "4KiB",
  description = [[Misaligned accesses: offsetCopy (Listing 3.5) for offsets 0..32, effective bandwidth.]],
  seed = "NVIDIA OpenCL Best Practices Guide 3.2.1.3, Listing 3.5, Figure 3.7",
  student = [[a kernel with the arguments of offsetCopy (__global float *odata, __global float *idata, int
    offset), run once per offset 0..--max-offset like offsetCopy: n work-items in 1-D groups of --local (n =
    SIZE/4 rounded down to a multiple of --local, so no work-item is past the end; with --local 0 n = SIZE/4
    and the driver picks the groups), on buffers of n + E floats, E = max(32, --max-offset) (n is
    get_global_size(0)); it must write odata[i] = idata[i] for offset <= i < offset + n and leave every other
    element of odata untouched (idata is read only). Checked bit for bit at every offset, writes outside odata
    caught; ranked against offsetCopy by the mean of the offsets' median times.]],
  student_name = "offsetCopy",
  options = function(p)
    p:option("--max-offset", "Largest offset tried, in floats.", "32"):argname("N"):convert(require("clua.argcheck").whole)
    sweeptable.local_option(p)
  end }

R:main(function(R, dev, info)
  local maxoff = math.max(0, R.args.max_offset)
  local extra = math.max(32, maxoff) -- floats past n in each buffer: 128 bytes, as the baseline
  local bytes = math.min(math.tointeger(R.size), info.max_mem_alloc_size - extra * 4, info.global_mem_size // 4)
  local lsz = sweeptable.local_size(R)
  local n = bytes // 4 // (lsz or 1) * (lsz or 1)
  if n == 0 then error(("--size %d is too small: at least %d bytes"):format(bytes, (lsz or 1) * 4)) end
  local m = n + extra -- floats per buffer
  local moved = 2 * 4 * n

  local src = cl.array("float", m):random(1, -1, 1)
  local q = R.queue
  local din = R:input("idata", src)
  local dout = R:output("odata", "float", m)
  -- Assignment mode (--kernel FILE): the student's kernel, timed and checked at every offset after offsetCopy.
  local variants = R:with_student({ { kernel = R:kernel("copy.cl", "offsetCopy") } })

  -- Times a variant at offset off. It owns odata[off .. off + n), which must
  -- equal the input bit for bit; the rest must still be poison (the harness).
  local results = {}
  for off = 0, maxoff do
    results[#results + 1] = sweeptable.point({ offset = off }, variants, function(v)
      v.kernel:args(dout, din, off)
      return R:measure{ bytes = moved, reads = { din }, label = (v.student and (v.label .. ", ") or "") .. "offset " .. off,
        run = function() return q:launch(v.kernel, n, lsz) end,
        -- checked on the device (no read back); the host compare names a difference it finds
        outputs = { { dout, owns = { off, off + n }, device = R:device_strided(din), check = function(got)
          return R:verify(("%sodata[%d..%d) (offset %d)"):format(v.student and (v.label .. ": ") or "", off, off + n, off),
            got, src:slice(off, n), { exact = true }).max_rel
        end } } }
    end)
  end

  local base = results[1].t.median
  local t = sweeptable.table(R, { title = ("offsetCopy: effective bandwidth by offset (%s copied)"):format(units.format_size(4 * n)),
    id = "offset", columns = { { name = "offset", unit = "floats", key = true }, sweeptable.columns(R),
      { name = "vs offset 0", unit = "%", format = "%.1f" } } })
  local p = plot.new{ title = "offsetCopy: effective bandwidth (Figure 3.7)",
    x = { name = "offset", unit = "floats" }, y = { name = "effective bandwidth", unit = R.bw_unit } }
  for _, r in ipairs(results) do
    R:add_row(t, r.t, sweeptable.fields(R, r, moved, { offset = r.offset, ["vs offset 0"] = 100 * base / r.t.median }))
    p:add(dev.name, r.offset, r.t.bw)
    if r.st then p:add(R.student_label, r.offset, r.st.bw) end
  end
  t:note(("n = %d work-items%s; buffers of %d bytes; bytes = 2 x 4n (read + write); median of %d, min/max "
    .. "bandwidth from the slowest/fastest run"):format(n, lsz and (", local size " .. lsz) or ", local size "
    .. "chosen by the driver", m * 4, R.reps))
  t:note("every output element checked: the copied range bit for bit against the input, the rest still poison; "
    .. "idata unchanged")
  -- Assignment mode: both kernels over the whole sweep, ranked by their mean time.
  sweeptable.emit(R, t, { param = "offset", unit = "floats", first = "offset 0", kernel = "offsetCopy",
    reference = "offsetCopy (Listing 3.5)", points = results, bytes = function() return moved end, mean = true,
    title = ("offsetCopy and the student's kernel over offsets 0..%d"):format(maxoff), id = "offset-student",
    note = ("time: the mean over offsets 0..%d of each offset's median; bandwidth: 2 x 4n bytes / that time; "
      .. "worst: the slowest offset's bandwidth"):format(maxoff) })
  R:plot(p)
end)
