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
  -- guarded in assignment mode: a write outside odata, or into idata, fails (R:check_student)
  local din = R:student_buffer("idata", src, { input = true, flags = "read_only" })
  local dout = R:student_buffer("odata", m * 4, { flags = "write_only" })
  -- Assignment mode (--kernel FILE): the student's kernel, timed and checked at every stride after strideCopy.
  local student, student_label = R:student_kernel()
  if student and lsz and m // lsz > 0 then
    student:args(dout, din, 1)
    local fine, why = R:try_launch(student, lsz, lsz)
    if not fine then error(("%s: the driver refused it in groups of %d: %s"):format(student_label, lsz, why)) end
  end

  -- Times kernel kk at stride s on n work-items, then checks every element:
  -- odata[i*s] = idata[i*s]; every other one still poison. `who` prefixes the
  -- names (the student's kernel); nil for strideCopy.
  local function measure(kk, s, n, who)
    local pre = who and (who .. ": ") or ""
    q:fill(dout, POISON, { type = "float" })
    q:finish()
    kk:args(dout, din, s)
    local t = R:time(function() return q:launch(kk, n, lsz) end, { label = ("%sstride %d"):format(pre, s) })
    if who then R:check_student(("%s, stride %d"):format(who, s)) end
    got:fill(0)
    q:read(dout, got)
    if s == 2 and not who then R:corrupt_one(got, (n // 2) * s) end
    local g, e = cl.array("float", n), cl.array("float", n)
    g:gather(got, 0, s)
    e:gather(src, 0, s)
    R:verify(("%sodata[i*%d] (stride %d)"):format(pre, s, s), g, e, { exact = true })
    for j = 1, s - 1 do
      g:gather(got, j, s)
      R:verify(("%sodata[i*%d+%d] untouched (stride %d)"):format(pre, s, j, s), g, poison:slice(0, n),
        { exact = true })
    end
    local tail = m - n * s
    if tail > 0 then
      R:verify(("%sodata[%d..%d) untouched (stride %d)"):format(pre, n * s, m, s), got:slice(n * s, tail),
        poison:slice(0, tail), { exact = true })
    end
    return t
  end

  local results = {}
  for _, s in ipairs(strides(R.args.max_stride)) do
    local n = m // s // grain * grain
    if n == 0 then break end
    results[#results + 1] = { stride = s, n = n, t = measure(k, s, n), st = student and measure(student, s, n, student_label) }
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
  if student then -- assignment mode: the student's kernel at each stride
    t.columns[#t.columns + 1] = R:bw_column("student")
    t.columns[#t.columns + 1] = { name = "student speed-up", unit = "x", format = "%.2f" }
  end
  local p = plot.new{ title = "strideCopy: effective bandwidth (Figure 3.9)",
    x = { name = "stride", unit = "floats", log2 = true }, y = { name = "effective bandwidth", unit = R.bw_unit } }
  for _, r in ipairs(results) do
    local moved = 2 * 4 * r.n
    local bw = R:bw(moved, r.t.median)
    local fetched = math.max(4, math.min(4 * r.stride, sector)) -- bytes fetched per useful float
    t:add{ stride = r.stride, ["work-items"] = r.n, bandwidth = bw, min = R:bw(moved, r.t.max),
      max = R:bw(moved, r.t.min), time = r.t.median / 1e3, ["vs stride 1"] = 100 * bw / base,
      model = base * 4 / fetched,
      student = r.st and R:bw(moved, r.st.median), ["student speed-up"] = r.st and r.t.median / r.st.median }
    p:add("measured", r.stride, bw)
    if r.st then p:add(student_label, r.stride, R:bw(moved, r.st.median)) end
    p:add(("model (%d-byte sectors)"):format(sector), r.stride, base * 4 / fetched)
  end
  t:note(("n = SIZE/4/stride work-items%s; bytes = 2 x 4n (useful bytes only); median of %d, min/max bandwidth "
    .. "from the slowest/fastest run"):format(lsz and (" (a multiple of the local size " .. lsz .. ")")
    or " (local size chosen by the driver)", R.reps))
  t:note(("model: stride 1's bandwidth x 4 / min(4 x stride, %d): every useful float costs a whole %d-byte "
    .. "sector once the stride spans one (--sector)"):format(sector, sector))
  t:note("every output element checked: odata[i*stride] bit for bit against the input (gathered), every other "
    .. "element still poison")
  if student then
    t:note(("student: the bandwidth of %s at each stride, same bytes; student speed-up: strideCopy's time / "
      .. "its time"):format(student_label))
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
    for _, v in ipairs{ { "strideCopy (Listing 3.6)", "t" }, { student_label, "st" } } do
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
