-- matmul: local (shared) memory in matrix multiplication, C = AB.
-- NVIDIA OpenCL Best Practices Guide 3.2.2.2 (Listings 3.7-3.9, Table 3.2):
-- A is M x TILE_DIM and B is TILE_DIM x N, so in tiles A is a column, B a row
-- and C their outer product; simpleMultiply reads everything from global
-- memory, coalescedMultiply stages the tile of A in local memory,
-- sharedABMultiply the tiles of A and B. Then the OpenCL slides' (seed 002)
-- general N x N multiply, naive and tiled, with GFLOP/s beside the bandwidth.
local cl = require("cl")
local recipe = require("clua.recipe")
local matrix = require("clua.matrix")
local tiles = require("clua.tiles")

local R = recipe.new{
  name = "matmul",
  description = [[C = AB: the guide's Table 3.2 (A M x TILE_DIM, B TILE_DIM x N; global, A tile, A and B tiles in
    local memory) and the slides' N x N multiply, naive and tiled.]],
  seed = [[NVIDIA OpenCL Best Practices Guide 3.2.2.2, Listings 3.7-3.9, Table 3.2; OpenCL slides (seed 002),
    "Multiplication of Matrices"]],
  quick_size = "256KiB", check_size = "16KiB",
  student = [[a kernel with the arguments of the guide's kernels (__global const float *a, __global const float *b,
    __global float *c, int N), built with -DTILE_DIM=T and launched as they are, once for each tile T of the
    guide's table (16, and the warp width or --tile when it differs): on {N, M} work-items in {T, T} groups, M and
    N multiples of T (no rounding: every work-item is inside C). A is M x T, B is T x N, C is M x N (M = N, about
    --size bytes), all row-major floats; work-item (x, y) = (get_global_id(0), get_global_id(1)) must write
    c[y * N + x] = sum over i < T of a[y * T + i] * b[i * N + x], and nothing outside c (a and b must stay unchanged); then
    launched once more on {N, M - T} work-items (a tile row short), where it owns c[0 .. (M - T) N) and must write
    no other element of c. Checked against the CPU product (double, tolerance max(1e-5, 8 sqrt(T) 2^-24)) before
    any figure: every element up to 2^24 multiply-adds, else sampled rows and every row and column sum; ranked by
    time among the kernels of its tile.]],
  student_name = "matmul",
  options = function(p)
    p:int("--tile", "Tile of the warp-width rows and of the tiled N x N multiply (default: the warp width "
      .. "on NVIDIA, else 16; the guide's rows always use 16).", nil, "T")
    p:int("--n", "Side of the N x N multiply (default 4096 on a GPU, 512 on a CPU, 128 with --quick, 32 with --check-size).")
  end,
}

-- Table 3.2, effective bandwidth in GB/s on a GeForce GTX 280 (the GTX 8800's in a note).
local GUIDE = { simpleMultiply = 8.8, coalescedMultiply = 14.3, sharedABMultiply = 29.7 }
local KERNELS = { "simpleMultiply", "coalescedMultiply", "sharedABMultiply" }

R:main(function(R, dev)
  local info, q = dev.info, R.queue

  -- Tiles: the guide's 16, and the device's warp width (or --tile) when the
  -- driver runs every kernel built for it in tile x tile groups.
  local tried = { "simpleMultiply", "coalescedMultiply", "sharedABMultiply", "multiplyNaive", "multiplyTiled" }
  local tl, skipped, devtile, align = tiles.choose(R, "matmul.cl", tried,
    function(k, _, b, T) k:args(b[1], b[2], b[3], T) end)

  -- Sizes: C of the guide's product is M x N with M = N (--size: C's bytes).
  local side = tiles.side(R, align)
  local nn = R.args.n or (R.check_size and 32 or R.quick and 128 or info.type == "GPU" and 4096 or 512)
  nn = math.min(nn, math.floor(math.sqrt(math.min(info.max_mem_alloc_size, info.global_mem_size // 4) / 4)))
    // align * align
  if nn < align then error(("--n must be at least %d"):format(align)) end

  local t = R:table{
    title = ("C = AB, A %d x T, B T x %d (the guide's Table 3.2)"):format(side, side),
    id = "table_3_2",
    columns = {
      { name = "tile", key = true }, { name = "kernel", key = true }, R:time_columns("us", { compare = false }),
      R:bw_column("effective"), { name = "GFLOP/s", format = "%.1f" }, { name = "speedup", unit = "x", format = "%.2f" },
      { name = "GTX 280", unit = "GB/s", format = "%.1f" } },
  }
  local t2 = R:table{
    title = ("C = AB, N x N with N = %d (the slides' naive and tiled multiply)"):format(nn),
    id = "nxn",
    columns = {
      { name = "variant", key = true }, { name = "tile", key = true }, R:time_columns("ms", { compare = false }),
      { name = "GFLOP/s", format = "%.1f", compare = true }, R:bw_column("effective", { compare = false }),
      { name = "speedup", unit = "x", format = "%.2f" } },
  }

  -- One measurement: the kernel owns the whole of C (M x N; the student's
  -- second launch a tile row short owns its first rows), A and B unchanged;
  -- A and B read once, C written once.
  local function measure(label, k, T, dA, dB, dC, ref, once)
    local M, N, K = ref.m, ref.n, ref.k
    return matrix.measure(R, { label = label, reads = { dA, dB }, out = dC, ref = ref, once = once,
      bytes = 4 * (M * K + K * N + M * N), run = function() return q:launch(k, { N, M }, { T, T }) end })
  end

  -- Part 1, the guide's Table 3.2, once per tile; in assignment mode
  -- (--kernel FILE) the student's kernel, built for the tile, last. Speedup
  -- against simpleMultiply of the same tile.
  local how = {}
  for ti, T in ipairs(tl) do
    local prog = R:program("matmul.cl", { TILE_DIM = T })
    local M, N, K = side, side, T
    local A, B = cl.array("float", M * K):random(10 + ti), cl.array("float", K * N):random(20 + ti)
    local dA, dB, dC = R:input("a", A), R:input("b", B), R:output("c", "float", M * N, "write_only")
    local ref = matrix.product_reference(A, B, M, K, N, 30 + ti)
    how[#how + 1] = ("tile %d: %s"):format(T, ref.how)
    local variants, base = {}, nil
    for _, name in ipairs(KERNELS) do variants[#variants + 1] = { label = name, kernel = prog:kernel(name) } end
    for _, v in ipairs(R:with_student(variants, { TILE_DIM = T })) do
      local k = v.kernel:args(dA, dB, dC, N)
      local r = measure(("%s (tile %d)"):format(v.label, T), k, T, dA, dB, dC, ref)
      base = base or r.median
      R:add_row(t, r, { tile = T, kernel = v.label, effective = r.bw, ["GFLOP/s"] = r.ops / r.median,
        speedup = base / r.median, ["GTX 280"] = T == tiles.GUIDE and GUIDE[v.label] or nil })
      if v.student and M > T then
        measure(("%s, tile %d, a tile row short"):format(v.label, T), k, T, dA, dB, dC,
          matrix.product_reference(A:slice(0, (M - T) * K), B, M - T, K, N, 50 + ti), true)
      end
    end
  end

  -- Part 2, the slides' N x N multiply: naive, then tiled with each tile.
  local N = nn
  local A, B = cl.array("float", N * N):random(41), cl.array("float", N * N):random(42)
  local dA, dB, dC = R:input("a (N x N)", A), R:input("b (N x N)", B), R:output("c (N x N)", "float", N * N)
  local ref = matrix.product_reference(A, B, N, N, N, 43)
  how[#how + 1] = ("N x N: %s"):format(ref.how)
  local variants, naive = { { "naive", devtile, "multiplyNaive" } }, nil
  for i = #tl, 1, -1 do variants[#variants + 1] = { "tiled", tl[i], "multiplyTiled" } end
  for _, v in ipairs(variants) do
    local k = R:kernel("matmul.cl", v[3], { TILE_DIM = v[2] }):args(dA, dB, dC, N)
    local r = measure(("N x N %s (tile %d)"):format(v[1], v[2]), k, v[2], dA, dB, dC, ref)
    naive = naive or r.median
    R:add_row(t2, r, { variant = v[1], tile = v[2], ["GFLOP/s"] = r.ops / r.median, effective = r.bw,
      speedup = naive / r.median })
  end

  -- Everything verified: the figures.
  t:note("effective bandwidth: (M*T + T*N + M*N) * 4 bytes (A and B read once, C written once) / time, as in the guide")
  t:note("GTX 280: the guide's Table 3.2 with TILE_DIM 16 (GTX 8800: 0.7, 8.2, 15.7 GB/s); speedup against "
    .. "simpleMultiply of the same tile")
  t:note("coalescedMultiply has a barrier after loading the A tile, which the guide's warp-synchronous listing omits")
  tiles.notes(R, t, tl, how, skipped)
  t2:note("GFLOP/s: 2 N^3 / time; effective bandwidth: 3 N^2 * 4 bytes (A, B read once, C written once) / time")
  t2:note("tile: the work-group is tile x tile; the naive kernel uses the device tile's shape")
  t2:note("verified: " .. how[#how])
  for _, h in ipairs(skipped) do t2:note(h) end
  R:emit(t)
  R:emit(t2)
end)
