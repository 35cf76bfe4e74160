-- cl kernels, q:launch and q:launcher: arguments (buffers, typed values, plain
-- numbers converted from the kernel's argument info, local memory), kernel
-- info, 1-3 dimensional launches with offsets and wait lists, launches made
-- ready once, and every argument and launch error.
local cl = require("cl")
local LOCAL = cl.localmem -- also cl["local"]: `local` is a Lua keyword

local function err_of(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  return tostring(err)
end

local SRC = [[
kernel void axpy(global float *y, global const float *x, float a, int n) {
  int i = get_global_id(0);
  if (i < n) y[i] = a * x[i] + y[i];
}
kernel void scalars(global long *out, char c, uchar uc, short s, ushort us, int i, uint ui, long l, ulong ul, float f) {
  out[0] = c; out[1] = uc; out[2] = s; out[3] = us; out[4] = i; out[5] = ui; out[6] = l; out[7] = (long)ul;
  out[8] = (long)(f * 1000.0f);
}
kernel void group_sum(global int *out, global const int *in, local int *tmp) {
  int l = get_local_id(0);
  tmp[l] = in[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (l == 0) {
    int s = 0;
    for (int k = 0; k < (int)get_local_size(0); k++) s += tmp[k];
    out[get_group_id(0)] = s;
  }
}
kernel void where(global int *out) {
  size_t x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
  size_t w = get_global_size(0) + get_global_offset(0), h = get_global_size(1) + get_global_offset(1);
  out[(z * h + y) * w + x] = (int)(x + 100 * y + 10000 * z);
}
__attribute__((reqd_work_group_size(4, 1, 1))) kernel void fixed(global int *out) {
  out[get_global_id(0)] = (int)get_local_size(0);
}
kernel void nothing(void) {}
]]

describe("cl kernels", function()
  local ctx, q, prog, dev
  setup(function()
    ctx = cl.context()
    q = ctx:queue()
    dev = ctx.device
    prog = ctx:program(SRC, "kernels_spec.cl"):build()
  end)

  describe("objects and info", function()
    it("has a name, argument count, program and tostring", function()
      local k = prog:kernel("axpy")
      assert.equal("axpy", k.name)
      assert.equal(4, k.nargs)
      assert.equal(prog, k.program)
      assert.matches("^cl.kernel: axpy, 4 arguments %(0x", tostring(k))
      assert.equal(0, prog:kernel("nothing").nargs)
    end)

    it("k:info gives work-group facts for a device", function()
      local k = prog:kernel("group_sum")
      local info = k:info()
      assert.is_true(info.work_group_size >= 1 and info.work_group_size <= dev.info.max_work_group_size)
      assert.is_true(info.preferred_work_group_size_multiple >= 1)
      assert.is_true(math.type(info.local_mem_size) == "integer" and info.local_mem_size >= 0)
      assert.is_true(math.type(info.private_mem_size) == "integer" and info.private_mem_size >= 0)
      assert.same({ 0, 0, 0 }, info.compile_work_group_size)
      assert.same(info, k:info(dev))
      assert.same({ 4, 1, 1 }, prog:kernel("fixed"):info().compile_work_group_size)
      assert.matches("cl.device expected, got number", err_of(k.info, k, 3), 1, true)
    end)

    it("k:arg_info names each argument, its type and address space", function()
      local k = prog:kernel("group_sum")
      assert.same({ name = "out", type = "int*", address = "global", set = false }, k:arg_info(0))
      assert.same({ name = "tmp", type = "int*", address = "local", set = false }, k:arg_info(2))
      local a = prog:kernel("axpy")
      assert.same({ name = "a", type = "float", address = "private", set = false }, a:arg_info(2))
      a:arg(2, 1.5)
      assert.is_true(a:arg_info(2).set)
      assert.matches("index 0 to 3 expected", err_of(a.arg_info, a, 4), 1, true)
      assert.matches("index 0 to 3 expected", err_of(a.arg_info, a, -1), 1, true)
    end)
  end)

  describe("arguments and launches", function()
    it("runs axpy with buffers and plain numbers, global not a multiple of anything", function()
      local n = 1000
      local x = cl.array("float", n):random(1, -1, 1)
      local y0 = cl.array("float", n):random(2, -1, 1)
      local bx, by = ctx:buffer(x), ctx:buffer(y0)
      local k = prog:kernel("axpy")
      assert.equal(k, k:args(by, bx, 2.5, 997))
      local e = q:launch(k, n)
      assert.equal("ndrange_kernel", e.command)
      local y = cl.array("float", n)
      q:read(by, y)
      for i = 0, n - 1 do
        local want = i < 997 and string.unpack("f", string.pack("f", 2.5 * x[i] + y0[i])) or y0[i]
        assert.is_true(math.abs(y[i] - want) <= 1e-6 * math.max(1, math.abs(want)), i)
      end
    end)

    it("converts plain numbers and typed values to each scalar type", function()
      local out = ctx:buffer(9 * 8)
      local k = prog:kernel("scalars")
      local r = cl.array("long", 9)
      k:args(out, -7, 200, -300, 60000, -70000, 4000000000, math.mininteger, math.maxinteger, 1.25)
      q:launch(k, 1)
      q:read(out, r)
      assert.same({ -7, 200, -300, 60000, -70000, 4000000000, math.mininteger, math.maxinteger, 1250 }, r:totable())
      k:args(out, cl.char(5), cl.uchar(6), cl.short(7), cl.ushort(8), cl.int(9), cl.uint(10), cl.long(11), cl.ulong(12), cl.float(0.5))
      q:launch(k, 1)
      q:read(out, r)
      assert.same({ 5, 6, 7, 8, 9, 10, 11, 12, 500 }, r:totable())
      k:arg(5, 3.0) -- an integral float fits an int
      q:launch(k, 1)
      q:read(out, r)
      assert.equal(3, r[4])
    end)

    it("takes local memory as cl.local(bytes)", function()
      local wg, groups = 16, 8
      local input = cl.array("int", wg * groups):ramp(1)
      local out = ctx:buffer(4 * groups)
      local k = prog:kernel("group_sum"):args(out, ctx:buffer(input), LOCAL(4 * wg))
      q:launch(k, wg * groups, wg)
      local r = cl.array("int", groups)
      q:read(out, r)
      for g = 0, groups - 1 do
        local s = 0
        for i = g * wg, g * wg + wg - 1 do s = s + input[i] end
        assert.equal(s, r[g])
      end
    end)

    it("launches in 2 and 3 dimensions, with a global offset", function()
      local k = prog:kernel("where")
      local W, H, D = 8, 4, 2
      local out = ctx:buffer(4 * W * H * D)
      k:arg(0, out)
      q:launch(k, { W, H, D }, { 4, 2, 1 })
      local r = cl.array("int", W * H * D)
      q:read(out, r)
      for z = 0, D - 1 do
        for y = 0, H - 1 do
          for x = 0, W - 1 do assert.equal(x + 100 * y + 10000 * z, r[(z * H + y) * W + x]) end
        end
      end
      q:fill(out, -1)
      q:launch(k, { 6, 3 }, nil, { offset = { 2, 1 } }) -- covers x 2..7, y 1..3 of an 8 x 4 grid
      q:read(out, r)
      for y = 0, H - 1 do
        for x = 0, W - 1 do
          local want = (x >= 2 and y >= 1) and x + 100 * y or -1
          assert.equal(want, r[y * W + x], ("x %d y %d"):format(x, y))
        end
      end
    end)

    it("waits for the events in opts.wait", function()
      local out = ctx:buffer(64)
      local k = prog:kernel("where"):args(out)
      local gate = ctx:user_event()
      local e = q:launch(k, 16, nil, { wait = { gate } })
      assert.is_true(e.status == "queued" or e.status == "submitted")
      gate:complete()
      e:wait()
      assert.equal("complete", e.status)
      q:launch(k, 16, nil, { wait = e })
      q:finish()
    end)

    it("keeps its program and argument buffers alive", function()
      local k, by
      do
        local p = ctx:program(SRC):build()
        k = p:kernel("axpy")
        by = ctx:buffer(cl.array("float", 4):fill(1))
        k:args(by, ctx:buffer(cl.array("float", 4):ramp(1)), 2, 4)
      end
      collectgarbage()
      collectgarbage()
      q:launch(k, 4)
      local r = cl.array("float", 4)
      q:read(by, r)
      assert.same({ 3, 5, 7, 9 }, r:totable())
      assert.matches("^cl.program: <source>", tostring(k.program))
    end)
  end)

  describe("argument errors name the argument", function()
    local k
    before_each(function() k = prog:kernel("axpy") end)

    it("a number for a pointer, a buffer for a scalar", function()
      assert.matches("kernel:arg: argument 0 (the 1st, float* y) of 'axpy' is a pointer; pass a cl.buffer, not a number",
        err_of(k.arg, k, 0, 5), 1, true)
      assert.matches("kernel:arg: argument 2 (the 3rd, float a) of 'axpy' takes a number, got a cl.buffer",
        err_of(k.arg, k, 2, ctx:buffer(4)), 1, true)
      assert.matches("kernel:arg: argument 1 (the 2nd, float* x) of 'axpy' is a pointer; pass a cl.buffer, not a cl.int",
        err_of(k.arg, k, 1, cl.int(1)), 1, true)
      local g = prog:kernel("group_sum")
      assert.matches("kernel:arg: argument 2 (the 3rd, int* tmp) of 'group_sum' takes cl.localmem(bytes), got a cl.buffer",
        err_of(g.arg, g, 2, ctx:buffer(4)), 1, true)
      assert.matches("kernel:arg: argument 2 (the 3rd, int* tmp) of 'group_sum' is a pointer; pass a cl.localmem(bytes), not a number",
        err_of(g.arg, g, 2, 64), 1, true)
      assert.matches("kernel:arg: argument 0 (the 1st, int* out) of 'group_sum' is not a __local pointer; cl.localmem() does not fit it",
        err_of(g.arg, g, 0, LOCAL(64)), 1, true)
    end)

    it("values that do not fit the declared type", function()
      assert.matches("kernel:arg: argument 3 (the 4th, int n) of 'axpy': 1099511627776 does not fit a int (-2147483648 to 2147483647)",
        err_of(k.arg, k, 3, 2 ^ 40), 1, true)
      assert.matches("kernel:arg: argument 3 (the 4th, int n) of 'axpy': int values are integers, got 1.5",
        err_of(k.arg, k, 3, 1.5), 1, true)
      local s = prog:kernel("scalars")
      assert.matches("argument 2 (the 3rd, uchar uc) of 'scalars': 256 does not fit a uchar", err_of(s.arg, s, 2, 256), 1, true)
      assert.matches("argument 1 (the 2nd, char c) of 'scalars': -129 does not fit a char", err_of(s.arg, s, 1, -129), 1, true)
      assert.matches("argument 6 (the 7th, uint ui) of 'scalars': -1 does not fit a uint", err_of(s.arg, s, 6, -1), 1, true)
      assert.matches("kernel:arg: argument 2 (the 3rd, float a) of 'axpy' takes 4 bytes, got a cl.double of 8",
        err_of(k.arg, k, 2, cl.double(1)), 1, true)
      local e = err_of(k.arg, k, 2, "1")
      assert.matches("kernel:arg: argument 2 (the 3rd, float a) of 'axpy': a cl.buffer, ", e, 1, true)
      assert.matches("number, typed value (cl.int(x)) or cl.localmem(bytes) expected, got string", e, 1, true)
    end)

    it("indices and counts", function()
      assert.matches("kernel:arg: kernel 'axpy' has 4 arguments (0 to 3, counted from 0), no argument 4", err_of(k.arg, k, 4, 1), 1, true)
      assert.matches("argument index must be 0 or more", err_of(k.arg, k, -1, 1), 1, true)
      assert.matches("bad argument #3", err_of(k.arg, k, 0), 1, true)
      assert.matches("kernel:args: kernel 'axpy' takes 4 arguments, got 3", err_of(k.args, k, 1, 2, 3), 1, true)
      assert.matches("kernel:arg: argument 0 (the 1st, float* y) of 'axpy' is a released cl.buffer",
        err_of(function() local b = ctx:buffer(4); b:release(); k:arg(0, b) end), 1, true)
    end)

    it("typed values check their own range", function()
      assert.matches("cl.uchar: 300 does not fit a uchar (0 to 255)", err_of(cl.uchar, 300), 1, true)
      assert.matches("cl.int: int values are integers, got 1.5", err_of(cl.int, 1.5), 1, true)
      assert.matches("number expected, got string", err_of(cl.float, "x"), 1, true)
      assert.matches("local memory size must be at least 1 byte", err_of(LOCAL, 0), 1, true)
      assert.equal("cl.int(3)", tostring(cl.int(3)))
      assert.equal("cl.float(1.5)", tostring(cl.float(1.5)))
      assert.equal("cl.ulong(5)", tostring(cl.size_t(5)))
      assert.equal("cl.localmem(64)", tostring(LOCAL(64)))
    end)
  end)

  describe("launch errors", function()
    it("name an argument not set", function()
      local k = prog:kernel("axpy")
      k:arg(0, ctx:buffer(16))
      k:arg(1, ctx:buffer(16))
      assert.matches("queue:launch: argument 2 (the 3rd, float a) of kernel 'axpy' is not set", err_of(q.launch, q, k, 4), 1, true)
    end)

    it("refuse an argument buffer released since it was set", function()
      local k = prog:kernel("axpy")
      local y = ctx:buffer(16)
      k:args(y, ctx:buffer(16), 1, 4)
      y:release()
      assert.matches("queue:launch: argument 0 (the 1st, float* y) of kernel 'axpy' is a released cl.buffer",
        err_of(q.launch, q, k, 4), 1, true)
    end)

    it("a local size above the device's (or the kernel's) maximum is CL_INVALID_WORK_GROUP_SIZE", function()
      local k = prog:kernel("nothing")
      local max = dev.info.max_work_group_size -- the kernel's may be lower (NVIDIA: 256 of 1024)
      assert.is_true(k:info().work_group_size <= max)
      local err = err_of(q.launch, q, k, 2 * max, 2 * max)
      assert.equal(("queue:launch: clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE (local size %d exceeds the device's maximum %d on %s)")
        :format(2 * max, max, dev.name), err)
      assert.matches(("local size %d exceeds"):format(16 * max), err_of(q.launch, q, k, { 4 * max, 16 }, { max, 16 }), 1, true)
    end)

    it("a global size not a multiple of the local size", function()
      local k = prog:kernel("nothing")
      assert.equal("queue:launch: clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE (global size 10 in dimension 1 is not a multiple of the local size 4)",
        err_of(q.launch, q, k, 10, 4))
      assert.matches("global size 9 in dimension 2 is not a multiple of the local size 2",
        err_of(q.launch, q, k, { 8, 9 }, { 2, 2 }), 1, true)
    end)

    it("a required work-group size the launch does not give", function()
      local k = prog:kernel("fixed"):args(ctx:buffer(64))
      assert.matches("queue:launch: clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE", err_of(q.launch, q, k, 8, 2), 1, true)
      q:launch(k, 8, 4)
    end)

    it("bad sizes, dimensions and options", function()
      local k = prog:kernel("nothing")
      assert.matches("queue:launch: global size 1 is 0", err_of(q.launch, q, k, 0), 1, true)
      assert.matches("queue:launch: global size 2 is 0", err_of(q.launch, q, k, { 4, 0 }), 1, true)
      assert.matches("queue:launch: local size 1 is 0", err_of(q.launch, q, k, 4, 0), 1, true)
      assert.matches("queue:launch: global size has 2 dimensions, local size 1", err_of(q.launch, q, k, { 4, 4 }, { 2 }), 1, true)
      assert.matches("global size must have 1 to 3 dimensions, got 4", err_of(q.launch, q, k, { 1, 1, 1, 1 }), 1, true)
      assert.matches("global size must have 1 to 3 dimensions, got 0", err_of(q.launch, q, k, {}), 1, true)
      assert.matches("global size[2] must be a non-negative integer", err_of(q.launch, q, k, { 4, -1 }), 1, true)
      assert.matches("global size must not be negative, got -4", err_of(q.launch, q, k, -4), 1, true)
      assert.matches("number or list of 1 to 3 numbers expected, got string", err_of(q.launch, q, k, "4"), 1, true)
      assert.matches("queue:launch: offset has 2 dimensions, global size 1", err_of(q.launch, q, k, 4, nil, { offset = { 1, 1 } }), 1, true)
      assert.matches("table expected, got number", err_of(q.launch, q, k, 4, nil, 5), 1, true)
      assert.matches("queue:launch: wait[1] must be a cl.event, got number", err_of(q.launch, q, k, 4, nil, { wait = { 1 } }), 1, true)
      assert.matches("cl.kernel expected, got cl.program", err_of(q.launch, q, prog, 4), 1, true)
      assert.matches("cl.queue expected, got cl.kernel", err_of(q.launch, k, k, 4), 1, true)
    end)

    -- q:launch knows its queue and kernel by their userdata's size and mark
    -- (launch.c): anything else, of any size, is refused with the usual message.
    it("refuses objects that are not its queue and kernel, and released ones", function()
      local k = prog:kernel("nothing")
      assert.matches("cl.kernel expected, got cl.buffer", err_of(q.launch, q, ctx:buffer(64), 4), 1, true)
      assert.matches("cl.kernel expected, got cl.array", err_of(q.launch, q, cl.array("int", 4), 4), 1, true)
      assert.matches("cl.kernel expected, got FILE*", err_of(q.launch, q, io.stdout, 4), 1, true)
      assert.matches("cl.queue expected, got cl.event", err_of(q.launch, q:marker(), k, 4), 1, true)
      assert.matches("cl.queue expected, got table", err_of(q.launch, {}, k, 4), 1, true)
      assert.is_nil(q:launch(k, 4.0, nil, { event = false }))  -- a float of integral value is a size
      local k2 = prog:kernel("nothing")
      k2:release()
      assert.matches("released cl.kernel", err_of(q.launch, q, k2, 4), 1, true)
      local q2 = ctx:queue()
      q2:release()
      assert.matches("released cl.queue", err_of(q.launch, q2, k, 4), 1, true)
      q:finish()
    end)
  end)

  describe("q:launcher", function()
    it("makes q:launch's launch each call: the results, its event or none, local size and offset", function()
      local n = 1000
      local x = cl.array("float", n):random(3, -1, 1)
      local y0 = cl.array("float", n):random(4, -1, 1)
      local bx, by = ctx:buffer(x), ctx:buffer(y0)
      local k = prog:kernel("axpy"):args(by, bx, 0.5, n)
      local go = q:launcher(k, n)
      assert.equal("function", type(go))
      local e = go()
      assert.equal("ndrange_kernel", e.command)
      e:wait()
      assert.equal("complete", e.status)
      assert.equal(0, select("#", q:launcher(k, n, nil, { event = false })()))
      for _ = 1, 2 do go() end
      local y = cl.array("float", n)
      q:read(by, y) -- four launches in all: y0 + 4 * 0.5 * x
      for i = 0, n - 1 do
        local want = y0[i]
        for _ = 1, 4 do want = string.unpack("f", string.pack("f", 0.5 * x[i] + want)) end
        assert.is_true(math.abs(y[i] - want) <= 1e-5, i)
      end
      local W, H = 8, 4
      local out = ctx:buffer(4 * W * H)
      q:fill(out, -1)
      q:launcher(prog:kernel("where"):args(out), { 6, 2 }, { 2, 2 }, { offset = { 2, 1 } })()
      local r = cl.array("int", W * H)
      q:read(out, r)
      for yy = 0, H - 1 do
        for xx = 0, W - 1 do
          local want = (xx >= 2 and yy >= 1 and yy <= 2) and xx + 100 * yy or -1
          assert.equal(want, r[yy * W + xx], ("x %d y %d"):format(xx, yy))
        end
      end
    end)

    it("takes the kernel's arguments as they are at each call, and checks them then", function()
      local k = prog:kernel("axpy")
      local go = q:launcher(k, 4)
      local y, bx = ctx:buffer(cl.array("float", 4)), ctx:buffer(cl.array("float", 4):fill(1))
      k:arg(0, y)
      k:arg(1, bx)
      assert.matches("launcher: argument 2 (the 3rd, float a) of kernel 'axpy' is not set", err_of(go), 1, true)
      k:args(y, bx, 2, 4)
      go()
      k:arg(2, 3)
      go()
      local r = cl.array("float", 4)
      q:read(y, r)
      for i = 0, 3 do assert.equal(5, r[i]) end
      local y2 = ctx:buffer(16)
      k:arg(0, y2)
      y2:release()
      assert.matches("launcher: argument 0 (the 1st, float* y) of kernel 'axpy' is a released cl.buffer", err_of(go), 1, true)
      local f = q:launcher(prog:kernel("fixed"):args(ctx:buffer(64)), 8, 2) -- only the driver knows
      assert.matches("launcher: clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE (kernel 'fixed' declares reqd_work_group_size(4, 1, 1)",
        err_of(f), 1, true)
      q:finish()
    end)

    it("refuses once, when made, what q:launch refuses at each call", function()
      local k = prog:kernel("nothing")
      local max = dev.info.max_work_group_size
      assert.matches("queue:launcher: global size 1 is 0", err_of(q.launcher, q, k, 0), 1, true)
      assert.matches("queue:launcher: global size has 2 dimensions, local size 1",
        err_of(q.launcher, q, k, { 4, 4 }, { 2 }), 1, true)
      assert.matches("global size must not be negative, got -4", err_of(q.launcher, q, k, -4), 1, true)
      assert.matches(("queue:launcher: clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE (local size %d exceeds the device's maximum %d")
        :format(2 * max, max), err_of(q.launcher, q, k, 2 * max, 2 * max), 1, true)
      assert.matches("queue:launcher: clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE (global size 10 in dimension 1 is not a multiple of the local size 4)",
        err_of(q.launcher, q, k, 10, 4), 1, true)
      assert.matches("queue:launcher: offset has 2 dimensions, global size 1",
        err_of(q.launcher, q, k, 4, nil, { offset = { 1, 1 } }), 1, true)
      assert.matches("queue:launcher: option 'offset': offset[1] must be a non-negative integer",
        err_of(q.launcher, q, k, 4, nil, { offset = { -1 } }), 1, true)
      assert.matches("unknown option 'evnt'; valid: offset, event", err_of(q.launcher, q, k, 4, nil, { evnt = false }), 1, true)
      assert.matches("queue:launcher: option 'wait' is queue:launch's", err_of(q.launcher, q, k, 4, nil, { wait = {} }), 1, true)
      assert.matches("table expected, got number", err_of(q.launcher, q, k, 4, nil, 5), 1, true)
      assert.matches("cl.kernel expected, got cl.buffer", err_of(q.launcher, q, ctx:buffer(64), 4), 1, true)
      assert.matches("cl.queue expected, got cl.kernel", err_of(q.launcher, k, k, 4), 1, true)
      local other = cl.context(dev):program(SRC, "kernels_spec.cl"):build():kernel("nothing")
      assert.matches("queue:launcher: clEnqueueNDRangeKernel failed: CL_INVALID_CONTEXT", err_of(q.launcher, q, other, 4), 1, true)
      local k2 = prog:kernel("nothing")
      k2:release()
      assert.matches("released cl.kernel", err_of(q.launcher, q, k2, 4), 1, true)
    end)

    it("refuses arguments, and a queue or kernel released since it was made", function()
      local k = prog:kernel("nothing")
      local go = q:launcher(k, 4)
      assert.matches("launcher: takes no arguments", err_of(go, 8), 1, true)
      local q2 = ctx:queue()
      local go2 = q2:launcher(k, 4)
      go2()
      q2:release()
      assert.matches("launcher: attempt to use a released cl.queue", err_of(go2), 1, true)
      local k2 = prog:kernel("nothing")
      local go3 = q:launcher(k2, 4)
      k2:release()
      assert.matches("launcher: attempt to use a released cl.kernel", err_of(go3), 1, true)
      go()
      q:finish()
    end)

    it("keeps its queue and kernel alive, and its events are released as q:launch's are", function()
      local go = ctx:queue():launcher(prog:kernel("nothing"), 4)
      collectgarbage()
      collectgarbage()
      go():wait()
      local function live() return cl.debug_counts().event.live end
      local q1 = ctx:queue()
      local g = q1:launcher(prog:kernel("nothing"), 1)
      q1:finish()
      collectgarbage()
      local before = live()
      for _ = 1, 2000 do g() end
      q1:finish()
      collectgarbage()
      collectgarbage()
      assert.equal(before, live())
    end)
  end)
end)
