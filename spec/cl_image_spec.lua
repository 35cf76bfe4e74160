-- cl images and samplers: ctx:image2d, ctx:sampler, q:write_image/read_image,
-- kernel arguments, release and errors. Runs on the default device; skips
-- (pending) where it has no image support, but checks the error then.
local cl = require("cl")

local dev = cl.device()
local has_images = dev.info.image_support

local SRC = [[
__kernel void fetch(__read_only image2d_t im, sampler_t s, __global float *out, float dx, float dy) {
  int x = get_global_id(0), y = get_global_id(1), w = get_global_size(0);
  out[y * w + x] = read_imagef(im, s, (float2)(x + dx, y + dy)).x;
}
__kernel void fetch4(__read_only image2d_t im, __global float4 *out) {
  const sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_CLAMP_TO_EDGE | CLK_FILTER_NEAREST;
  int x = get_global_id(0), y = get_global_id(1), w = get_global_size(0);
  out[y * w + x] = read_imagef(im, s, (int2)(x, y));
}
__kernel void fetchu(__read_only image2d_t im, __global uint4 *out) {
  int x = get_global_id(0), y = get_global_id(1), w = get_global_size(0);
  out[y * w + x] = read_imageui(im, (int2)(x, y));
}
__kernel void plain(__global float *out) { out[get_global_id(0)] = 1.0f; }
]]

if not has_images then
  describe("cl images on a device without them", function()
    it("raises a clear error", function()
      local ctx = cl.context(dev)
      local ok, err = pcall(ctx.image2d, ctx, { width = 4, height = 4 })
      assert.is_false(ok)
      assert.matches("images are not supported on", err)
    end)
  end)
  return
end

describe("cl images", function()
  local ctx, q, prog
  setup(function()
    ctx = cl.context(dev)
    q = ctx:queue()
    prog = ctx:program(SRC, "image_spec.cl"):build()
  end)

  it("creates an image with its fields and tostring", function()
    local img = ctx:image2d{ width = 40, height = 30, format = "float4", flags = "read_only" }
    assert.equal(40, img.width)
    assert.equal(30, img.height)
    assert.equal("float4", img.format)
    assert.equal(16, img.pixel_size)
    assert.equal(40 * 30 * 16, img.size)
    assert.equal("read_only", img.flags)
    assert.equal(ctx, img.context)
    assert.matches("^cl.image: 40 x 30 float4, read_only", tostring(img))
    img:release()
    assert.equal("cl.image (released)", tostring(img))
  end)

  it("round-trips pixels, a sub-rectangle and a pitched host array", function()
    local w, h = 37, 23
    local img = ctx:image2d{ width = w, height = h, format = "float" }
    local a = cl.array("float", w * h)
    a:random(7, -1, 1)
    assert.matches("^cl.event", tostring(q:write_image(img, a)))
    local b = cl.array("float", w * h)
    b:fill(-9)
    q:read_image(img, b)
    assert.is_true((b:compare(a, 0)))
    -- rows 5..9, columns 3..12, read into a host array with a 16-float pitch
    local sub = cl.array("float", 16 * 5)
    sub:fill(-9)
    q:read_image(img, sub, { origin = { 3, 5 }, region = { 10, 5 }, row_pitch = 16 * 4 })
    for y = 0, 4 do
      for x = 0, 9 do assert.equal(a[(y + 5) * w + x + 3], sub[y * 16 + x]) end
      assert.equal(-9, sub[y * 16 + 10])
    end
    -- write the rectangle back shifted, read the whole image
    q:write_image(img, sub, { origin = { 0, 0 }, region = { 10, 5 }, row_pitch = 16 * 4 })
    q:read_image(img, b)
    assert.equal(a[5 * w + 3], b[0])
    assert.equal(a[9 * w + 12], b[4 * w + 9])
    assert.equal(a[5 * w + 10], b[5 * w + 10])
  end)

  it("takes its initial contents from option data", function()
    local a = cl.array("float4", 8 * 4)
    a:random(3)
    local img = ctx:image2d{ width = 8, height = 4, format = "float4", data = a }
    local out = ctx:buffer(a.size)
    q:launch(prog:kernel("fetch4"):args(img, out), { 8, 4 })
    local b = cl.array("float4", 8 * 4)
    q:read(out, b)
    assert.is_true((b:compare(a, 0)))
  end)

  it("reads integer formats with read_imageui", function()
    local a = cl.array("uchar4", 16 * 2)
    a:random(5, 0, 255)
    local img = ctx:image2d{ width = 16, height = 2, format = "uchar4", data = a }
    local out = ctx:buffer(16 * 2 * 16)
    q:launch(prog:kernel("fetchu"):args(img, out), { 16, 2 })
    local b = cl.array("uint4", 16 * 2)
    q:read(out, b)
    for i = 0, #a - 1 do assert.equal(a[i], b[i]) end
  end)

  describe("samplers", function()
    local w, h = 8, 6
    local img, a, out, res
    setup(function()
      a = cl.array("float", w * h)
      a:random(11)
      img = ctx:image2d{ width = w, height = h, format = "float", data = a }
      out = ctx:buffer(w * h * 4)
      res = cl.array("float", w * h)
    end)
    local function run(s, dx, dy)
      q:launch(prog:kernel("fetch"):args(img, s, out, dx, dy), { w, h })
      q:read(out, res)
      return res
    end
    local function at(x, y) -- clamp to edge
      x = math.max(0, math.min(w - 1, x))
      y = math.max(0, math.min(h - 1, y))
      return a[y * w + x]
    end

    it("has its fields and tostring", function()
      local s = ctx:sampler{ normalized = true, address = "repeat", filter = "linear" }
      assert.is_true(s.normalized)
      assert.equal("repeat", s.address)
      assert.equal("linear", s.filter)
      assert.equal(ctx, s.context)
      assert.matches("^cl.sampler: normalized coordinates, repeat, linear", tostring(s))
      local d = ctx:sampler()
      assert.is_false(d.normalized)
      assert.equal("clamp_to_edge", d.address)
      assert.equal("nearest", d.filter)
    end)

    it("nearest reads texel centres and clamps to the edge", function()
      local s = ctx:sampler{ filter = "nearest", address = "clamp_to_edge" }
      run(s, 0.5 - 2, 0.5 + 1) -- two columns left, one row down
      for y = 0, h - 1 do
        for x = 0, w - 1 do assert.equal(at(x - 2, y + 1), res[y * w + x]) end
      end
    end)

    it("clamp gives the border colour (0) outside", function()
      local s = ctx:sampler{ address = "clamp" }
      run(s, 0.5 - 3, 0.5)
      assert.equal(0, res[0])
      assert.equal(a[0], res[3])
    end)

    it("linear interpolates between texels", function()
      local s = ctx:sampler{ filter = "linear" }
      run(s, 0.75, 0.5) -- a quarter of the way from x to x+1, on the row
      for y = 0, h - 1 do
        for x = 0, w - 1 do
          local want = 0.75 * at(x, y) + 0.25 * at(x + 1, y)
          assert.is_true(math.abs(res[y * w + x] - want) < 1e-2, ("at %d,%d: %g vs %g"):format(x, y, res[y * w + x], want))
        end
      end
    end)
  end)

  describe("errors", function()
    it("names bad options", function()
      assert.has_error(function() ctx:image2d{ width = 4, height = 4, format = "rgb565" } end)
      local ok, err = pcall(ctx.image2d, ctx, { width = 4, height = 4, format = "rgb565" })
      assert.matches("unknown image format 'rgb565'", err)
      ok, err = pcall(ctx.image2d, ctx, { width = 0, height = 4 })
      assert.matches("width and height must be at least 1", err)
      ok, err = pcall(ctx.image2d, ctx, { width = 1e6, height = 4 })
      assert.matches("exceeds the largest 2D image", err)
      ok, err = pcall(ctx.image2d, ctx, { width = 4, height = 4, data = cl.array("float", 3) })
      assert.matches("option 'data' holds 12 bytes", err)
      ok, err = pcall(ctx.sampler, ctx, { address = "wrap" })
      assert.matches("unknown address mode 'wrap'", err)
      ok, err = pcall(ctx.sampler, ctx, { filter = "cubic" })
      assert.matches("unknown filter 'cubic'", err)
      ok, err = pcall(ctx.sampler, ctx, { address = "mirrored_repeat" })
      assert.matches("needs normalized coordinates", err)
      assert.is_false(ok)
    end)

    it("bounds-checks transfers against the image and the array", function()
      local img = ctx:image2d{ width = 8, height = 8, format = "float4" }
      local a = cl.array("float4", 64)
      local ok, err = pcall(q.write_image, q, img, cl.array("float4", 63))
      assert.matches("needs 1024 bytes of host array, it has 1008", err)
      ok, err = pcall(q.read_image, q, img, a, { origin = { 4, 0 }, region = { 5, 1 } })
      assert.matches("region 5 x 1 at {4, 0} runs past the 8 x 8 image", err)
      ok, err = pcall(q.read_image, q, img, a, { origin = { 8, 0 } })
      assert.matches("origin {8, 0} lies outside", err)
      ok, err = pcall(q.read_image, q, img, a, { region = { 8, 8 }, row_pitch = 16 })
      assert.matches("row pitch 16 is less than", err)
      ok, err = pcall(q.write_image, q, img, cl.array("int4", 64))
      assert.matches("a float4 image takes a float array", err)
      ok, err = pcall(q.write_image, q, img, a, { blocking = false })
      assert.matches("non%-blocking image transfers are not supported", err)
      assert.is_false(ok)
    end)

    it("checks kernel arguments against images and samplers", function()
      local k = prog:kernel("fetch")
      local img = ctx:image2d{ width = 4, height = 4 }
      local buf = ctx:buffer(64)
      local s = ctx:sampler()
      local ok, err = pcall(k.arg, k, 0, buf)
      assert.matches("argument 0 %(the 1st, image2d_t im%) of 'fetch' takes a cl.image, got cl.buffer", err)
      ok, err = pcall(k.arg, k, 1, img)
      assert.matches("takes a cl.sampler, got cl.image", err)
      ok, err = pcall(k.arg, k, 2, img)
      assert.matches("is not an image", err)
      ok, err = pcall(k.arg, k, 2, s)
      assert.matches("is not a sampler_t", err)
      ok, err = pcall(k.arg, k, 0, 3)
      assert.matches("takes a cl.image, got number", err)
      assert.is_false(ok)
      assert.equal("global", k:arg_info(0).address)
      assert.equal("private", k:arg_info(1).address)
      local p = prog:kernel("plain")
      ok, err = pcall(p.arg, p, 0, img)
      assert.matches("is not an image", err)
    end)

    it("refuses use after release", function()
      local img = ctx:image2d{ width = 4, height = 4 }
      local s = ctx:sampler()
      local k = prog:kernel("fetch")
      img:release()
      img:release() -- idempotent
      s:release()
      local _, field_err = pcall(function() return img.width end)
      assert.matches("attempt to use a released cl.image", field_err, 1, true)
      local _, write_err = pcall(function() q:write_image(img, cl.array("float", 16)) end)
      assert.matches("bad argument #1 to 'write_image' (attempt to use a released cl.image)", write_err, 1, true)
      local ok, err = pcall(k.arg, k, 0, img)
      assert.matches("is a released cl.image", err)
      ok, err = pcall(k.arg, k, 1, s)
      assert.matches("is a released cl.sampler", err)
      assert.is_false(ok)
      assert.equal("cl.sampler (released)", tostring(s))
      -- released after being set: the launch refuses it
      local img2, s2 = ctx:image2d{ width = 4, height = 4 }, ctx:sampler()
      k:args(img2, s2, ctx:buffer(64), 0, 0)
      img2:release()
      ok, err = pcall(q.launch, q, k, { 4, 4 })
      assert.matches("queue:launch: argument 0 %(the 1st, image2d_t im%) of kernel 'fetch' is a released cl.image", err)
      img2 = ctx:image2d{ width = 4, height = 4 }
      k:arg(0, img2)
      s2:release()
      ok, err = pcall(q.launch, q, k, { 4, 4 })
      assert.matches("argument 1 %(the 2nd, sampler_t s%) of kernel 'fetch' is a released cl.sampler", err)
      k:arg(1, ctx:sampler())
      q:launch(k, { 4, 4 })
      q:finish()
      do
        local i2 <close> = ctx:image2d{ width = 2, height = 2 }
        local s2 <close> = ctx:sampler()
        assert.equal(2, i2.width)
        assert.equal("nearest", s2.filter)
      end
    end)
  end)
end)
