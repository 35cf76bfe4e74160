-- cl platforms, devices, contexts, queues and the module functions; the
-- default device and CLUA_DEVICE (run through the clua binary under test as a
-- subprocess: $CLUA, else build/clua).
local cl = require("cl")

local CLUA = os.getenv("CLUA") or "build/clua"

local quote = require("spec.support.shell").quote

-- Runs clua with the given words and environment; returns exit code, stdout, stderr.
local function run(words, env)
  local err = os.tmpname()
  local parts = { "env", "-u", "CLUA_DEVICE" }
  for k, v in pairs(env or {}) do parts[#parts + 1] = quote(k .. "=" .. v) end
  parts[#parts + 1] = quote(CLUA)
  for _, w in ipairs(words) do parts[#parts + 1] = quote(w) end
  local p = io.popen(table.concat(parts, " ") .. " </dev/null 2>" .. quote(err))
  local out = p:read("a")
  local _, _, code = p:close()
  local f = io.open(err)
  local errtext = f:read("a")
  f:close()
  os.remove(err)
  return code, out, errtext
end

local function plain(s) return (s:gsub("%p", "%%%0")) end

describe("cl.platforms and devices", function()
  it("lists platforms with names, versions and 0-based indices", function()
    local ps = cl.platforms()
    assert.is_true(#ps >= 1)
    for i, p in ipairs(ps) do
      assert.equal(i - 1, p.index)
      assert.is_string(p.name)
      assert.is_true(#p.name > 0)
      assert.is_string(p.vendor)
      assert.matches("^OpenCL %d+%.%d+", p.version)
      assert.equal(("cl.platform %d: %s"):format(i - 1, p.name), tostring(p))
      assert.equal(p, cl.platforms()[i])
    end
  end)

  it("cl.devices() is every platform's devices, in order", function()
    local expect = {}
    for _, p in ipairs(cl.platforms()) do
      for _, d in ipairs(p:devices()) do expect[#expect + 1] = d end
    end
    local all = cl.devices()
    assert.equal(#expect, #all)
    assert.is_true(#all >= 1)
    for i = 1, #all do assert.is_true(all[i] == expect[i]) end
  end)

  it("picks the first GPU by default, else the first device", function()
    local all, gpu = cl.devices(), nil
    for _, d in ipairs(all) do
      if d.info.type == "GPU" then gpu = gpu or d end
    end
    local saved = os.getenv("CLUA_DEVICE")
    if saved and saved ~= "" then return end -- the run picked a device itself
    assert.is_true(cl.device() == (gpu or all[1]))
  end)

  it("selects by P:D indices and by a case-insensitive substring", function()
    local first = cl.platforms()[1]:devices()[1]
    assert.is_true(cl.device("0:0") == first)
    assert.is_true(cl.device(first.name:sub(2, 8):upper()) == first)
    assert.is_true(cl.device(cl.platforms()[1].name:lower()) == first)
  end)

  it("raises for an unknown selection, listing the devices there are", function()
    local ok, err = pcall(cl.device, "no such device 42")
    assert.is_false(ok)
    assert.matches("cl.device: no OpenCL device matches 'no such device 42' (from argument); the devices are:", err, 1, true)
    for i, p in ipairs(cl.platforms()) do
      for j, d in ipairs(p:devices()) do
        assert.matches(("\n  %d:%d  %s"):format(i - 1, j - 1, d.name), err, 1, true)
      end
    end
    assert.has_error(function() cl.device("7:7") end)
  end)

  describe("device.info", function()
    local d, info
    setup(function()
      d = cl.device()
      info = d.info
    end)

    it("has the documented fields with Lua types", function()
      for _, k in ipairs { "name", "vendor", "driver_version", "version", "opencl_c_version", "platform" } do
        assert.is_string(info[k], k)
      end
      assert.matches("^OpenCL %d", info.version)
      assert.matches("^OpenCL C %d", info.opencl_c_version)
      assert.is_truthy(({ GPU = 1, CPU = 1, ACCELERATOR = 1, CUSTOM = 1, DEFAULT = 1 })[info.type])
      for _, k in ipairs { "compute_units", "max_clock_mhz", "global_mem_size", "global_mem_cache_size",
                           "local_mem_size", "constant_mem_size", "max_mem_alloc_size", "max_work_group_size",
                           "max_work_item_dimensions", "timer_resolution_ns", "address_bits", "mem_base_addr_align" } do
        assert.is_true(math.type(info[k]) == "integer", k)
        assert.is_true(info[k] >= 0, k)
      end
      assert.is_true(info.compute_units >= 1)
      assert.is_true(info.max_mem_alloc_size >= 1 and info.max_mem_alloc_size <= info.global_mem_size)
      assert.is_true(info.max_work_group_size >= 1)
      assert.is_true(info.address_bits == 32 or info.address_bits == 64)
      for _, k in ipairs { "image_support", "double_support", "host_unified_memory" } do
        assert.is_boolean(info[k], k)
      end
    end)

    it("lists work-item sizes, vector widths and extensions", function()
      assert.equal(info.max_work_item_dimensions, #info.max_work_item_sizes)
      for _, s in ipairs(info.max_work_item_sizes) do assert.is_true(math.type(s) == "integer" and s >= 1) end
      for _, k in ipairs { "char", "short", "int", "long", "float", "double" } do
        assert.is_true(math.type(info.preferred_vector_width[k]) == "integer", k)
      end
      assert.is_table(info.extensions)
      for _, e in ipairs(info.extensions) do assert.matches("^cl_[%w_]+$", e) end
      local has = {}
      for _, e in ipairs(info.extensions) do has[e] = true end
      if has.cl_nv_device_attribute_query then
        assert.matches("^%d+%.%d+$", info.compute_capability)
        assert.is_true(info.warp_size >= 1)
      else
        assert.is_nil(info.compute_capability)
        assert.is_nil(info.warp_size)
      end
    end)

    it("has shortcuts, a cached table, tostring and equality", function()
      assert.equal(info.name, d.name)
      assert.equal(info.platform, d.platform)
      assert.equal(info.type, d.type)
      assert.equal(d.info, d.info)
      assert.equal(("cl.device: %s (%s)"):format(d.name, d.platform), tostring(d))
      assert.is_true(d == cl.device(d.name))
      assert.is_false(d == cl.platforms()[1])
    end)

    it("cl.nvml answers nil and a reason off NVIDIA", function()
      if d.info.vendor:match("NVIDIA") then return end
      local facts, why = cl.nvml(d)
      assert.is_nil(facts)
      assert.is_string(why)
    end)
  end)
end)

describe("cl.context and ctx:queue", function()
  it("makes a context from nothing, a device or a list", function()
    local d = cl.device()
    for _, ctx in ipairs { cl.context(), cl.context(d), cl.context { d } } do
      assert.is_true(ctx.device == d)
      local list = ctx.devices
      assert.equal(1, #list)
      assert.is_true(list[1] == d)
      list[1] = nil -- a copy: the context keeps its own
      assert.equal(1, #ctx.devices)
      assert.equal(("cl.context: %s"):format(d.name), tostring(ctx):match("^(.-) %("))
    end
  end)

  it("rejects what is not a device", function()
    assert.has_error(function() cl.context(5) end,
      "bad argument #1 to 'context' (cl.device or list of devices expected, got number)")
    local ok, err = pcall(cl.context, {})
    assert.is_false(ok)
    assert.matches("a list of 1 to 64 devices expected", err, 1, true)
    ok, err = pcall(cl.context, { cl.device(), "x" })
    assert.is_false(ok)
    assert.matches("cl.context: element 2 of the list is a string, not a cl.device", err, 1, true)
  end)

  it("makes queues with profiling on by default", function()
    local ctx = cl.context()
    local q = ctx:queue()
    assert.matches("^cl.queue: .*, profiling %(0x", tostring(q))
    assert.is_true(q.device == ctx.device)
    assert.equal(ctx, q.context)
    assert.equal(0, q.pending)
    assert.is_nil(q.nothing_of_that_name)
    assert.equal("function", type(q.launch))
    -- each queue has a metatable of its own (host/queue.c), whose __index
    -- table holds the methods and the queue's own context and device
    local ctx2 = cl.context()
    local q3 = ctx2:queue()
    assert.equal(ctx2, q3.context)
    assert.equal(ctx, q.context)
    assert.are_not.equal(getmetatable(q), getmetatable(q3))
    assert.equal(q.launch, q3.launch)
    assert.equal("cl.queue", getmetatable(q3).__name)
    assert.is_true(rawequal(q.device, q.device)) -- one device object, made with the queue
    assert.same({ "q3.context", "q3.copy", "q3.copy_rect" }, (function()
      _G.q3 = q3
      local c = require("clua.complete").candidates("q3.c")
      _G.q3 = nil
      return c
    end)())
    local q2 = ctx:queue(ctx.device, { profiling = false })
    assert.not_matches("profiling", tostring(q2))
    local e = q2:marker()
    e:wait()
    local ok, err = pcall(function() return e.start end)
    assert.is_false(ok)
    assert.matches("CL_PROFILING_INFO_NOT_AVAILABLE (the queue was made without profiling)", err, 1, true)
    assert.has_error(function() ctx:queue("fast") end)
  end)

  it("makes an out-of-order queue or says the device has none", function()
    local ctx = cl.context()
    local ok, q = pcall(ctx.queue, ctx, { out_of_order = true })
    if ok then
      assert.matches("out of order", tostring(q))
    else
      assert.matches("ctx:queue: clCreateCommandQueue failed: CL_INVALID_QUEUE_PROPERTIES", q, 1, true)
    end
  end)
end)

describe("module functions", function()
  it("cl.now is a monotonic integer clock in ns", function()
    local a = cl.now()
    local b = cl.now()
    assert.is_true(math.type(a) == "integer")
    assert.is_true(b >= a)
    local t0 = cl.now()
    local x = 0
    for i = 1, 200000 do x = x + i end
    assert.is_true(cl.now() > t0)
  end)

  it("cl.error_name names OpenCL error codes", function()
    assert.equal("CL_SUCCESS", cl.error_name(0))
    assert.equal("CL_OUT_OF_RESOURCES", cl.error_name(-5))
    assert.equal("CL_BUILD_PROGRAM_FAILURE", cl.error_name(-11))
    assert.equal("CL_INVALID_VALUE", cl.error_name(-30))
    assert.equal("CL_INVALID_WORK_GROUP_SIZE", cl.error_name(-54))
    assert.is_nil(cl.error_name(-12345))
    assert.has_error(function() cl.error_name("x") end)
  end)

  it("cl.types lists every array type", function()
    local set = {}
    for _, t in ipairs(cl.types) do set[t] = true end
    for _, t in ipairs { "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "half", "float",
                         "double", "float2", "float4", "double2", "int2", "int4", "uint2", "uint4", "uchar4" } do
      assert.is_true(set[t], t)
    end
  end)
end)

describe("CLUA_DEVICE and --devices (subprocess)", function()
  local first
  setup(function() first = cl.platforms()[1]:devices()[1] end)

  it("selects the device for every script", function()
    local script = "print(require('cl').device().name)"
    local code, out = run({ "-e", script }, { CLUA_DEVICE = "0:0" })
    assert.equal(0, code)
    assert.equal(first.name .. "\n", out)
    code, out = run({ "-e", script }, { CLUA_DEVICE = cl.platforms()[1].name:sub(1, 6):lower() })
    assert.equal(0, code)
    assert.equal(first.name .. "\n", out)
  end)

  it("an unknown name is an error listing the devices", function()
    local code, out, err = run({ "-e", "print(require('cl').device().name)" }, { CLUA_DEVICE = "no-such-gpu" })
    assert.is_not.equal(0, code)
    assert.equal("", out)
    assert.matches("no OpenCL device matches 'no-such-gpu' (from CLUA_DEVICE); the devices are:", err, 1, true)
    assert.matches("\n  0:0  " .. plain(first.name), err)
  end)

  it("clua --devices lists platforms and devices with indices", function()
    local code, out = run({ "--devices" })
    assert.equal(0, code)
    for i, p in ipairs(cl.platforms()) do
      assert.matches(("Platform #%d: %s"):format(i - 1, p.name), out, 1, true)
      for j, d in ipairs(p:devices()) do
        assert.matches(("Device #%d: %s (%s, %d:%d)"):format(j - 1, d.name, d.info.type, i - 1, j - 1), out, 1, true)
      end
    end
  end)
end)
