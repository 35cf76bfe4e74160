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
  student = "a kernel with the arguments of strideCopy (__global float *odata, __global float *idata, "
    .. "int stride), run once per stride of the sweep like strideCopy: n work-items in 1-D groups of --local, "
    .. "n = m / stride rounded down to a multiple of --local (so no work-item is past the end; with --local 0 "
    .. "n = m / stride and the driver picks the groups; n is get_global_size(0)), on buffers of m = SIZE/4 "
    .. "floats; it must write odata[i * stride] = idata[i * stride] for 0 <= i < n and leave every other element "
    .. "of odata untouched (idata is read only). Checked bit for bit at every stride, writes outside odata "
    .. "caught; ranked against strideCopy by the sum of the strides' median times.",
  student_name = "strideCopy",
  options = function(p)
    p:option("--max-stride", "Largest stride tried, in floats: every stride up to 32, then powers of two.",
      "1024"):argname("N"):convert(math.tointeger)
    p:option("--sector", "Bytes the memory system fetches at least per access, for the model column "
      .. "(default: 32 on a GPU, the cache line or 64 on a CPU).") :argname("BYTES"):convert(math.tointeger)
    p:option("--local", "Work-group size (0: let the driver choose; capped by the device's maximum).", "256")
      :argname("N"):convert(math.tointeger)
  end,
}

local POISON = (string.unpack("<f", string.char(require("clua.harness").POISON):rep(4))) -- as a float

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
  local poison = cl.array("float", m):fill(POISON)
  local q = R.queue
  local din = R:input("idata", src)
  local dout = R:output("odata", "float", m, "write_only")
  -- Assignment mode (--kernel FILE): the student's kernel, timed and checked at every stride after strideCopy.
  local variants = R:with_student({ { kernel = R:kernel("copy.cl", "strideCopy") } })
  local student = variants[2]
  if student and lsz and m // lsz > 0 then
    student.kernel:args(dout, din, 1)
    local fine, why = R:try_launch(student.kernel, lsz, lsz)
    if not fine then error(("%s: the driver refused it in groups of %d: %s"):format(student.label, lsz, why)) end
    R:check_student(("%s, stride 1"):format(student.label)) -- a write outside its buffers
  end

  -- Times a variant at stride s on n work-items. It owns odata[0 .. (n-1)s]:
  -- odata[i*s] must equal idata[i*s], bit for bit; every other element,
  -- between them (checked here) or past them (by the harness), is still poison.
  local function measure(v, s, n)
    local pre = v.student and (v.label .. ": ") or ""
    local label = v.student and ("%s, stride %d"):format(v.label, s) or ("stride %d"):format(s)
    return R:measure{ label = label, bytes = 2 * 4 * n, reads = { din },
      run = function() return q:launch(v.kernel, n, lsz) end,
      outputs = { { dout, owns = { 0, (n - 1) * s + 1 }, check = function(got)
        local g, e = cl.array("float", n):gather(got, 0, s), cl.array("float", n):gather(src, 0, s)
        local err = R:verify(("%sodata[i*%d] (stride %d)"):format(pre, s, s), g, e, { exact = true }).max_rel
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
    local n = m // s // grain * grain
    if n == 0 then break end
    local r = { stride = s, n = n }
    for _, v in ipairs(variants) do
      v.kernel:args(dout, din, s)
      r[v.student and "st" or "t"] = measure(v, s, n)
    end
    results[#results + 1] = r
  end

  local base = results[1].t.bw
  local t = R:table{
    title = ("strideCopy: effective bandwidth by stride (%s buffers)"):format(units.format_size(m * 4)),
    id = "stride",
    columns = {
      { name = "stride", unit = "floats", key = true },
      { name = "work-items" },
      R:bw_column("bandwidth"),
      { name = "min", unit = R.bw_unit, format = "%.1f" }, { name = "max", unit = R.bw_unit, format = "%.1f" },
      { name = "time", unit = "µs", format = "%.1f" }, R:spread_column(),
      { name = "vs stride 1", unit = "%", format = "%.1f" },
      { name = "model", unit = R.bw_unit, format = "%.1f" },
    },
  }
  if student then -- assignment mode: the student's kernel at each stride
    table.move({ R:bw_column("student"), R:spread_column("student spread"),
      { name = "student speed-up", unit = "x", format = "%.2f" } }, 1, 3, #t.columns + 1, t.columns)
  end
  local p = plot.new{ title = "strideCopy: effective bandwidth (Figure 3.9)",
    x = { name = "stride", unit = "floats", log2 = true }, y = { name = "effective bandwidth", unit = R.bw_unit } }
  for _, r in ipairs(results) do
    local moved = 2 * 4 * r.n
    local bw = r.t.bw
    local fetched = math.max(4, math.min(4 * r.stride, sector)) -- bytes fetched per useful float
    R:add_row(t, r.t, { stride = r.stride, ["work-items"] = r.n, min = R:bw(moved, r.t.max),
      max = R:bw(moved, r.t.min), time = r.t.median / 1e3, ["vs stride 1"] = 100 * bw / base,
      model = base * 4 / fetched, student = r.st and r.st.bw, ["student spread"] = r.st and r.st.spread,
      ["student speed-up"] = r.st and r.t.median / r.st.median })
    p:add("measured", r.stride, bw)
    if r.st then p:add(student.label, r.stride, r.st.bw) end
    p:add(("model (%d-byte sectors)"):format(sector), r.stride, base * 4 / fetched)
  end
  t:note(("n = SIZE/4/stride work-items%s; bytes = 2 x 4n (useful bytes only); median of %d, min/max bandwidth "
    .. "from the slowest/fastest run"):format(lsz and (" (a multiple of the local size " .. lsz .. ")")
    or " (local size chosen by the driver)", R.reps))
  t:note(("model: stride 1's bandwidth x 4 / min(4 x stride, %d): every useful float costs a whole %d-byte "
    .. "sector once the stride spans one (--sector)"):format(sector, sector))
  t:note("every output element checked: odata[i*stride] bit for bit against the input (gathered), every other "
    .. "element still poison; idata unchanged")
  if student then
    t:note(("student: the bandwidth of %s at each stride, same bytes; student speed-up: strideCopy's time / "
      .. "its time"):format(student.label))
  end
  R:emit(t)
  if student then
    -- Assignment mode: both kernels over the whole sweep, ranked by the sum of their times.
    local s = R:table{
      title = ("strideCopy and the student's kernel over strides 1..%d"):format(results[#results].stride),
      id = "stride-student",
      columns = {
        { name = "variant", key = true },
        { name = "time", unit = "µs", format = "%.1f" },
        { name = "stride 1", unit = R.bw_unit, format = "%.1f" },
        { name = "worst", unit = R.bw_unit, format = "%.1f" },
        { name = "worst stride", unit = "floats" },
      },
    }
    for _, v in ipairs{ { "strideCopy (Listing 3.6)", "t" }, { student.label, "st" } } do
      local sum, worst, wbw = 0, nil, nil
      for _, r in ipairs(results) do
        sum = sum + r[v[2]].median
        local bw = R:bw(2 * 4 * r.n, r[v[2]].median)
        if not wbw or bw < wbw then worst, wbw = r, bw end
      end
      s:add{ variant = v[1], time = sum / 1e3, ["stride 1"] = R:bw(2 * 4 * results[1].n, results[1][v[2]].median),
        worst = wbw, ["worst stride"] = worst.stride }
    end
    s:note(("time: the sum over the %d strides of each stride's median; worst: the lowest effective bandwidth "
      .. "of the sweep"):format(#results))
    R:rank(s, "time")
    R:emit(s)
  end
  R:plot(p)
end)
