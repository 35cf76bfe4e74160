-- transpose: local memory to coalesce global memory, and padding against bank
-- conflicts. The OpenCL optimisation slides (seed 002), "Using local memory to
-- optimize global memory performance" and "Local memory banks": a naive
-- transpose (coalesced reads, strided writes), one through a local tile (both
-- sides coalesced, the tile read down its columns: bank conflicts), and one
-- through a tile padded by a word per row; each against a plain copy of the
-- same matrix, the ceiling.
local cl = require "cl"
local recipe = require "clua.recipe"

local R = recipe.new{
  name = "transpose",
  description = "Matrix transpose: naive, through a local tile, through a padded local tile; each against a "
    .. "plain copy of the same matrix.",
  seed = "OpenCL slides (seed 002), \"Using local memory to optimize global memory performance\", "
    .. "\"Local memory banks\"",
  quick_size = "256KiB", quick_reps = 3,
  student = "a kernel with the arguments of transposeNaive (__global float *c, __global const float *a, "
    .. "int width, int height), or of transposeLocal with a fifth (__local float *tile, TILE * (TILE + 1) "
    .. "floats); built with -DTILE=T and launched on {width, height} work-items in {T, T} groups, it must "
    .. "write the width x height transpose of the height x width matrix a: c[y + x * height] = "
    .. "a[x + y * width], and nothing else of c (a must stay unchanged); then launched once more on "
    .. "{width - T, height} work-items (a tile column short), where it owns c[0 .. (width - T) height) and must "
    .. "write no other element of c. Checked exactly, element by element.",
  student_name = "transpose",
  options = function(p)
    p:option("--tile", "Side of the square work-group and tile (default: the warp width on NVIDIA, else 16).")
      :argname("T"):convert(math.tointeger)
    p:option("--aspect", "Width / height of the matrix.", "1"):argname("K"):convert(math.tointeger)
    p:option("--banks", "Local-memory banks of the conflict model (32-bit words), each request serving as "
      .. "many work-items (16 for the guide's compute capability 1.x).", "32")
      :argname("B"):convert(math.tointeger)
  end,
}

-- The bank conflict of the tile's column read tile[ty + tx * pitch], by the
-- model: `banks` banks of 32-bit words (word w in bank w % banks) serve
-- requests of `banks` consecutive work-items (a warp of 32 on NVIDIA since
-- Fermi, the guide's half-warp of 16), tx fastest, which read words
-- tx * pitch + ty; the degree is the most distinct words one bank must give.
local function conflict_degree(T, pitch, banks)
  local worst = 1
  for first = 0, T * T - 1, banks do
    local words, per = {}, {}
    for lid = first, math.min(first + banks, T * T) - 1 do words[(lid % T) * pitch + lid // T] = true end
    for w in pairs(words) do
      local b = w % banks
      per[b] = (per[b] or 0) + 1
      if per[b] > worst then worst = per[b] end
    end
  end
  return worst
end

R:main(function(R, dev)
  local info = dev.info
  local q = R.queue
  local T = R.args.tile or info.warp_size or 16
  if T < 1 or T * T > info.max_work_group_size then
    error(("tile %d: a %d x %d work-group exceeds the device's %d work-items"):format(T, T, T,
      info.max_work_group_size))
  end
  -- The kernels, built for T x T groups and each tried once on a T x T
  -- matrix; where the driver refuses one (or the build), the tile is halved.
  -- (The kernel's reported work_group_size is no guide: NVIDIA's driver
  -- reports 256 and runs 1024.)
  local KERNELS = { "copy2d", "transposeNaive", "transposeLocal", "transposeLocalPadded" }
  local LOCAL = { transposeLocal = 0, transposeLocalPadded = 1 } -- tile pitch T + this
  local prog, shrunk
  while true do
    local ok, p = pcall(R.program, R, "transpose.cl", { TILE = T })
    local why
    if not ok then why = ("the build failed: %s"):format(tostring(p):match("[^\n]*"))
    else
      local a <close> = R.ctx:buffer(4 * T * T)
      local c <close> = R.ctx:buffer(4 * T * T)
      for _, name in ipairs(KERNELS) do
        local k = p:kernel(name)
        if LOCAL[name] then k:args(c, a, T, T, cl["local"](4 * T * (T + LOCAL[name]))) else k:args(c, a, T, T) end
        local fine, refusal = R:try_launch(k, { T, T }, { T, T })
        if not fine then why = ("the driver refused %s in %d x %d groups: %s"):format(name, T, T, refusal); break end
      end
    end
    if not why then prog = p; break end
    if T == 1 or R.args.tile then error(("tile %d: %s"):format(T, why)) end
    shrunk = ("tile %d left out: %s"):format(T, why)
    T = T // 2
  end
  local aspect = math.max(1, R.args.aspect)

  -- The matrix: height x width floats, about --size bytes.
  local bytes = math.tointeger(R.size or (info.type == "GPU" and 256 * 2^20 or 16 * 2^20))
  bytes = math.min(bytes, info.max_mem_alloc_size, info.global_mem_size // 4)
  local height = math.floor(math.sqrt(bytes / 4 / aspect)) // T * T
  local width = aspect * height
  if height < T then error(("--size %d is too small for %d x %d tiles"):format(bytes, T, T)) end
  local n = width * height
  bytes = 4 * n

  local A = cl.array("float", n):random(7, -1, 1)
  local At = cl.array("float", n):transpose(A, height, width)
  local dA, dC = R:input("a", A), R:output("c", "float", n, "write_only")
  local banks = R.args.banks

  local variants = {
    { name = "copy", kernel = prog:kernel("copy2d"), ref = A },
    { name = "naive", kernel = prog:kernel("transposeNaive"), ref = At },
    { name = "local tile", kernel = prog:kernel("transposeLocal"), ref = At, tile = T * T, pitch = T },
    { name = "padded local tile", kernel = prog:kernel("transposeLocalPadded"), ref = At, tile = T * (T + 1),
      pitch = T + 1 },
  }
  -- One measurement per kernel: it owns the whole of c (the student's second
  -- launch, a tile column short, its first width - T rows), a unchanged; the
  -- matrix read once and written once, no arithmetic (a roofline point at 0).
  local function measure(label, k, w, ref, once)
    return R:measure{ label = label, reads = { dA }, bytes = 2 * bytes, ops = 0, roofline = not once,
      reps = once and 1 or nil, warmup = once and 0 or nil,
      outputs = { { dC, owns = { 0, w * height }, expect = ref, exact = true } },
      run = function() return q:launch(k, { w, height }, { T, T }) end }
  end
  -- Assignment mode (--kernel FILE): the student's kernel, last, under the naive transpose's contract.
  variants = R:with_student(variants, { TILE = T }, variants[2])
  for _, v in ipairs(variants) do
    local k = v.kernel
    if v.student then v.name, v.tile = v.label, k.nargs >= 5 and T * (T + 1) or nil end
    if v.tile then k:args(dC, dA, width, height, cl["local"](4 * v.tile)) else k:args(dC, dA, width, height) end
    if v.student then
      local fine, why = R:try_launch(k, { width, height }, { T, T })
      if not fine then error(("%s: the driver refused it in %d x %d groups: %s"):format(v.name, T, T, why)) end
    end
    v.r = measure(v.name, k, width, v.ref)
    if v.student and width > T then
      measure(v.name .. ", a tile column short", k, width - T, At:slice(0, (width - T) * height), true)
    end
    v.conflict = v.pitch and conflict_degree(T, v.pitch, banks)
  end

  -- Everything verified: the figures.
  local t = R:table{
    title = ("Transpose of a %d x %d float matrix (%d x %d tiles)"):format(height, width, T, T),
    id = "transpose",
    columns = {
      { name = "variant", key = true }, R:time_columns("us", { compare = false }),
      R:bw_column("bandwidth"),
      { name = "of copy", unit = "%", format = "%.1f" },
      { name = "tile read", unit = "n-way", format = "%d" },
    },
  }
  local copy = variants[1].r.median
  for _, v in ipairs(variants) do
    R:add_row(t, v.r, { variant = v.name, bandwidth = v.r.bw, ["of copy"] = 100 * copy / v.r.median,
      ["tile read"] = v.conflict })
  end
  t:note(("bandwidth: 2 x %d bytes (the matrix read once, written once) / time"):format(bytes))
  t:note(("tile read: the bank conflict of the tile's column read by the model: %d banks of 32-bit words serving "
    .. "requests of %d work-items (--banks 16: the guide's half-warps)"):format(banks, banks))
  t:note("verified: every element, exactly, against array:transpose on the CPU (the copy against the input)")
  if shrunk then t:note(shrunk) end
  if R.args.kernel then R:rank(t, "time", function(row) return row.variant ~= "copy" end) end
  R:emit(t)
end)
