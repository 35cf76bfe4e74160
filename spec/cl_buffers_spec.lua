-- cl buffers and transfers: ctx:buffer (sizes, flags, from arrays), sub-buffers,
-- q:write/read (offset, size, blocking, wait), q:copy, q:fill, and non-blocking
-- transfers that keep their host memory alive; every round trip is checked
-- element by element.
local cl = require("cl")

local function err_of(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  return tostring(err)
end

-- Asserts that array `a` holds `expect(i)` at every index i.
local function check_each(a, expect)
  for i = 0, #a - 1 do
    local want = expect(i)
    if a[i] ~= want then
      error(("element %d is %s, expected %s"):format(i, tostring(a[i]), tostring(want)), 2)
    end
  end
end

describe("cl buffers", function()
  local ctx, q, align
  setup(function()
    ctx = cl.context()
    q = ctx:queue()
    align = ctx.device.info.mem_base_addr_align // 8
  end)

  describe("ctx:buffer", function()
    it("makes a buffer of a size with flags", function()
      local b = ctx:buffer(256)
      assert.equal(256, b.size)
      assert.equal("read_write", b.flags)
      assert.equal(ctx, b.context)
      assert.matches("^cl.buffer: 256 bytes, read_write %(0x", tostring(b))
      assert.matches("^cl.buffer: 3 MiB, read_only, alloc_host_ptr", tostring(ctx:buffer(3 << 20, "read_only alloc_host_ptr")))
      assert.matches("^cl.buffer: 1.50 KiB", tostring(ctx:buffer(1536)))
      assert.equal("write_only, host_read_only", ctx:buffer(64, "write_only,host_read_only").flags)
      assert.equal("read_only, alloc_host_ptr", ctx:buffer(64, "alloc_host_ptr|read_only").flags)
      assert.is_true(b == b)
      assert.is_false(b == ctx:buffer(256))
    end)

    it("rejects bad sizes and flags", function()
      assert.matches("buffer size must be at least 1 byte", err_of(ctx.buffer, ctx, 0), 1, true)
      assert.matches("size must not be negative", err_of(ctx.buffer, ctx, -8), 1, true)
      assert.matches("size in bytes or cl.array expected, got string", err_of(ctx.buffer, ctx, "64"), 1, true)
      assert.matches("ctx:buffer: unknown memory flag 'fast' (expected read_write, read_only,",
        err_of(ctx.buffer, ctx, 64, "read_only fast"), 1, true)
      assert.matches("ctx:buffer: flags name more than one of read_write, read_only, write_only",
        err_of(ctx.buffer, ctx, 64, "read_only write_only"), 1, true)
      assert.matches("ctx:buffer: flags use_host_ptr and copy_host_ptr need a cl.array as argument #1, not a size",
        err_of(ctx.buffer, ctx, 64, "use_host_ptr"), 1, true)
      local max = ctx.device.info.max_mem_alloc_size
      assert.matches(("ctx:buffer: clCreateBuffer failed: CL_INVALID_BUFFER_SIZE (size %d bytes exceeds the largest allocation %d bytes on %s)")
        :format(max + 1, max, ctx.device.name), err_of(ctx.buffer, ctx, max + 1), 1, true)
    end)

    it("copies a host array in (copy_host_ptr)", function()
      local a = cl.array("int", 64):ramp(-30)
      local b = ctx:buffer(a)
      assert.equal(256, b.size)
      assert.equal("read_write, copy_host_ptr", b.flags)
      a:fill(0) -- a copy: the buffer keeps the values it was made with
      local r = cl.array("int", 64)
      q:read(b, r)
      check_each(r, function(i) return i - 30 end)
      assert.equal("read_only, copy_host_ptr", ctx:buffer(a, "read_only").flags)
    end)

    it("uses a host array's memory (use_host_ptr) and keeps it alive", function()
      local a = cl.array("float", 32):ramp(0.5, 2)
      local b = ctx:buffer(a, "use_host_ptr")
      assert.equal("read_write, use_host_ptr", b.flags)
      a:release() -- the buffer still holds the memory
      collectgarbage()
      local r = cl.array("float", 32)
      q:read(b, r)
      check_each(r, function(i) return 0.5 + 2 * i end)
    end)
  end)

  describe("q:write and q:read", function()
    it("round-trip every element of every scalar type", function()
      for _, t in ipairs { "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double", "float4", "int2" } do
        local a = cl.array(t, 257)
        local lo, hi = 0, 100
        if t:match("^u") then lo, hi = 0, 200 elseif not t:match("float") and not t:match("double") then lo, hi = -100, 100 end
        a:random(11, lo, hi)
        local b = ctx:buffer(a.size)
        local r = cl.array(t, 257)
        assert.equal("write_buffer", q:write(b, a).command)
        assert.equal("read_buffer", q:read(b, r).command)
        check_each(r, function(i) return a[i] end)
      end
    end)

    it("honours offset and size in bytes and leaves the rest alone", function()
      local b = ctx:buffer(64)
      q:write(b, cl.array("int", 16):fill(-1))
      q:write(b, cl.array("int", 4):ramp(100), { offset = 16 })          -- elements 4..7
      q:write(b, cl.array("int", 4):ramp(200), { offset = 48, size = 8 }) -- elements 12, 13
      local r = cl.array("int", 16)
      q:read(b, r)
      check_each(r, function(i)
        if i >= 4 and i <= 7 then return 100 + i - 4 end
        if i == 12 or i == 13 then return 200 + i - 12 end
        return -1
      end)
      local part = cl.array("int", 4):fill(7)
      q:read(b, part, { offset = 20, size = 8 }) -- elements 5, 6 into part[0], part[1]
      assert.same({ 101, 102, 7, 7 }, part:totable())
    end)

    it("reads into and writes from a slice", function()
      local b = ctx:buffer(40)
      local host = cl.array("short", 20):ramp(1)
      q:write(b, host:slice(10, 10))
      local r = cl.array("short", 20):fill(-1)
      q:read(b, r:slice(5, 10))
      check_each(r, function(i) return (i >= 5 and i < 15) and i + 6 or -1 end)
    end)

    it("raises for ranges outside the buffer or the array and for bad options", function()
      local b = ctx:buffer(64)
      local a = cl.array("int", 16)
      assert.matches("queue:write: 68 bytes at offset 0 run past the end of the buffer (64 bytes)",
        err_of(q.write, q, b, cl.array("int", 17)), 1, true)
      assert.matches("queue:read: 64 bytes at offset 4 run past the end of the buffer (64 bytes)",
        err_of(q.read, q, b, a, { offset = 4 }), 1, true)
      assert.matches("queue:read: size 68 bytes exceeds the host array (64 bytes)",
        err_of(q.read, q, b, a, { size = 68 }), 1, true)
      assert.matches("option 'offset' must not be negative, got -4", err_of(q.read, q, b, a, { offset = -4 }), 1, true)
      assert.matches("option 'size' must be an integer", err_of(q.read, q, b, a, { size = 1.5 }), 1, true)
      assert.matches("queue:read: option 'wait' must be an event or a list of events, got number",
        err_of(q.read, q, b, a, { wait = 5 }), 1, true)
      assert.matches("queue:read: wait[2] must be a cl.event, got string",
        err_of(q.read, q, b, a, { wait = { q:marker(), "x" } }), 1, true)
      assert.matches("table expected, got number", err_of(q.write, q, b, a, 5), 1, true)
      assert.matches("cl.buffer expected, got cl.array", err_of(q.write, q, a, a), 1, true)
      assert.matches("cl.array expected, got number", err_of(q.write, q, b, 5), 1, true)
      assert.matches("cl.queue expected, got cl.buffer", err_of(q.write, b, b, a), 1, true)
    end)

    it("names the OpenCL call and error when the driver refuses", function()
      local b = ctx:buffer(64, "host_no_access")
      assert.matches("queue:write: clEnqueueWriteBuffer failed: CL_INVALID_OPERATION (64 bytes at offset 0)",
        err_of(q.write, q, b, cl.array("int", 16)), 1, true)
      assert.matches("queue:read: clEnqueueReadBuffer failed: CL_INVALID_OPERATION",
        err_of(q.read, q, b, cl.array("int", 16)), 1, true)
    end)

    it("waits for a single event or a list", function()
      local b = ctx:buffer(16)
      local e1 = q:write(b, cl.array("int", 4):fill(3))
      local r = cl.array("int", 4)
      q:read(b, r, { wait = e1 })
      assert.same({ 3, 3, 3, 3 }, r:totable())
      q:read(b, r, { wait = { e1, q:marker() } })
      assert.same({ 3, 3, 3, 3 }, r:totable())
      q:read(b, r, { wait = {} })
    end)
  end)

  describe("non-blocking transfers", function()
    it("keep a read's array alive with every reference dropped", function()
      local n = 4 << 20 -- 16 MiB of int
      local big = ctx:buffer(n * 4)
      q:fill(big, 1234567)
      local gate = ctx:user_event()
      do
        local arr = cl.array("int", n)
        local e = q:read(big, arr, { blocking = false, wait = { gate } })
        assert.equal("read_buffer", e.command)
      end
      collectgarbage()
      collectgarbage()
      assert.equal(1, q.pending) -- the queue holds the array's memory
      local churn = {}
      for i = 1, 8 do churn[i] = cl.array("int", n):fill(-1) end -- would reuse freed memory
      gate:complete()
      q:finish()
      assert.equal(0, q.pending)
      churn = nil
      collectgarbage()
    end)

    it("keep a write's array alive and write its values", function()
      local n = 1 << 20
      local b = ctx:buffer(n * 4)
      local gate = ctx:user_event()
      do
        local src = cl.array("int", n):ramp(5)
        q:write(b, src, { blocking = false, wait = gate })
      end
      collectgarbage()
      collectgarbage()
      local churn = {}
      for i = 1, 4 do churn[i] = cl.array("int", n):fill(-9) end
      gate:complete()
      q:finish()
      local r = cl.array("int", n)
      q:read(b, r)
      local ok, _, _, first = r:compare(cl.array("int", n):ramp(5))
      assert.is_true(ok, first)
    end)

    it("a read of a large buffer survives its array being dropped and collected", function()
      local big = ctx:buffer(64 << 20)
      q:fill(big, 7)
      do
        local arr = cl.array("int", 16 << 20)
        q:read(big, arr, { blocking = false })
      end
      collectgarbage()
      collectgarbage()
      q:finish()
      assert.equal(0, q.pending)
    end)

    it("a plain non-blocking read completes by finish", function()
      local b = ctx:buffer(1 << 22)
      q:fill(b, 2.5)
      local r = cl.array("float", 1 << 20)
      local e = q:read(b, r, { blocking = false })
      q:finish()
      assert.equal("complete", e.status)
      check_each(r:slice(0, 64), function() return 2.5 end)
      assert.equal(2.5, r[#r - 1])
    end)
  end)

  describe("q:copy", function()
    it("copies whole buffers and ranges", function()
      local a = cl.array("int", 32):ramp(1)
      local s, d = ctx:buffer(a), ctx:buffer(128)
      q:fill(d, -1)
      assert.equal("copy_buffer", q:copy(s, d).command)
      local r = cl.array("int", 32)
      q:read(d, r)
      check_each(r, function(i) return i + 1 end)
      q:fill(d, 0)
      q:copy(s, d, { src_offset = 8, dst_offset = 64, size = 16 }) -- elements 2..5 to 16..19
      q:read(d, r)
      check_each(r, function(i) return (i >= 16 and i < 20) and i - 16 + 3 or 0 end)
      -- the default size is what fits both
      local small = ctx:buffer(32)
      q:copy(s, small)
      local r8 = cl.array("int", 8)
      q:read(small, r8)
      check_each(r8, function(i) return i + 1 end)
    end)

    it("raises for overlaps and ranges outside", function()
      local b = ctx:buffer(64)
      assert.matches("queue:copy: clEnqueueCopyBuffer failed: CL_MEM_COPY_OVERLAP (source and destination regions overlap)",
        err_of(q.copy, q, b, b), 1, true)
      assert.matches("queue:copy: 32 bytes at offset 48 run past the end of the source buffer (64 bytes)",
        err_of(q.copy, q, b, ctx:buffer(64), { src_offset = 48, size = 32 }), 1, true)
      assert.matches("run past the end of the destination buffer (16 bytes)",
        err_of(q.copy, q, b, ctx:buffer(16), { size = 32 }), 1, true)
      assert.matches("queue:copy: nothing to copy (size 0)",
        err_of(q.copy, q, b, ctx:buffer(16), { dst_offset = 16 }), 1, true)
    end)
  end)

  describe("q:fill", function()
    it("fills with an int pattern, a float pattern and a typed one", function()
      local b = ctx:buffer(64)
      assert.equal("fill_buffer", q:fill(b, -5).command)
      local ri, rf = cl.array("int", 16), cl.array("float", 16)
      q:read(b, ri)
      check_each(ri, function() return -5 end)
      q:fill(b, 0.75)
      q:read(b, rf)
      check_each(rf, function() return 0.75 end)
      q:fill(b, 0xAB, { type = "uchar" })
      local ru = cl.array("uchar", 64)
      q:read(b, ru)
      check_each(ru, function() return 0xAB end)
      q:fill(b, 1.5, { type = "double" })
      local rd = cl.array("double", 8)
      q:read(b, rd)
      check_each(rd, function() return 1.5 end)
      q:fill(b, 0x0102, { type = "ushort", offset = 8, size = 4 })
      q:read(b, ru)
      check_each(ru, function(i)
        if i == 8 or i == 10 then return 0x02 end
        if i == 9 or i == 11 then return 0x01 end
        return i % 8 == 6 and 0xF8 or i % 8 == 7 and 0x3F or 0 -- 1.5 as a double: 00 .. 00 f8 3f
      end)
    end)

    it("fills with an array's bytes as the pattern", function()
      local b = ctx:buffer(128)
      local pat = cl.array("float4", 1)
      pat[0], pat[1], pat[2], pat[3] = 1, 2, 3, 4
      q:fill(b, pat)
      local r = cl.array("float", 32)
      q:read(b, r)
      check_each(r, function(i) return i % 4 + 1 end)
      local p2 = cl.array("uchar", 2)
      p2[0], p2[1] = 7, 9
      q:fill(b, p2, { offset = 2, size = 4 })
      local ru = cl.array("uchar", 8)
      q:read(b, ru)
      assert.same({ 0, 0, 7, 9, 7, 9, 0, 0x40 }, ru:totable()) -- 1.0f = 00 00 80 3f, 2.0f = 00 00 00 40
    end)

    it("raises for bad patterns and ranges", function()
      local b = ctx:buffer(64)
      assert.matches("queue:fill: a pattern must be 1, 2, 4, ..., 128 bytes, got 3", err_of(q.fill, q, b, cl.array("uchar", 3)), 1, true)
      assert.matches("queue:fill: option 'type' must be a scalar array type, got 'float4'", err_of(q.fill, q, b, 1, { type = "float4" }), 1, true)
      assert.matches("queue:fill: 300 does not fit a uchar (0 to 255)", err_of(q.fill, q, b, 300, { type = "uchar" }), 1, true)
      assert.matches("queue:fill: int values are integers, got 0.5", err_of(q.fill, q, b, 0.5, { type = "int" }), 1, true)
      assert.matches("queue:fill: offset 2 and size 62 must be multiples of the pattern size 4", err_of(q.fill, q, b, 1, { offset = 2 }), 1, true)
      assert.matches("queue:fill: 64 bytes at offset 8 run past the end of the buffer (64 bytes)",
        err_of(q.fill, q, b, 1, { offset = 8, size = 64 }), 1, true)
      assert.matches("number expected, got string", err_of(q.fill, q, b, "x"), 1, true)
    end)
  end)

  describe("sub-buffers", function()
    it("share the parent's memory both ways", function()
      local parent = ctx:buffer(4 * align)
      q:write(parent, cl.array("uchar", 4 * align))
      local sub = parent:sub(align, 2 * align)
      assert.equal(2 * align, sub.size)
      assert.equal(parent, sub.parent)
      assert.equal(ctx, sub.context)
      assert.equal("read_write", sub.flags)
      q:write(sub, cl.array("uchar", 2 * align):fill(7))
      local r = cl.array("uchar", 4 * align)
      q:read(parent, r)
      check_each(r, function(i) return (i >= align and i < 3 * align) and 7 or 0 end)
      q:fill(parent, 3, { type = "uchar", offset = align, size = 4 })
      local rs = cl.array("uchar", 2 * align)
      q:read(sub, rs)
      check_each(rs, function(i) return i < 4 and 3 or 7 end)
      assert.equal("read_only", parent:sub(0, align, "read_only").flags)
    end)

    it("keep their parent alive", function()
      local sub
      do
        local parent = ctx:buffer(cl.array("int", align):ramp(1))
        sub = parent:sub(0, align)
      end
      collectgarbage()
      collectgarbage()
      local r = cl.array("int", align // 4)
      q:read(sub, r)
      check_each(r, function(i) return i + 1 end)
    end)

    it("raise for misaligned offsets and regions outside the parent", function()
      local parent = ctx:buffer(4 * align)
      assert.matches(("buffer:sub: clCreateSubBuffer failed: CL_MISALIGNED_SUB_BUFFER_OFFSET (offset 4 is not a multiple "
        .. "of the device's base address alignment, %d bytes)"):format(align),
        err_of(parent.sub, parent, 4, 8), 1, true)
      assert.matches(("buffer:sub: region of %d bytes at offset %d is outside the buffer of %d bytes"):format(2 * align, 3 * align, 4 * align),
        err_of(parent.sub, parent, 3 * align, 2 * align), 1, true)
      assert.matches("is outside the buffer", err_of(parent.sub, parent, 0, 0), 1, true)
      assert.matches("offset must not be negative", err_of(parent.sub, parent, -1, 8), 1, true)
    end)
  end)
end)
