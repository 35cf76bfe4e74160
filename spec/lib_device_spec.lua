package.path = "lua/?.lua;" .. package.path
local device = require("clua.device")

local has_cl, cl = pcall(require, "cl")

local h100 = { info = { name = "NVIDIA H100 80GB HBM3", vendor = "NVIDIA Corporation",
  platform = "NVIDIA CUDA", driver_version = "580.159.04", version = "OpenCL 3.0 CUDA",
  type = "GPU", compute_units = 132, max_clock_mhz = 1980, global_mem_size = 80 * 2 ^ 30,
  local_mem_size = 49152, max_work_group_size = 1024, max_work_item_sizes = { 1024, 1024, 64 },
  timer_resolution_ns = 1000, compute_capability = "9.0", warp_size = 32 } }
local nvml = { memory_clock_mhz = 2619, bus_width = 5120, pcie_gen = 5, pcie_width = 16 }

describe("clua.device", function()
  it("computes the theoretical memory bandwidth: 2 x clock x bus width / 8", function()
    local f = device.facts(h100, { nvml = nvml })
    assert.near(3.352e12, f.memory_bps, 1e9)
    assert.equal(3352320000000, math.tointeger(f.memory_bps))
    assert.equal("NVIDIA H100 80GB HBM3", f.name)
    assert.equal("580.159.04", f.driver)
    assert.equal(132, f.compute_units)
  end)

  it("computes PCIe per direction from generation and width", function()
    local f = device.facts(h100, { nvml = nvml })
    assert.near(63.0e9, f.pcie_bps, 0.1e9)
    assert.near(15.76e9, device.pcie_bps(3, 16), 0.01e9)
    assert.near(31.5e9, device.pcie_bps(4, 16), 0.01e9)
    assert.is_nil(device.pcie_bps(nil, 16))
  end)

  it("gives a percentage of the theoretical figure, nil when unknown", function()
    local f = device.facts(h100, { nvml = nvml })
    assert.near(100, f:pct_of_theoretical(3352.32), 1e-9)
    assert.near(50, f:pct_of_theoretical(f.pcie_bps / 2e9, "pcie"), 1e-9)
    assert.near(100, f:pct_of_theoretical(f.memory_bps / 2 ^ 30, "memory", 2 ^ 30), 1e-9)
    local u = device.facts(h100, { nvml = false, why = "no NVML here" })
    assert.is_nil(u:pct_of_theoretical(1000))
    assert.is_nil(u:pct_of_theoretical(10, "pcie"))
    assert.matches("^unknown %(no NVML here%)", u:describe_theoretical("memory"))
  end)

  it("describes the device in labelled lines", function()
    local text = device.facts(h100, { nvml = nvml }):text()
    assert.matches("device: +NVIDIA H100 80GB HBM3 %(NVIDIA CUDA%)", text)
    assert.matches("compute capability: 9.0, warp 32", text)
    assert.matches("theoretical memory: 3352 GB/s %(2 x 2619 MHz x 5120 bit / 8%)", text)
    assert.matches("theoretical PCIe: +63.01 GB/s per direction %(PCIe gen5 x16%)", text)
    assert.matches("80 GiB global", text)
  end)

  if has_cl then
    it("reads the facts of the default device, saying unknown without NVML", function()
      local d = cl.device()
      local f = device.facts(d)
      assert.equal(d.info.name, f.name)
      local list, found = device.platform_devices(d), false
      for _, x in ipairs(list) do found = found or x == d end
      assert.is_true(found)
      assert.are.same({ h100 }, device.platform_devices(h100)) -- no platform lists it
      assert.is_number(f.compute_units)
      assert.is_string(f:text())
      if not f.memory_bps then
        assert.is_nil(f:pct_of_theoretical(1))
        assert.matches("^unknown", f:describe_theoretical())
      end
    end)
  end
end)
