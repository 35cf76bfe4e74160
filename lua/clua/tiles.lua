--- clua.tiles: square work-group tiles of the local-memory experiments
-- (matmul, aat, transpose): the tile a device suggests, whether the driver
-- runs a kernel family in tile x tile groups, and a matrix side that whole
-- tiles divide. A kernel's reported work_group_size is no guide (NVIDIA's
-- driver reports 256 and runs 1024), so a tile is tried once on the device.
-- @module clua.tiles
local cl = require("cl")

local tiles = {}

--- The tile of the Best Practices Guide's tables: 16.
tiles.GUIDE = 16

--- The device's tile: the tile option (R.args.tile), else the device's warp
-- width, else `default`.
-- @tab R the recipe
-- @int[opt=16] default
-- @treturn int the tile
-- @raise `tile 64: a 64 x 64 work-group exceeds the device's 1024 work-items`
function tiles.device_tile(R, default)
  local info = R.device.info
  local T = R.args.tile or info.warp_size or default or tiles.GUIDE
  if T < 1 or T * T > info.max_work_group_size then
    error(("tile %d: a %d x %d work-group exceeds the device's %d work-items"):format(T, T, T,
      info.max_work_group_size))
  end
  return T
end

--- Tries tile `T`: builds `file` with `-D<define>=T` and launches each kernel
-- of `names` once in T x T groups on T x T work-items, after
-- `args(kernel, name, bufs, T)` set its arguments (`bufs`: three buffers of
-- T x T floats).
-- @tab R the recipe
-- @string file the kernels' file
-- @string define the tile's define ("TILE_DIM", "TILE")
-- @int T the tile
-- @tab names the kernels
-- @func args sets a kernel's arguments
-- @treturn[1] cl.program the program, when the driver ran every kernel
-- @return[2] nil
-- @treturn[2] string why not: `the driver refused NAME in 32 x 32 groups: ...`
function tiles.try(R, file, define, T, names, args)
  local ok, prog = pcall(R.program, R, file, { [define] = T })
  if not ok then return nil, ("the build failed: %s"):format(tostring(prog):match("[^\n]*")) end
  local bufs, why = {}, nil
  -- zeros: a trial launch reads defined values (a checking device reports undefined ones)
  for i = 1, 3 do bufs[i] = R.ctx:buffer(cl.array("float", T * T)) end
  for _, name in ipairs(names) do
    local k = prog:kernel(name)
    args(k, name, bufs, T)
    local fine, refusal = R:try_launch(k, { T, T }, { T, T })
    if not fine then why = ("the driver refused %s in %d x %d groups: %s"):format(name, T, T, refusal); break end
  end
  for _, b in ipairs(bufs) do b:release() end
  if why then return nil, why end
  return prog
end

--- The tiles of a guide's table (built with -DTILE_DIM): the guide's 16,
-- which must run, and the device's tile (`tiles.device_tile`) when it differs
-- and runs, else a note that it is left out.
-- @tab R the recipe
-- @string file the kernels' file
-- @tab names the kernels, as for `tiles.try`
-- @func args as for `tiles.try`
-- @treturn tab the tiles, the guide's first
-- @treturn tab the notes of a tile left out
-- @treturn int the device's tile, or the guide's when it was left out
-- @treturn int the least common multiple of the tiles
function tiles.choose(R, file, names, args)
  local devtile, list, skipped = tiles.device_tile(R), { tiles.GUIDE }, {}
  local ok, why = tiles.try(R, file, "TILE_DIM", tiles.GUIDE, names, args)
  if not ok then error(("tile %d: %s"):format(tiles.GUIDE, why)) end
  if devtile ~= tiles.GUIDE then
    ok, why = tiles.try(R, file, "TILE_DIM", devtile, names, args)
    if ok then list[2] = devtile
    else skipped[1], devtile = ("tile %d left out: %s"):format(devtile, why), tiles.GUIDE end
  end
  local align = list[1]
  for _, t in ipairs(list) do
    local a, b = align, t
    while b ~= 0 do a, b = b, a % b end
    align = align * t // a
  end
  return list, skipped, devtile, align
end

--- A guide table's closing notes: what the check of each tile compared
-- ("verified: ..."), each tile left out, and in assignment mode (--kernel)
-- the student's kernel ranked by time among the kernels of its tile.
-- @tab R the recipe
-- @tab t the table (its columns "time", "tile" and "kernel")
-- @tab tl the tiles (tiles.choose's first result)
-- @tab how what each check compared
-- @tab skipped the notes of the tiles left out (tiles.choose's second result)
function tiles.notes(R, t, tl, how, skipped)
  for _, h in ipairs(how) do t:note("verified: " .. h) end
  for _, h in ipairs(skipped) do t:note(h) end
  if R.args.kernel then R:rank_within(t, "time", "tile", tl, "kernel") end
end

--- The height of a float matrix `aspect` times as wide as high, of about
-- `--size` bytes (default `default` on a GPU, 16 MiB elsewhere) within one
-- buffer and a quarter of the device's memory, rounded down to a multiple of
-- `align`.
-- @tab R the recipe
-- @int align what the height is a multiple of
-- @int[opt=64 MiB] default the bytes on a GPU
-- @int[opt=1] aspect width / height
-- @treturn int the height
-- @treturn int the bytes asked for
-- @raise `--size 1024 is too small: the matrix must be at least 32 x 32 floats`
function tiles.side(R, align, default, aspect)
  local info = R.device.info
  aspect = aspect or 1
  local bytes = math.tointeger(R.size or (info.type == "GPU" and (default or 64 * 2^20) or 16 * 2^20))
  bytes = math.min(bytes, info.max_mem_alloc_size, info.global_mem_size // 4)
  local side = math.floor(math.sqrt(bytes / 4 / aspect)) // align * align
  if side < align then
    error(("--size %d is too small: the matrix must be at least %d x %d floats"):format(bytes, align, align * aspect))
  end
  return side, bytes
end

return tiles
