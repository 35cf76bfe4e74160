package.path = "lua/?.lua;" .. package.path
local occupancy = require("clua.occupancy")

local has_cl, cl = pcall(require, "cl")

local h100 = { info = { name = "NVIDIA H100 80GB HBM3", vendor = "NVIDIA Corporation", type = "GPU",
  compute_units = 132, local_mem_size = 49152, max_work_group_size = 1024, compute_capability = "9.0",
  warp_size = 32, registers_per_block = 65536,
  extensions = { "cl_khr_fp64", "cl_nv_device_attribute_query", "cl_nv_compiler_options" } } }

local function cc(v) return occupancy.limits({ info = { type = "GPU" } }, { cc = v }) end

describe("clua.occupancy", function()
  it("Hopper, 64 registers, 256 work-items: 4 groups, 50%, limited by registers", function()
    local r = occupancy.calculate(occupancy.limits(h100), { threads = 256, registers = 64, local_mem = 0 })
    assert.equal(4, r.groups)
    assert.equal(8, r.warps_per_group)
    assert.equal(32, r.active_warps)
    assert.equal(64, r.max_warps)
    assert.near(0.5, r.occupancy, 1e-12)
    assert.equal("registers", r.limiter)
    assert.equal(8, r.by.warps)
    assert.equal(32, r.by.groups)
    assert.matches("^50%% %(4 groups x 8 warps = 32 of 64 warps%), limited by registers", occupancy.summary(r))
  end)

  it("Hopper, few registers: warps limit at 256, groups limit at 32 work-items", function()
    local L = occupancy.limits(h100)
    local r = occupancy.calculate(L, { threads = 256, registers = 16 })
    assert.equal(8, r.groups)
    assert.equal(1, r.occupancy)
    assert.equal("warps", r.limiter)
    r = occupancy.calculate(L, { threads = 32, registers = 16 })
    assert.equal(32, r.groups)
    assert.near(0.5, r.occupancy, 1e-12)
    assert.equal("groups", r.limiter)
    r = occupancy.calculate(L, { threads = 1024, registers = 32 })
    assert.equal(2, r.groups)
    assert.equal("warps = registers", r.limiter)
  end)

  it("Hopper local memory: 1 KiB reserved per group, 128-byte units, 228 KiB per SM", function()
    local L = occupancy.limits(h100)
    local r = occupancy.calculate(L, { threads = 64, registers = 16, local_mem = 48 * 1024 })
    assert.equal(49 * 1024, r.local_alloc)
    assert.equal(4, r.groups) -- 228 / 49
    assert.equal("local memory", r.limiter)
    assert.near(8 / 64, r.occupancy, 1e-12)
    r = occupancy.calculate(L, { threads = 64, registers = 16, local_mem = 100 })
    assert.equal(1152, r.local_alloc) -- 100 + 1024 rounded up to 128
    -- OpenCL on the H100 reports 48 KiB per group: more does not fit
    r = occupancy.calculate(L, { threads = 64, registers = 16, local_mem = 49 * 1024 })
    assert.is_false(r.fits)
    assert.equal(0, r.occupancy)
    assert.matches("exceed", r.why)
  end)

  it("reproduces the guide's 4.2 examples (compute capability 1.0, 12 registers)", function()
    local L = cc("1.0")
    local r = occupancy.calculate(L, { threads = 128, registers = 12 })
    assert.equal(5, r.groups)
    assert.equal("83", ("%.0f"):format(100 * r.occupancy))
    r = occupancy.calculate(L, { threads = 256, registers = 12 })
    assert.equal(2, r.groups)
    assert.equal("67", ("%.0f"):format(100 * r.occupancy))
    assert.equal("registers", r.limiter)
  end)

  it("reproduces the lecture's calculator (1.1, 256 threads, 4 KiB): 10 -> 11 registers, 3 -> 2 blocks", function()
    local L = cc("1.1")
    local r = occupancy.calculate(L, { threads = 256, registers = 10, local_mem = 4096 })
    assert.equal(3, r.groups)
    assert.equal(768, r.active_threads)
    assert.equal(1, r.occupancy)
    r = occupancy.calculate(L, { threads = 256, registers = 11, local_mem = 4096 })
    assert.equal(2, r.groups)
    assert.equal(512, r.active_threads)
    assert.equal(16, r.active_warps)
    assert.equal("registers", r.limiter)
  end)

  it("the guide's 4.4: 512 threads on 1.1 give 66%, 256 give 100%", function()
    local L = cc("1.1")
    assert.near(2 / 3, occupancy.calculate(L, { threads = 512, registers = 8 }).occupancy, 1e-12)
    assert.equal(1, occupancy.calculate(L, { threads = 256, registers = 8 }).occupancy)
  end)

  it("Ampere, Ada, Volta, Turing limits", function()
    local r = occupancy.calculate(cc("8.6"), { threads = 1024, registers = 16 })
    assert.equal(1, r.groups) -- 48 warps per SM
    assert.near(32 / 48, r.occupancy, 1e-12)
    r = occupancy.calculate(cc("8.9"), { threads = 32, registers = 16 })
    assert.equal(24, r.groups)
    assert.equal("groups", r.limiter)
    r = occupancy.calculate(cc("7.5"), { threads = 1024, registers = 32 })
    assert.equal(1, r.groups)
    assert.equal(1, r.occupancy)
    r = occupancy.calculate(cc("8.0"), { threads = 256, registers = 32, local_mem = 40 * 1024 })
    assert.equal(4, r.groups) -- 164 KiB / 41 KiB
    assert.equal("local memory", r.limiter)
    r = occupancy.calculate(cc("7.0"), { threads = 128, registers = 255 })
    assert.equal(2, r.groups) -- 8192 regs per warp: 2 warps per partition
  end)

  it("an unknown capability takes the nearest earlier one, and says so", function()
    local arch, used, exact = occupancy.architecture("8.7")
    assert.equal("8.6", used)
    assert.is_false(exact)
    assert.equal(occupancy.architectures["8.6"], arch)
    local _, used2 = occupancy.architecture("12.0")
    assert.equal("9.0", used2)
    assert.matches("assumed like 9.0", cc("10.0").source)
  end)

  it("falls back to the OpenCL query for other devices, stating it", function()
    local cpu = { info = { name = "cpu", type = "CPU", vendor = "x", compute_units = 2, local_mem_size = 65536,
      max_work_group_size = 4096 } }
    local L = occupancy.limits(cpu)
    assert.is_true(L.fallback)
    assert.matches("OpenCL device query only", L.source)
    assert.matches("occupancy does not apply", L.source)
    local r = occupancy.calculate(L, { threads = 256, local_mem = 16384, warp_size = 8 })
    assert.equal(4, r.groups)
    assert.equal("local memory", r.limiter)
    assert.near(1024 / 4096, r.occupancy, 1e-12)
    assert.is_nil(r.by.registers)
  end)

  it("reads registers from an NVIDIA -cl-nv-verbose log", function()
    local log = table.concat({
      "ptxas info    : 0 bytes gmem",
      "ptxas info    : Compiling entry function 'copy' for 'sm_90'",
      "ptxas info    : Function properties for copy",
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads",
      "ptxas info    : Used 8 registers, 368 bytes cmem[0]",
      "ptxas info    : Compiling entry function 'chain' for 'sm_90'",
      "ptxas info    : Function properties for chain",
      "    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads",
      "ptxas info    : Used 40 registers, used 1 barriers, 376 bytes cmem[0]",
    }, "\n")
    assert.equal(8, occupancy.registers(log, "copy"))
    local n, st, ld = occupancy.registers(log, "chain")
    assert.equal(40, n)
    assert.equal(4, st)
    assert.equal(12, ld)
    assert.is_nil(occupancy.registers(log, "other"))
    assert.is_nil(occupancy.registers("", "copy"))
    assert.equal("-cl-nv-verbose", occupancy.build_options(h100))
    assert.is_nil(occupancy.build_options({ info = { type = "CPU", extensions = {} } }))
  end)

  it("explains a kernel given as attributes, naming the limit", function()
    local kernel = { name = "k", program = { log = "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
      .. "ptxas info    : Used 64 registers, 368 bytes cmem[0]\n" },
      info = function() return { work_group_size = 1024, preferred_work_group_size_multiple = 32,
        local_mem_size = 0, private_mem_size = 0 } end }
    local text = occupancy.explain(kernel, h100, 256)
    assert.matches("occupancy of kernel k", text)
    assert.matches("registers: 64 per work%-item %(%-cl%-nv%-verbose build log%)", text)
    assert.matches("registers +4 .*<%- limit", text)
    assert.matches("=> 50%%", text)
    local r = occupancy.of(kernel, h100, 256, { registers = 32 })
    assert.equal(1, r.occupancy)
    assert.equal("given", r.usage.registers_from)
    r = occupancy.of(kernel, h100, 2048)
    assert.is_false(r.fits)
  end)

  if has_cl then
    it("explains a real kernel on the default device", function()
      local d = cl.device()
      local ctx = cl.context(d)
      local p = ctx:program("__kernel void f(__global float *a, __local float *s) {"
        .. " s[get_local_id(0)] = a[get_global_id(0)]; a[get_global_id(0)] = s[get_local_id(0)] + 1.0f; }")
      p:build(occupancy.build_options(d))
      local k = p:kernel("f")
      k:arg(1, cl["local"](4096))
      local r = occupancy.of(k, d, 64)
      assert.is_true(r.fits, occupancy.explain(k, d, 64))
      assert.is_true(r.local_mem >= 4096)
      assert.is_true(r.occupancy > 0 and r.occupancy <= 1)
      assert.matches("=> %d+%%", occupancy.explain(k, d, 64))
    end)
  end
end)
