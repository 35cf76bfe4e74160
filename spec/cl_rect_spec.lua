-- cl rectangular transfers: q:write_rect, q:read_rect, q:copy_rect
-- (clEnqueue{Write,Read,Copy}BufferRect), checked against a host model of where
-- each byte (or element) lands; the slides' "Padding 2D arrays" example: a 7×7
-- host block of floats written into an 8×8 device array (row pitch 32 bytes).
local cl = require("cl")

local function err_of(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  return tostring(err)
end

-- The host model of a rectangular copy, on 0-based tables (or arrays) of
-- units; origins, pitches and region[1] are in units.
local function model(dst, dorg, drp, dsp, src, sorg, srp, ssp, region)
  for z = 0, region[3] - 1 do
    for y = 0, region[2] - 1 do
      for x = 0, region[1] - 1 do
        dst[(dorg[3] + z) * dsp + (dorg[2] + y) * drp + dorg[1] + x] =
          src[(sorg[3] + z) * ssp + (sorg[2] + y) * srp + sorg[1] + x]
      end
    end
  end
  return dst
end

local function table_of(a)
  local t = {}
  for i = 0, #a - 1 do t[i] = a[i] end
  return t
end

local function check_against(a, want)
  for i = 0, #a - 1 do
    if a[i] ~= want[i] then
      error(("element %d is %s, the model says %s"):format(i, tostring(a[i]), tostring(want[i])), 2)
    end
  end
end

describe("cl rectangular transfers", function()
  local ctx, q
  setup(function()
    ctx = cl.context()
    q = ctx:queue()
  end)

  it("writes the slides' 7×7 host block into an 8×8 device array", function()
    local host = cl.array("float", 7 * 7):random(3, 1, 2)
    local dev = ctx:buffer(8 * 8 * 4)
    q:fill(dev, -1.0)
    local e = q:write_rect(dev, host, {
      region = { 7 * 4, 7, 1 },        -- the slides say {7, 7, 0}: width is in bytes, depth at least 1
      buffer_row_pitch = 8 * 4,        -- pitch_gpu = 8 * sizeof(float)
      host_row_pitch = 0,              -- auto: the region's width
    })
    assert.equal("write_buffer_rect", e.command)
    local back = cl.array("float", 64)
    q:read(dev, back)
    local want = {}
    for i = 0, 63 do want[i] = -1.0 end
    model(want, { 0, 0, 0 }, 8, 64, table_of(host), { 0, 0, 0 }, 7, 49, { 7, 7, 1 })
    check_against(back, want)
    -- the padding column and row kept their value; the block landed row by row
    for y = 0, 7 do assert.equal(-1.0, back[y * 8 + 7]) end
    for x = 0, 7 do assert.equal(-1.0, back[7 * 8 + x]) end
    assert.equal(host[7], back[8]) -- host row 1 starts at device row 1
  end)

  it("places the block at a buffer origin, and reads it back with read_rect", function()
    local host = cl.array("float", 49):ramp(1)
    local dev = ctx:buffer(256)
    q:fill(dev, 0.0)
    q:write_rect(dev, host, { region = { 28, 7, 1 }, buffer_origin = { 4, 1, 0 }, buffer_row_pitch = 32 })
    local back = cl.array("float", 64)
    q:read(dev, back)
    local want = {}
    for i = 0, 63 do want[i] = 0.0 end
    check_against(back, model(want, { 1, 1, 0 }, 8, 64, table_of(host), { 0, 0, 0 }, 7, 49, { 7, 7, 1 }))
    -- read a 3×2 block at device (2, 3) into a 5×4 host array at (1, 1), host row pitch 20 bytes
    local out = cl.array("float", 20):fill(-5)
    assert.equal("read_buffer_rect", q:read_rect(dev, out, {
      region = { 12, 2, 1 }, buffer_origin = { 8, 3, 0 }, buffer_row_pitch = 32,
      host_origin = { 4, 1, 0 }, host_row_pitch = 20 }).command)
    local want_out = {}
    for i = 0, 19 do want_out[i] = -5 end
    check_against(out, model(want_out, { 1, 1, 0 }, 5, 20, table_of(back), { 2, 3, 0 }, 8, 64, { 3, 2, 1 }))
  end)

  it("moves bytes at odd offsets and pitches, in 3-D with slice pitches", function()
    local host = cl.array("uchar", 2 * 5 * 11):random(9, 1, 255)  -- 2 slices of 5 rows of 11 bytes
    local dev = ctx:buffer(3 * 6 * 13)                              -- 3 slices of 6 rows of 13 bytes
    q:fill(dev, 0, { type = "uchar" })
    local opts = {
      region = { 7, 3, 2 },
      buffer_origin = { 3, 2, 1 }, buffer_row_pitch = 13, buffer_slice_pitch = 78,
      host_origin = { 1, 1, 0 }, host_row_pitch = 11, host_slice_pitch = 55,
    }
    q:write_rect(dev, host, opts)
    local back = cl.array("uchar", 3 * 6 * 13)
    q:read(dev, back)
    local want = {}
    for i = 0, #back - 1 do want[i] = 0 end
    check_against(back, model(want, { 3, 2, 1 }, 13, 78, table_of(host), { 1, 1, 0 }, 11, 55, { 7, 3, 2 }))
    -- read_rect with the same options puts exactly those bytes back
    local again = cl.array("uchar", #host)
    q:read_rect(dev, again, opts)
    local want_again = {}
    for i = 0, #again - 1 do want_again[i] = 0 end
    check_against(again, model(want_again, { 1, 1, 0 }, 11, 55, table_of(host), { 1, 1, 0 }, 11, 55, { 7, 3, 2 }))
  end)

  it("copy_rect copies a block between buffers with their own pitches", function()
    local src_host = cl.array("int", 8 * 8):ramp(100)
    local src = ctx:buffer(src_host)
    local dst = ctx:buffer(6 * 6 * 4)
    q:fill(dst, -1)
    local e = q:copy_rect(src, dst, {
      region = { 3 * 4, 4, 1 }, src_origin = { 2 * 4, 1, 0 }, src_row_pitch = 32,
      dst_origin = { 1 * 4, 2, 0 }, dst_row_pitch = 24 })
    assert.equal("copy_buffer_rect", e.command)
    local back = cl.array("int", 36)
    q:read(dst, back)
    local want = {}
    for i = 0, 35 do want[i] = -1 end
    check_against(back, model(want, { 1, 2, 0 }, 6, 36, table_of(src_host), { 2, 1, 0 }, 8, 64, { 3, 4, 1 }))
    -- default pitches: tightly packed rows of the region's width
    local d2 = ctx:buffer(48)
    q:fill(d2, 0)
    q:copy_rect(src, d2, { region = { 16, 3, 1 } })
    local b2 = cl.array("int", 12)
    q:read(d2, b2)
    local w2 = {}
    check_against(b2, model(w2, { 0, 0, 0 }, 4, 12, table_of(src_host), { 0, 0, 0 }, 4, 12, { 4, 3, 1 }))
  end)

  it("non-blocking write_rect keeps its array alive", function()
    local dev = ctx:buffer(64 * 64 * 4)
    local gate = ctx:user_event()
    do
      local host = cl.array("float", 32 * 32):ramp(1)
      q:write_rect(dev, host, { region = { 128, 32, 1 }, buffer_row_pitch = 256, blocking = false, wait = { gate } })
    end
    collectgarbage()
    collectgarbage()
    assert.equal(1, q.pending)
    gate:complete()
    q:finish()
    local back = cl.array("float", 64 * 64)
    q:read(dev, back)
    assert.equal(1, back[0])
    assert.equal(33, back[64])
    assert.equal(32 * 32, back[31 * 64 + 31])
  end)

  it("raises for missing or empty regions, short pitches and rectangles outside", function()
    local dev = ctx:buffer(256)
    local host = cl.array("float", 49)
    assert.matches("queue:write_rect: option 'region' {width_bytes, height, depth} is required",
      err_of(q.write_rect, q, dev, host, {}), 1, true)
    assert.matches("queue:write_rect: region sizes must be at least 1",
      err_of(q.write_rect, q, dev, host, { region = { 7, 7, 0 }, buffer_row_pitch = 32 }), 1, true)
    assert.matches("queue:write_rect: buffer row pitch 16 is less than the region's width 28 bytes",
      err_of(q.write_rect, q, dev, host, { region = { 28, 7, 1 }, buffer_row_pitch = 16 }), 1, true)
    assert.matches("queue:read_rect: host array slice pitch 10 is less than row pitch × height 28",
      err_of(q.read_rect, q, dev, host, { region = { 28, 1, 1 }, host_slice_pitch = 10 }), 1, true)
    assert.matches("queue:write_rect: the rectangle runs past the end of the buffer (284 bytes needed, 256 there)",
      err_of(q.write_rect, q, dev, host, { region = { 28, 7, 1 }, buffer_origin = { 4, 1, 0 }, buffer_row_pitch = 36 }), 1, true)
    assert.matches("queue:read_rect: the rectangle runs past the end of the host array (220 bytes needed, 196 there)",
      err_of(q.read_rect, q, dev, host, { region = { 28, 7, 1 }, host_row_pitch = 32 }), 1, true)
    assert.matches("queue:copy_rect: the rectangle runs past the end of the destination buffer",
      err_of(q.copy_rect, q, dev, ctx:buffer(64), { region = { 32, 4, 1 }, dst_origin = { 0, 1, 0 } }), 1, true)
    assert.matches("option 'buffer_origin' must be a list {x, y, z}, got number",
      err_of(q.write_rect, q, dev, host, { region = { 4, 1, 1 }, buffer_origin = 3 }), 1, true)
    assert.matches("option 'region'[2] must be a non-negative integer",
      err_of(q.write_rect, q, dev, host, { region = { 4, -1, 1 } }), 1, true)
    assert.matches("table expected, got no value", err_of(q.copy_rect, q, dev, dev), 1, true)
    -- sizes past 2^64 are refused, and named exactly (the bound used to be a double, cast to an integer)
    assert.matches("queue:write_rect: buffer row pitch 1099511627776 × height 1073741824 overflows",
      err_of(q.write_rect, q, dev, host, { region = { 1 << 40, 1 << 30, 1 } }), 1, true)
    assert.matches("queue:write_rect: the rectangle runs past the end of the buffer (over 2^64 bytes needed, 256 there)",
      err_of(q.write_rect, q, dev, host, { region = { 4, 1, 1 << 62 }, buffer_slice_pitch = 1 << 62 }), 1, true)
    assert.matches("queue:write_rect: the rectangle runs past the end of the buffer (4611686018427387908 bytes needed, 256 there)",
      err_of(q.write_rect, q, dev, host, { region = { 4, 1, 2 }, buffer_slice_pitch = 1 << 62 }), 1, true)
  end)
end)
