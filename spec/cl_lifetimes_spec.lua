-- cl lifetimes and errors: every type released exactly once through
-- :release(), __close or __gc; use after release raises "attempt to use a
-- released cl.X"; objects keep alive what they depend on; OpenCL failures
-- raise "METHOD: CALL failed: CL_NAME (detail)".
local cl = require("cl")

local function err_of(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  return tostring(err)
end

local function released(name, f, ...)
  assert.matches("attempt to use a released cl." .. name, err_of(f, ...), 1, true)
end

local SRC = "kernel void put(global int *o, int v) { o[get_global_id(0)] = v; }\n"

describe("cl lifetimes", function()
  local ctx, q
  setup(function()
    ctx = cl.context()
    q = ctx:queue()
  end)

  describe("use after release", function()
    it("cl.context", function()
      local c = cl.context()
      c:release()
      c:release()
      assert.equal("cl.context (released)", tostring(c))
      released("context", function() return c.devices end)
      released("context", function() return c:queue() end)
      released("context", function() return c:buffer(16) end)
      released("context", function() return c:program(SRC) end)
      released("context", function() return c:user_event() end)
    end)

    it("cl.queue", function()
      local q2 = ctx:queue()
      q2:release()
      q2:release()
      assert.equal("cl.queue (released)", tostring(q2))
      local b = ctx:buffer(16)
      released("queue", q2.finish, q2)
      released("queue", q2.flush, q2)
      released("queue", q2.write, q2, b, cl.array("int", 4))
      released("queue", q2.read, q2, b, cl.array("int", 4))
      released("queue", q2.fill, q2, b, 0)
      released("queue", q2.marker, q2)
      released("queue", q2.launch, q2, ctx:program(SRC):build():kernel("put"), 1)
      released("queue", function() return q2.device end)
      released("queue", function() return q2.context end)
      released("queue", function() return q2.pending end)
      released("queue", function() return q2.anything end)
    end)

    it("cl.buffer", function()
      local b = ctx:buffer(16)
      b:release()
      b:release()
      assert.equal("cl.buffer (released)", tostring(b))
      released("buffer", function() return b.size end)
      released("buffer", q.write, q, b, cl.array("int", 4))
      released("buffer", q.read, q, b, cl.array("int", 4))
      released("buffer", q.copy, q, b, ctx:buffer(16))
      released("buffer", q.copy, q, ctx:buffer(16), b)
      released("buffer", q.fill, q, b, 1)
      released("buffer", q.map, q, b)
      released("buffer", q.write_rect, q, b, cl.array("int", 4), { region = { 16, 1, 1 } })
      released("buffer", function() return b:sub(0, 8) end)
      local k = ctx:program(SRC):build():kernel("put")
      assert.matches("kernel:arg: argument 0 (the 1st, int* o) of 'put' is a released cl.buffer", err_of(k.arg, k, 0, b), 1, true)
    end)

    it("cl.program", function()
      local p = ctx:program(SRC)
      p:release()
      p:release()
      assert.equal("cl.program (released)", tostring(p))
      released("program", function() return p.log end)
      released("program", function() return p:build() end)
      released("program", function() return p:kernel("put") end)
    end)

    it("cl.kernel", function()
      local k = ctx:program(SRC):build():kernel("put")
      k:release()
      k:release()
      assert.equal("cl.kernel (released)", tostring(k))
      released("kernel", function() return k.name end)
      released("kernel", function() return k:arg(1, 1) end)
      released("kernel", function() return k:info() end)
      released("kernel", q.launch, q, k, 1)
    end)

    it("cl.event", function()
      local e = q:marker()
      e:release()
      e:release()
      assert.equal("cl.event (released)", tostring(e))
      released("event", function() return e.status end)
      released("event", function() return e:wait() end)
      assert.matches("queue:read: wait[1] is a released cl.event",
        err_of(q.read, q, ctx:buffer(4), cl.array("int", 1), { wait = { e } }), 1, true)
      assert.matches("attempt to use a released cl.event", err_of(cl.wait, e), 1, true)
      assert.matches("cl.wait: wait[1] is a released cl.event", err_of(cl.wait, { e }), 1, true)
    end)

    it("cl.array", function()
      local a = cl.array("int", 4)
      a:release()
      a:release()
      assert.equal("cl.array: int (released)", tostring(a))
      released("array", function() return a[0] end)
      released("array", q.write, q, ctx:buffer(16), a)
      released("array", function() return ctx:buffer(a) end)
    end)

    it("cl.image and cl.sampler, where the device has images", function()
      if not ctx.device.info.image_support then return end
      local img, s = ctx:image2d { width = 4, height = 4 }, ctx:sampler {}
      img:release()
      s:release()
      img:release()
      s:release()
      assert.equal("cl.image (released)", tostring(img))
      assert.equal("cl.sampler (released)", tostring(s))
      released("image", function() return img.width end)
      released("sampler", function() return s.filter end)
    end)
  end)

  describe("__close at scope exit", function()
    it("releases every type", function()
      local seen = {}
      do
        local c <close> = cl.context()
        local q2 <close> = c:queue()
        local b <close> = c:buffer(64)
        local p <close> = c:program(SRC):build()
        local k <close> = p:kernel("put")
        local a <close> = cl.array("int", 16)
        local e <close> = q2:launch(k:args(b, 5), 16)
        local ue <close> = c:user_event()
        q2:read(b, a)
        assert.equal(5, a[15])
        seen = { c, q2, b, p, k, a, e, ue }
        for _, o in ipairs(seen) do assert.not_matches("released", tostring(o)) end
      end
      for _, o in ipairs(seen) do assert.matches("released", tostring(o)) end
    end)

    it("releases when the scope ends with an error", function()
      local b
      local ok = pcall(function()
        local inner <close> = ctx:buffer(16)
        b = inner
        error("boom")
      end)
      assert.is_false(ok)
      assert.equal("cl.buffer (released)", tostring(b))
    end)
  end)

  describe("dependencies stay alive", function()
    it("a buffer, queue and program keep their context", function()
      local b, q2, p
      do
        local c = cl.context()
        b, q2, p = c:buffer(cl.array("int", 4):ramp(1)), c:queue(), c:program(SRC)
      end
      collectgarbage()
      collectgarbage()
      assert.equal(b.context, q2.context)
      assert.equal(b.context, p.context)
      local k = p:build():kernel("put"):args(b, 9)
      q2:launch(k, 2)
      local r = cl.array("int", 4)
      q2:read(b, r)
      assert.same({ 9, 9, 3, 4 }, r:totable())
    end)

    it("objects made from a released context keep working", function()
      local c = cl.context()
      local q2, b = c:queue(), c:buffer(16)
      c:release()
      q2:write(b, cl.array("int", 4):fill(3))
      local r = cl.array("int", 4)
      q2:read(b, r)
      assert.same({ 3, 3, 3, 3 }, r:totable())
    end)

    it("a kernel keeps its program, even released", function()
      local p = ctx:program(SRC):build()
      local k = p:kernel("put")
      p:release()
      local b = ctx:buffer(4)
      q:launch(k:args(b, 7), 1)
      local r = cl.array("int", 1)
      q:read(b, r)
      assert.equal(7, r[0])
    end)

    it("events outlive their queue and kernel", function()
      local e
      do
        local q2 = ctx:queue()
        local k = ctx:program(SRC):build():kernel("put")
        e = q2:launch(k:args(ctx:buffer(64), 1), 16)
        q2:release()
      end
      collectgarbage()
      collectgarbage()
      assert.equal("complete", e:wait().status)
      assert.is_true(e.duration >= 0)
    end)

    it("garbage collects a web of objects without harm", function()
      for _ = 1, 20 do
        local c = cl.context()
        local q2 = c:queue()
        local b = c:buffer(cl.array("float", 1024):random(1))
        local v = q2:map(b, { type = "float" })
        local s = v:slice(10, 10)
        local k = c:program(SRC):build():kernel("put")
        k:args(c:buffer(4096), 3)
        q2:launch(k, 1024)
        q2:read(b, cl.array("float", 1024), { blocking = false })
        local _ = s[0]
      end
      collectgarbage()
      collectgarbage()
    end)
  end)

  describe("error messages", function()
    it("name the method, the OpenCL call and the error", function()
      local cases = {
        err_of(ctx.buffer, ctx, ctx.device.info.max_mem_alloc_size + 1),
        (function() local b = ctx:buffer(16); return err_of(q.copy, q, b, b) end)(),
        err_of(q.write, q, ctx:buffer(16, "host_no_access"), cl.array("int", 4)),
        err_of(ctx:program("kernel void z(void) {}").kernel, ctx:program("kernel void z(void) {}"), "z"),
        err_of(q.launch, q, ctx:program("kernel void z(void) {}"):build():kernel("z"), 10, 4),
        err_of(ctx:user_event():complete().complete, ctx:user_event():complete()),
      }
      for _, msg in ipairs(cases) do
        assert.matches("^[%w_.:]+: cl%u%w+ failed: CL_[%u_]+", msg)
      end
      assert.matches("^ctx:buffer: clCreateBuffer failed: CL_INVALID_BUFFER_SIZE %(size %d+ bytes exceeds", cases[1])
      assert.matches("^queue:copy: clEnqueueCopyBuffer failed: CL_MEM_COPY_OVERLAP %(", cases[2])
      assert.matches("queue:launch: clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE %(", cases[5])
    end)

    it("carry the caller's position when raised from Lua code", function()
      local b = ctx:buffer(16)
      b:release()
      local ok, err = pcall(function() return q:write(b, cl.array("int", 4)) end)
      assert.is_false(ok)
      assert.matches("cl_lifetimes_spec.lua:%d+: bad argument #1 to 'write' %(attempt to use a released cl.buffer%)", err)
    end)

    it("wrong Lua types are argument errors", function()
      assert.matches("bad argument #1 to 'finish' (cl.queue expected, got cl.buffer)",
        err_of(function() local b = ctx:buffer(4); return q.finish(b) end), 1, true)
      assert.matches("bad argument #1 to 'write' (cl.buffer expected, got number)", -- #1: Lua counts a method's arguments after self
        err_of(function() return q:write(5, cl.array("int", 1)) end), 1, true)
      assert.matches("cl.array expected, got no value", err_of(function() return q:read(ctx:buffer(4)) end), 1, true)
    end)
  end)

  -- OpenCL asks drivers to refuse these; PoCL does, others may not check
  -- (and crash or use the wrong memory), so clua refuses them itself.
  describe("objects of another context", function()
    local other, ob, ok, oe
    setup(function()
      other = cl.context()
      ob = other:buffer(64)
      ok = other:program(SRC):build():kernel("put")
      oe = other:queue():marker()
    end)

    local function refused(code, what, f)
      local err = err_of(f)
      assert.matches(code .. " (" .. what .. " is of another context than ", err, 1, true)
      return err
    end

    it("are refused by every queue command, naming the call", function()
      local a = cl.array("int", 4)
      assert.matches("queue:write: clEnqueueWriteBuffer failed: CL_INVALID_CONTEXT",
        refused("CL_INVALID_CONTEXT", "the buffer", function() return q:write(ob, a) end))
      refused("CL_INVALID_CONTEXT", "the buffer", function() return q:read(ob, a, { blocking = false }) end)
      refused("CL_INVALID_CONTEXT", "the buffer", function() return q:copy(ctx:buffer(64), ob) end)
      refused("CL_INVALID_CONTEXT", "the buffer", function() return q:copy(ob, ctx:buffer(64)) end)
      refused("CL_INVALID_CONTEXT", "the buffer", function() return q:fill(ob, 0, { type = "int" }) end)
      refused("CL_INVALID_CONTEXT", "the buffer", function() return q:map(ob) end)
      refused("CL_INVALID_CONTEXT", "the buffer", function() return q:read_rect(ob, a, { region = { 16, 1, 1 } }) end)
      refused("CL_INVALID_CONTEXT", "the buffer", function() return q:copy_rect(ob, ctx:buffer(64), { region = { 16, 1, 1 } }) end)
      local oq = other:queue()
      local view = oq:map(ob)
      assert.matches("queue:unmap: clEnqueueUnmapMemObject failed",
        refused("CL_INVALID_CONTEXT", "the view's buffer", function() return q:unmap(view) end))
      oq:unmap(view)
      oq:finish()
      assert.matches("queue:launch: clEnqueueNDRangeKernel failed",
        refused("CL_INVALID_CONTEXT", "the kernel", function() return q:launch(ok:args(ob, 1), 1) end))
    end)

    it("are refused as kernel arguments and in wait lists", function()
      local k = ctx:program(SRC):build():kernel("put")
      assert.matches("kernel:arg: clSetKernelArg failed",
        refused("CL_INVALID_MEM_OBJECT", "the buffer", function() return k:arg(0, ob) end))
      refused("CL_INVALID_MEM_OBJECT", "the buffer", function() return k:args(ob, 1) end)
      k:args(ctx:buffer(64), 1)
      assert.matches("queue:launch: wait[1] is an event of another context (CL_INVALID_CONTEXT)",
        err_of(function() return q:launch(k, 1, nil, { wait = { oe } }) end), 1, true)
      assert.matches("queue:write: wait[2] is an event of another context",
        err_of(function() return q:write(ctx:buffer(16), cl.array("int", 4), { wait = { q:marker(), oe } }) end), 1, true)
      assert.matches("cl.wait: wait[2] is an event of another context",
        err_of(function() return cl.wait { q:marker(), oe } end), 1, true)
      cl.wait { oe } -- one context: fine
      q:finish()
    end)
  end)

  -- spec/support/oom_shim.c, preloaded: a driver with room for 4 contexts.
  -- NVIDIA's refuses a context once dropped ones hold the GPU's memory, and
  -- Lua's collector does not see that memory.
  describe("a creation refused for want of memory", function()
    local CLUA = os.getenv("CLUA") or "build/clua"
    local shim
    setup(function()
      shim = os.tmpname() .. ".so"
      if not os.execute("command -v cc >/dev/null") then return end
      assert(os.execute(("cc -shared -fPIC -O1 -o %s spec/support/oom_shim.c -ldl"):format(shim)))
    end)
    teardown(function() os.remove(shim) end)

    it("collects the objects the script dropped and tries once more; else raises the driver's error", function()
      local built = io.open(shim)
      if not built then pending("no C compiler here to build spec/support/oom_shim.c"); return end
      built:close()
      local script = os.tmpname()
      local f = assert(io.open(script, "w"))
      f:write([[
local cl = require("cl")
local dev = cl.device()
for i = 1, 50 do cl.context(dev):buffer(64) end -- each dropped at once
print("made 50")
local keep = {}
local ok, err = pcall(function() for i = 1, 5 do keep[i] = cl.context(dev) end end)
print(#keep, err)
]])
      f:close()
      local p = assert(io.popen(("LD_PRELOAD=%s ASAN_OPTIONS=verify_asan_link_order=0:${ASAN_OPTIONS:-} %s %s 2>&1; echo \"exit=$?\"")
        :format(shim, CLUA, script)))
      local out = p:read("a")
      p:close()
      os.remove(script)
      assert.matches("made 50\n4\t[^\n]*cl.context: clCreateContext failed: CL_OUT_OF_HOST_MEMORY\n", out)
      assert.matches("exit=0%s*$", out)
    end)
  end)
end)
