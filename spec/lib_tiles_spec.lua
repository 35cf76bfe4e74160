-- clua.tiles: the device's tile, a tile tried on the device (a refusal named),
-- the guide's tile with the device's, and a matrix side of whole tiles.
package.path = "lua/?.lua;" .. package.path
local tiles = require("clua.tiles")
local recipe = require("clua.recipe")

-- A recipe's R as far as the sizing reads it.
local function fake(info, args, size)
  return { device = { info = info }, args = args or {}, size = size }
end
local GPU = { type = "GPU", warp_size = 32, max_work_group_size = 1024, max_mem_alloc_size = 2 ^ 34,
  global_mem_size = 2 ^ 36 }

describe("clua.tiles", function()
  it("takes --tile, else the warp width, and refuses a work-group past the device's", function()
    assert.are.equal(32, tiles.device_tile(fake(GPU)))
    assert.are.equal(8, tiles.device_tile(fake(GPU, { tile = 8 })))
    local cpu = { max_work_group_size = 4096 }
    assert.are.equal(16, tiles.device_tile(fake(cpu)))
    local ok, err = pcall(tiles.device_tile, fake(GPU, { tile = 64 }))
    assert.is_false(ok)
    assert.matches("tile 64: a 64 x 64 work-group exceeds the device's 1024 work-items", err, 1, true)
  end)

  it("sizes a side of whole tiles from --size, and says when --size is too small", function()
    assert.are.equal(4096, tiles.side(fake(GPU), 32)) -- 64 MiB of floats
    assert.are.equal(96, tiles.side(fake(GPU, nil, 4 * 100 * 100), 48))
    assert.are.equal(64, tiles.side(fake(GPU, nil, 4 * 128 * 64), 16, nil, 2)) -- twice as wide as high
    local ok, err = pcall(tiles.side, fake(GPU, nil, 1024), 32)
    assert.is_false(ok)
    assert.matches("--size 1024 is too small: the matrix must be at least 32 x 32 floats", err, 1, true)
  end)

  it("keeps the guide's tile and the device's when both run, with their common multiple", function()
    local try = tiles.try
    finally(function() tiles.try = try end)
    tiles.try = function(_, _, _, T) if T == 64 then return nil, "refused" end return {} end
    local list, skipped, dev, align = tiles.choose(fake(GPU, { tile = 24 }), "k.cl", {}, nil)
    assert.are.same({ 16, 24 }, list)
    assert.are.same({}, skipped)
    assert.are.equal(24, dev)
    assert.are.equal(48, align)
    list, skipped, dev = tiles.choose(fake({ max_work_group_size = 4096 }, { tile = 64 }), "k.cl", {}, nil)
    assert.are.same({ 16 }, list)
    assert.are.same({ "tile 64 left out: refused" }, skipped)
    assert.are.equal(16, dev)
  end)

  it("tries a tile's kernels on the device and names the one the driver refuses", function()
    local path = os.tmpname() .. ".cl"
    local f = assert(io.open(path, "w"))
    f:write([[
__kernel void fill(__global float *a, __global float *c, int t) {
  c[get_global_id(1) * t + get_global_id(0)] = TILE;
}
__kernel void big(__global float *a, __global float *c, int t) __attribute__((reqd_work_group_size(1, 1, 1)));
__kernel void big(__global float *a, __global float *c, int t) { }
]])
    f:close()
    finally(function() os.remove(path) end)
    local R = recipe.new{ name = "tiles", args = {} }
    local set = function(k, _, b, T) k:args(b[1], b[3], T) end
    assert.truthy(tiles.try(R, path, "TILE", 2, { "fill" }, set))
    local prog, why = tiles.try(R, path, "TILE", 2, { "fill", "big" }, set)
    assert.is_nil(prog)
    assert.matches("the driver refused big in 2 x 2 groups: CL_INVALID_WORK_GROUP_SIZE", why, 1, true)
    prog, why = tiles.try(R, path, "NOT_TILE", 2, { "fill" }, set)
    assert.is_nil(prog)
    assert.matches("^the build failed: ", why)
  end)
end)
