-- aat: local (shared) memory against strided global reads and bank conflicts, C = AA^T.
-- NVIDIA OpenCL Best Practices Guide 3.2.2.3 (Listings 3.10-3.11, Table 3.3):
-- A is M x TILE_DIM; simpleMultiply reads the second operand a[col*TILE_DIM+i]
-- with a stride of TILE_DIM floats between neighbouring work-items;
-- coalescedMultiply reads it coalesced into the columns of a local tile (a
-- TILE_DIM-way bank conflict on every write); the padded tile
-- [TILE_DIM][TILE_DIM+1] removes the conflicts.
local cl = require("cl")
local recipe = require("clua.recipe")
local matrix = require("clua.matrix")
local bankconflict = require("clua.bankconflict")
local tiles = require("clua.tiles")

local R = recipe.new{
  name = "aat",
  description = [[C = AA^T: the guide's Table 3.3 (strided global reads; a transposed local tile; the tile padded
    to TILE_DIM+1 columns).]],
  seed = "NVIDIA OpenCL Best Practices Guide 3.2.2.3, Listings 3.10-3.11, Table 3.3",
  quick_size = "256KiB", check_size = "16KiB",
  student = [[a kernel with the arguments of the guide's kernels (__global const float *a, __global float *c,
    int M), built with -DTILE_DIM=T and launched as they are, once for each tile T of the guide's table (16, and the
    warp width or --tile when it differs): on {M, M} work-items in {T, T} groups, M a multiple of T (no rounding:
    every work-item is inside C). A is M x T, C = A A^T is M x M (about --size bytes), both row-major floats;
    work-item (x, y) = (get_global_id(0), get_global_id(1)) must write c[y * M + x] = sum over i < T of
    a[y * T + i] * a[x * T + i], and nothing outside c (a must stay unchanged); then launched once more on {M, M - T}
    work-items (a tile row short), where it owns c[0 .. (M - T) M) and must write no other element of c. Checked
    against the CPU product (double, tolerance max(1e-5, 8 sqrt(T) 2^-24)) before any figure: every element up to
    2^24 multiply-adds, else sampled rows and every row and column sum; ranked by time among the kernels of its
    tile.]],
  student_name = "aat",
  options = function(p)
    p:int("--tile", "Tile of the warp-width rows (default: the warp width on NVIDIA, else 16; the guide's "
      .. "rows always use 16).", nil, "T")
    bankconflict.option(p)
  end,
}

-- Table 3.3, effective bandwidth in GB/s on a GeForce GTX 280 (the GTX 8800's in a note).
local GUIDE = { simpleMultiply = 1.1, coalescedMultiply = 24.8, coalescedMultiplyPadded = 30.3 }
-- each kernel, and the padding of its local tile's rows (none: no tile)
local KERNELS = { "simpleMultiply", "coalescedMultiply", "coalescedMultiplyPadded" }
local PAD = { coalescedMultiply = 0, coalescedMultiplyPadded = 1 }

R:main(function(R)
  local q, banks = R.queue, R.args.banks

  -- Tiles: the guide's 16, and the device's warp width (or --tile) when the
  -- driver runs every kernel built for it in tile x tile groups, tried once
  -- on a T x T product.
  local tl, skipped, _, align = tiles.choose(R, "aat.cl", KERNELS, function(k, _, b, T) k:args(b[1], b[3], T) end)
  local M = tiles.side(R, align) -- C is M x M (--size: C's bytes)
  local t = R:table{
    title = ("C = AA^T, A %d x T (the guide's Table 3.3)"):format(M),
    id = "table_3_3",
    columns = {
      { name = "tile", key = true }, { name = "kernel", key = true }, R:time_columns("us", { compare = false }),
      R:bw_column("effective"), { name = "speedup", unit = "x", format = "%.2f" },
      { name = "tile write", unit = "n-way", format = "%d" }, { name = "GTX 280", unit = "GB/s", format = "%.1f" } },
  }

  -- One measurement per kernel: it owns the whole of C (the student's second
  -- launch, a tile row short, its first M - T rows), A unchanged; A read
  -- once, C written once. Speedup against simpleMultiply of the same tile.
  local how = {}
  for ti, T in ipairs(tl) do
    local prog = R:program("aat.cl", { TILE_DIM = T })
    local A = cl.array("float", M * T):random(10 + ti)
    local At = cl.array("float", T * M):transpose(A, M, T)
    local dA, dC = R:input("a", A), R:output("c", "float", M * M, "write_only")
    local ref = matrix.product_reference(A, At, M, T, M, 30 + ti) -- C = A B with B = A^T
    how[#how + 1] = ("tile %d: %s"):format(T, ref.how)
    local function measure(label, k, r, once)
      return matrix.measure(R, { label = label, reads = { dA }, out = dC, ref = r, once = once,
        bytes = 4 * (M * T + M * M), run = function() return q:launch(k, { M, r.m }, { T, T }) end })
    end
    local variants, base = {}, nil
    for _, name in ipairs(KERNELS) do variants[#variants + 1] = { label = name, kernel = prog:kernel(name) } end
    -- Assignment mode (--kernel FILE): the student's kernel, built for this tile, last.
    for _, v in ipairs(R:with_student(variants, { TILE_DIM = T })) do
      local k = v.kernel:args(dA, dC, M)
      local r = measure(("%s (tile %d)"):format(v.label, T), k, ref)
      base = base or r.median
      R:add_row(t, r, { tile = T, kernel = v.label, effective = r.bw, speedup = base / r.median,
        ["tile write"] = PAD[v.label] and bankconflict.tile(T, T + PAD[v.label], banks),
        ["GTX 280"] = T == tiles.GUIDE and GUIDE[v.label] or nil })
      if v.student and M > T then
        measure(("%s, tile %d, a tile row short"):format(v.label, T), k,
          matrix.product_reference(A:slice(0, (M - T) * T), At, M - T, T, M, 50 + ti), true)
      end
    end
  end

  -- Everything verified: the figures.
  t:note("effective bandwidth: (M*T + M*M) * 4 bytes (A read once, C written once) / time")
  t:note(bankconflict.note("tile write: the bank conflict of transposedTile[x][y]", banks))
  t:note("GTX 280: the guide's Table 3.3 with TILE_DIM 16 (GTX 8800: 0.5, 13.2, 15.6 GB/s); speedup against "
    .. "simpleMultiply of the same tile")
  t:note("Listing 3.11's index get_group_id(0) * get_num_groups(0) is corrected to get_group_id(0) * get_local_size(0)")
  tiles.notes(R, t, tl, how, skipped)
  R:emit(t)
end)
