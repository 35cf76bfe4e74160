-- cl maps: q:map returns a typed view over the buffer's mapped memory;
-- q:unmap hands it back. Writes through a view are in the buffer after unmap;
-- a view is unusable after unmap and after its buffer's release.
local cl = require("cl")

local function err_of(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  return tostring(err)
end

local GONE = "attempt to use a view of an unmapped or released buffer"

describe("cl maps", function()
  local ctx, q
  setup(function()
    ctx = cl.context()
    q = ctx:queue()
  end)

  it("maps a buffer as bytes by default, and as a typed view", function()
    local b = ctx:buffer(cl.array("int", 16):ramp(1))
    local v, e = q:map(b)
    assert.equal("map_buffer", e.command)
    assert.equal("complete", e.status)
    assert.equal("uchar", v.type)
    assert.equal(64, #v)
    assert.equal(1, v[0])
    assert.equal(0, v[1])
    assert.equal("cl.array: 64 uchar, mapped view {1, 0, 0, 0, 2, 0, 0, 0, \u{2026} (56 more)}", tostring(v))
    assert.equal("unmap", q:unmap(v).command)
    local vi = q:map(b, { type = "int", map = "read" })
    assert.equal(16, #vi)
    for i = 0, 15 do assert.equal(i + 1, vi[i]) end
    q:unmap(vi)
  end)

  it("writes through a view are in the buffer after unmap", function()
    local b = ctx:buffer(256, "alloc_host_ptr")
    q:fill(b, 0)
    local v = q:map(b, { type = "float", map = "write" })
    for i = 0, #v - 1 do v[i] = i * 0.5 end
    q:unmap(v)
    local r = cl.array("float", 64)
    q:read(b, r)
    for i = 0, 63 do assert.equal(i * 0.5, r[i]) end
    -- array methods work on views too
    local w = q:map(b, { type = "float", map = "write_invalidate" })
    w:ramp(100, -1)
    q:unmap(w)
    q:read(b, r)
    for i = 0, 63 do assert.equal(100 - i, r[i]) end
  end)

  it("maps a range at an offset", function()
    local b = ctx:buffer(cl.array("short", 32):ramp())
    local v = q:map(b, { type = "short", offset = 16, size = 8 })
    assert.equal(4, #v)
    assert.same({ 8, 9, 10, 11 }, v:totable())
    v[0] = -8
    q:unmap(v)
    local r = cl.array("short", 32)
    q:read(b, r)
    for i = 0, 31 do assert.equal(i == 8 and -8 or i, r[i]) end
  end)

  it("a view is a host array for transfers", function()
    local pinned = ctx:buffer(128, "alloc_host_ptr")
    local dev = ctx:buffer(128)
    local v = q:map(pinned, { type = "int" })
    v:ramp(7)
    q:write(dev, v)
    v:fill(0)
    q:read(dev, v:slice(0, 16))
    for i = 0, 31 do assert.equal(i < 16 and i + 7 or 0, v[i]) end
    q:unmap(v)
  end)

  it("a view is unusable after unmap, and so are its slices", function()
    local b = ctx:buffer(64)
    local v = q:map(b, { type = "int" })
    local s = v:slice(2, 4)
    assert.is_true(v.valid and s.valid)
    q:unmap(v)
    assert.is_false(v.valid)
    assert.is_false(s.valid)
    assert.equal("cl.array: 16 int, unmapped view (no values)", tostring(v))
    assert.equal("cl.array: 4 int, unmapped view (no values)", tostring(s))
    assert.matches(GONE, err_of(function() return v[0] end), 1, true)
    assert.matches(GONE, err_of(function() v[0] = 1 end), 1, true)
    assert.matches(GONE, err_of(function() return s[0] end), 1, true)
    assert.matches(GONE, err_of(v.fill, v, 1), 1, true)
    assert.matches(GONE, err_of(q.write, q, b, v), 1, true)
    assert.matches("queue:unmap: this view was already unmapped (or its buffer released)", err_of(q.unmap, q, v), 1, true)
    assert.equal(16, #v) -- the length stays readable
  end)

  it("a view is unusable after its buffer's release", function()
    local b = ctx:buffer(64)
    local v = q:map(b, { type = "float" })
    v[0] = 1
    b:release()
    assert.is_false(v.valid)
    assert.matches(GONE, err_of(function() return v[0] end), 1, true)
    assert.matches(GONE, err_of(v.sum, v), 1, true)
    assert.matches("queue:unmap: this view was already unmapped (or its buffer released)", err_of(q.unmap, q, v), 1, true)
    -- a <close> buffer: the view dies with the scope
    local v2
    do
      local b2 <close> = ctx:buffer(32)
      v2 = q:map(b2, { type = "int" })
      v2[1] = 5
      assert.equal(5, v2[1])
    end
    assert.matches(GONE, err_of(function() return v2[1] end), 1, true)
  end)

  it("a view keeps its buffer alive", function()
    local v
    do
      local b = ctx:buffer(cl.array("int", 8):ramp(3))
      v = q:map(b, { type = "int" })
    end
    collectgarbage()
    collectgarbage()
    assert.same({ 3, 4, 5, 6, 7, 8, 9, 10 }, v:totable())
    q:unmap(v)
    assert.is_false(v.valid)
  end)

  it("raises for bad options and for plain arrays", function()
    local b = ctx:buffer(64)
    assert.matches("queue:map: option 'map' must be read, write, read_write or write_invalidate, got 'rw'",
      err_of(q.map, q, b, { map = "rw" }), 1, true)
    assert.matches("queue:map: unknown array type 'quad'", err_of(q.map, q, b, { type = "quad" }), 1, true)
    assert.matches("queue:map: size 6 is not a positive multiple of the int size (4 bytes)",
      err_of(q.map, q, b, { type = "int", size = 6 }), 1, true)
    assert.matches("queue:map: 32 bytes at offset 48 run past the end of the buffer (64 bytes)",
      err_of(q.map, q, b, { offset = 48, size = 32 }), 1, true)
    assert.matches("queue:map: size 0 is not a positive multiple", err_of(q.map, q, b, { offset = 64 }), 1, true)
    assert.matches("a view returned by queue:map expected, got a plain array",
      err_of(q.unmap, q, cl.array("int", 4)), 1, true)
    assert.matches("cl.array expected, got cl.buffer", err_of(q.unmap, q, b), 1, true)
    local nohost = ctx:buffer(64, "host_no_access")
    assert.matches("queue:map: clEnqueueMapBuffer failed: CL_INVALID_OPERATION (64 bytes at offset 0)",
      err_of(q.map, q, nohost), 1, true)
  end)
end)
