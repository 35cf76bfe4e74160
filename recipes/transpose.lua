-- transpose: local memory to coalesce global memory, and padding against bank
-- conflicts. The OpenCL optimisation slides (seed 002), "Using local memory to
-- optimize global memory performance" and "Local memory banks": a naive
-- transpose (coalesced reads, strided writes), one through a local tile (both
-- sides coalesced, the tile read down its columns: bank conflicts), and one
-- through a tile padded by a word per row; each against a plain copy of the
-- same matrix, the ceiling.
local cl = require("cl")
local recipe = require("clua.recipe")
local bankconflict = require("clua.bankconflict")
local tiles = require("clua.tiles")

local R = recipe.new{
  name = "transpose",
  description = [[Matrix transpose: naive, through a local tile, through a padded local tile; each against a plain
    copy of the same matrix.]],
  seed = [[OpenCL slides (seed 002), "Using local memory to optimize global memory performance", "Local memory
    banks"]],
  quick_size = "256KiB", check_size = "16KiB",
  student = [[a kernel with the arguments of transposeNaive (__global float *c, __global const float *a, int width,
    int height), or of transposeLocal with a fifth (__local float *tile, TILE * (TILE + 1) floats); built with
    -DTILE=T and launched on {width, height} work-items in {T, T} groups, it must write the width x height
    transpose of the height x width matrix a: c[y + x * height] = a[x + y * width], and nothing else of c (a must
    stay unchanged); then launched once more on {width - T, height} work-items (a tile column short), where it owns
    c[0 .. (width - T) height) and must write no other element of c. Checked exactly, element by element.]],
  student_name = "transpose",
  options = function(p)
    p:int("--tile", "Side of the square work-group and tile (default: the warp width on NVIDIA, else 16).", nil, "T")
    p:int("--aspect", "Width / height of the matrix.", "1", "K")
    bankconflict.option(p)
  end,
}

-- The kernels, and the padding of each local tile's rows (none: no tile).
local KERNELS = { "copy2d", "transposeNaive", "transposeLocal", "transposeLocalPadded" }
local PAD = { transposeLocal = 0, transposeLocalPadded = 1 }

R:main(function(R)
  local q, banks = R.queue, R.args.banks
  -- A kernel's arguments: c, a, width, height and, with a local tile of T
  -- rows padded by `pad`, the tile.
  local function set(k, pad, T, c, a, w, h)
    if pad then k:args(c, a, w, h, cl["local"](4 * T * (T + pad))) else k:args(c, a, w, h) end
  end
  local function args(k, name, b, t) set(k, PAD[name], t, b[3], b[1], t, t) end
  -- The kernels, built for T x T groups and each tried once on a T x T
  -- matrix; where the driver refuses one (or the build), the tile is halved.
  local T, shrunk = tiles.device_tile(R), nil
  local prog, why = tiles.try(R, "transpose.cl", "TILE", T, KERNELS, args)
  while not prog do
    if T == 1 or R.args.tile then error(("tile %d: %s"):format(T, why)) end
    shrunk, T = ("tile %d left out: %s"):format(T, why), T // 2
    prog, why = tiles.try(R, "transpose.cl", "TILE", T, KERNELS, args)
  end

  -- The matrix: height x width floats, about --size bytes.
  local aspect = math.max(1, R.args.aspect)
  local height = tiles.side(R, T, 256 * 2^20, aspect)
  local width = aspect * height
  local n = width * height
  local bytes = 4 * n
  local A = cl.array("float", n):random(7, -1, 1)
  local At = cl.array("float", n):transpose(A, height, width)
  local dA, dC = R:input("a", A), R:output("c", "float", n, "write_only")

  -- One measurement per kernel: it owns the whole of c (the student's second
  -- launch, a tile column short, its first width - T rows), a unchanged; the
  -- matrix read once and written once, no arithmetic (a roofline point at 0).
  local function measure(label, k, w, ref, once)
    return R:measure{ label = label, reads = { dA }, bytes = 2 * bytes, ops = 0, roofline = not once,
      reps = once and 1 or nil, warmup = once and 0 or nil,
      outputs = { { dC, owns = { 0, w * height }, expect = ref, exact = true } },
      run = function() return q:launch(k, { w, height }, { T, T }) end }
  end
  local t = R:table{
    title = ("Transpose of a %d x %d float matrix (%d x %d tiles)"):format(height, width, T, T),
    id = "transpose",
    columns = {
      { name = "variant", key = true }, R:time_columns("us", { compare = false }),
      R:bw_column("bandwidth"), { name = "of copy", unit = "%", format = "%.1f" },
      { name = "tile read", unit = "n-way", format = "%d" } },
  }
  local variants = { { label = "copy", k = "copy2d", ref = A }, { label = "naive", k = "transposeNaive", ref = At },
    { label = "local tile", k = "transposeLocal", ref = At }, { label = "padded local tile", k = "transposeLocalPadded", ref = At } }
  -- Assignment mode (--kernel FILE): the student's kernel, last, under the
  -- naive transpose's contract (with transposeLocal's padded tile when it
  -- takes a fifth argument).
  local copy
  for _, v in ipairs(R:with_student(variants, { TILE = T }, variants[2])) do
    local k, pad = v.kernel or prog:kernel(v.k), PAD[v.k]
    if v.student and k.nargs >= 5 then pad = 1 end
    set(k, pad, T, dC, dA, width, height)
    local r = measure(v.label, k, width, v.ref)
    if v.student and width > T then
      measure(v.label .. ", a tile column short", k, width - T, At:slice(0, (width - T) * height), true)
    end
    copy = copy or r.median
    R:add_row(t, r, { variant = v.label, bandwidth = r.bw, ["of copy"] = 100 * copy / r.median,
      ["tile read"] = not v.student and pad and bankconflict.tile(T, T + pad, banks) or nil })
  end

  -- Everything verified: the figures.
  t:note(("bandwidth: 2 x %d bytes (the matrix read once, written once) / time"):format(bytes))
  t:note(bankconflict.note("tile read: the bank conflict of the tile's column read", banks))
  t:note("verified: every element, exactly, against array:transpose on the CPU (the copy against the input)")
  if shrunk then t:note(shrunk) end
  if R.args.kernel then R:rank(t, "time", function(row) return row.variant ~= "copy" end) end
  R:emit(t)
end)
