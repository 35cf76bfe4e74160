-- stride: the effect of strided accesses on a copy kernel.
-- NVIDIA OpenCL Best Practices Guide, 3.2.1.4 "Strided Accesses", Listing 3.6
-- (strideCopy) and Figure 3.9: work-item i copies element i * stride, for
-- strides 1..32 and beyond; the effective bandwidth counts only the useful
-- bytes (n floats read, n written). Same kernel (kernels/copy.cl), sizes and
-- byte count as the plain C baseline (bench/baseline.c): n = SIZE/4/stride
-- work-items on SIZE-byte buffers, bytes = 2 x 4n.
local cl = require("cl")
local recipe = require("clua.recipe")
local plot = require("clua.plot")
local units = require("clua.units")
local sweeptable = require("clua.sweeptable")

local R = recipe.new{ name = "stride", size = "256MiB", quick_size = "4MiB", check_size = "16KiB",
  description = [[Strided accesses: strideCopy (Listing 3.6) for strides 1..32 and beyond, effective
    bandwidth.]],
  seed = "NVIDIA OpenCL Best Practices Guide 3.2.1.4, Listing 3.6, Figure 3.9",
  student = [[a kernel with the arguments of strideCopy (__global float *odata, __global float *idata, int
    stride), run once per stride of the sweep like strideCopy: n work-items in 1-D groups of --local, n = m /
    stride rounded down to a multiple of --local (so no work-item is past the end; with --local 0 n = m /
    stride and the driver picks the groups; n is get_global_size(0)), on buffers of m = SIZE/4 floats; it must
    write odata[i * stride] = idata[i * stride] for 0 <= i < n and leave every other element of odata
    untouched (idata is read only). Checked bit for bit at every stride, writes outside odata caught; ranked
    against strideCopy by the sum of the strides' median times.]],
  student_name = "strideCopy",
  options = function(p)
    p:int("--max-stride", "Largest stride tried, in floats: every stride up to 32, then powers of two.",
      "1024")
    p:int("--sector", "Bytes the memory system fetches at least per access, for the model column "
      .. "(default: 32 on a GPU, the cache line or 64 on a CPU).", nil, "BYTES")
    sweeptable.local_option(p)
  end }

local POISON = require("clua.harness").POISON_FLOAT

local function strides(max)
  local list, s = {}, 64
  for i = 1, math.min(32, max) do list[i] = i end
  while s <= max do list[#list + 1], s = s, s * 2 end
  return list
end

R:main(function(R, dev, info)
  local m = math.min(math.tointeger(R.size), info.max_mem_alloc_size, info.global_mem_size // 4) // 4 -- floats a buffer
  local lsz = sweeptable.local_size(R)
  local sector = R.args.sector or info.type == "GPU" and 32
    or (info.global_mem_cacheline_size or 0) > 0 and info.global_mem_cacheline_size or 64
  local src = cl.array("float", m):random(1, -1, 1)
  local q = R.queue
  local din = R:input("idata", src)
  local dout = R:output("odata", "float", m)
  -- Assignment mode (--kernel FILE): the student's kernel, timed and checked at every stride after strideCopy.
  local variants = R:with_student({ { kernel = R:kernel("copy.cl", "strideCopy") } })

  -- Times a variant at stride s on n work-items. It owns odata[0 .. (n-1)s]:
  -- odata[i*s] must equal idata[i*s], bit for bit; every other element,
  -- between them (checked here) or past them (by the harness), is still poison.
  local function measure(v, s, n)
    v.kernel:args(dout, din, s)
    local pre = v.student and (v.label .. ": ") or ""
    local label = (v.student and (v.label .. ", ") or "") .. "stride " .. s
    return R:measure{ label = label, bytes = 2 * 4 * n, reads = { din },
      run = function() return q:launch(v.kernel, n, lsz) end,
      -- checked on the device (no read back); the gathers below name a difference it finds
      outputs = { { dout, owns = { 0, (n - 1) * s + 1 }, device = R:device_strided(din, s), check = function(got)
        local g, e = cl.array("float", n):gather(got, 0, s), cl.array("float", n):gather(src, 0, s)
        local err = R:verify(("%sodata[i*%d] (stride %d)"):format(pre, s, s), g, e, { exact = true }).max_rel
        local poison = cl.array("float", n):fill(POISON)
        for j = 1, s - 1 do
          local ok, _, _, at = g:slice(0, n - 1):gather(got, j, s):compare(poison:slice(0, n - 1), 0)
          if not ok then error(("%s: odata[%d] written outside the part the kernel owns (odata[i*%d], 0 <= i < %d)")
            :format(label, at * s + j, s, n), 0) end
        end
        return err
      end } } }
  end

  local results = {}
  for _, s in ipairs(strides(R.args.max_stride)) do
    local n = m // s // (lsz or 1) * (lsz or 1)
    if n == 0 then break end
    results[#results + 1] = sweeptable.point({ stride = s, n = n }, variants, function(v) return measure(v, s, n) end)
  end

  local base = results[1].t.bw
  local t = sweeptable.table(R, { title = ("strideCopy: effective bandwidth by stride (%s buffers)"):format(units.format_size(m * 4)),
    id = "stride", columns = { { name = "stride", unit = "floats", key = true }, { name = "work-items" }, sweeptable.columns(R),
      { name = "vs stride 1", unit = "%", format = "%.1f" }, { name = "model", unit = R.bw_unit, format = "%.1f" } } })
  local p = plot.new{ title = "strideCopy: effective bandwidth (Figure 3.9)",
    x = { name = "stride", unit = "floats", log2 = true }, y = { name = "effective bandwidth", unit = R.bw_unit } }
  for _, r in ipairs(results) do
    local fetched = math.max(4, math.min(4 * r.stride, sector)) -- bytes fetched per useful float
    R:add_row(t, r.t, sweeptable.fields(R, r, 2 * 4 * r.n, { stride = r.stride, ["work-items"] = r.n,
      ["vs stride 1"] = 100 * r.t.bw / base, model = base * 4 / fetched }))
    p:add("measured", r.stride, r.t.bw)
    if r.st then p:add(R.student_label, r.stride, r.st.bw) end
    p:add(("model (%d-byte sectors)"):format(sector), r.stride, base * 4 / fetched)
  end
  t:note(("n = SIZE/4/stride work-items%s; bytes = 2 x 4n (useful bytes only); median of %d, min/max bandwidth "
    .. "from the slowest/fastest run"):format(lsz and (" (a multiple of the local size " .. lsz .. ")")
    or " (local size chosen by the driver)", R.reps))
  t:note(("model: stride 1's bandwidth x 4 / min(4 x stride, %d): every useful float costs a whole %d-byte "
    .. "sector once the stride spans one (--sector)"):format(sector, sector))
  t:note("every output element checked, by a kernel on the device (kernels/harness.cl): odata[i*stride] bit for bit "
    .. "against idata[i*stride], every other element still poison; idata unchanged")
  -- Assignment mode: both kernels over the whole sweep, ranked by the sum of their times.
  sweeptable.emit(R, t, { param = "stride", unit = "floats", first = "stride 1", kernel = "strideCopy",
    reference = "strideCopy (Listing 3.6)", points = results, bytes = function(r) return 2 * 4 * r.n end,
    title = ("strideCopy and the student's kernel over strides 1..%d"):format(results[#results].stride),
    id = "stride-student", note = ("time: the sum over the %d strides of each stride's median; worst: the lowest "
      .. "effective bandwidth of the sweep"):format(#results) })
  R:plot(p)
end)
