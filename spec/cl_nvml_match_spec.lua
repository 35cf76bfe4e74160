-- cl.nvml finds the OpenCL device's GPU among every GPU NVML knows (issue 36:
-- on a four-H200 host no device matched, and each said "theoretical memory
-- bandwidth: unknown"): by UUID (cl_khr_device_uuid against
-- nvmlDeviceGetUUID, in any case), else by PCI domain and bus, whatever
-- format NVML writes its bus id in. A stand-in libnvidia-ml.so.1 (built here
-- from spec/fixtures/nvml/standin.c) holds four GPUs; cl.nvml is given the
-- identifiers an NVIDIA device would give, as a table.
local support = require("spec.support.recipe")

local function have_cc() return os.execute("command -v cc >/dev/null 2>&1") end

describe("cl.nvml against a stand-in NVML with four GPUs", function()
  local dir

  setup(function()
    if not have_cc() then return end
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. dir))
    assert(os.execute(("cc -shared -fPIC -o %s/libnvidia-ml.so.1 spec/fixtures/nvml/standin.c"):format(dir)))
  end)

  teardown(function() if dir then os.execute("rm -rf " .. dir) end end)

  -- Runs `code` (Lua, printing what it finds) under the stand-in NVML.
  local function nvml(code)
    local f = assert(io.popen(("LD_LIBRARY_PATH=%s %s -e %s 2>&1"):format(dir, support.clua,
      ("'local cl = require \"cl\" %s'"):format(code))))
    local out = f:read("a")
    f:close()
    return out
  end

  it("matches by UUID, in either case, and gives the GPU's facts", function()
    if not dir then return pending("no C compiler") end
    local out = nvml([[local t = assert(cl.nvml{ uuid = "gpu-abcdef02-1111-2222-3333-444455556662" })
      print(t.matched_by, t.index, t.pci_bus_id, t.gpu_name, t.memory_clock_mhz, t.bus_width, #t.nvlinks)]])
    assert.are.equal("uuid\t2\t00000000:52:00.0\tNVIDIA H200 (stand-in 2)\t3201\t6144\t18\n", out)
  end)

  it("matches by PCI domain and bus where there is no UUID (NVIDIA's slot id is device << 3)", function()
    if not dir then return pending("no C compiler") end
    assert.are.equal("pci bus id\t1\n", nvml([[local t = assert(cl.nvml{ pci_domain = 0, pci_bus = 0x43, pci_slot = 0 })
      print(t.matched_by, t.index)]]))
    -- a driver that gives no domain
    assert.are.equal("pci bus id\t3\n", nvml([[local t = assert(cl.nvml{ pci_bus = 0x61, pci_slot = 0 })
      print(t.matched_by, t.index)]]))
  end)

  it("says why where no GPU matches, rather than taking another", function()
    if not dir then return pending("no C compiler") end
    local out = nvml([[print(cl.nvml{ uuid = "GPU-00000000-0000-0000-0000-000000000000", pci_domain = 1, pci_bus = 0x43 })]])
    assert.matches("nil\tNVML knows no GPU matching this device (4 GPUs; uuid GPU-00000000", out, 1, true)
  end)

  it("lists the active NVLinks and the common ancestor with every other GPU", function()
    if not dir then return pending("no C compiler") end
    local out = nvml([[local t = assert(cl.nvml{ pci_bus = 0x61 })
      local n = 0; for k, v in pairs(t.topology) do n = n + 1 end
      print(#t.nvlinks, t.nvlinks[1].type, t.nvlinks[1].remote, n, t.topology["00000000:1B:00.0"],
        t.topology["00000000:52:00.0"])]])
    assert.are.equal("14\t2\t00000000:05:00.0\t3\t50\t40\n", out)
  end)

  it("gives clua.device the bounds and the link of a pair: NV14 through NVSwitches, SYS", function()
    if not dir then return pending("no C compiler") end
    local out = nvml([[local device = require "clua.device"
      local function f(bus) local nv = assert(cl.nvml{ pci_bus = bus })
        return { nvml = nv, memory_bps = device.memory_bps(nv.memory_clock_mhz, nv.bus_width) } end
      local a, b = f(0x1b), f(0x61)
      local l = device.link(a, b, "/nonexistent")
      print(l.text, l.level, ("%.1f"):format(a.memory_bps / 1e9))]])
    assert.are.equal("NV14\tSYS\t4916.7\n", out) -- 2 x 3201 MHz x 6144 bits / 8
  end)
end)
