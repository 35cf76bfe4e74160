-- Between two GPUs (issue 36): whether an event timed the bytes (bounds.agree),
-- the bound of a pair (bounds.link: NVLink from NVML, else PCIe), and what
-- joins a pair (device.link, from made-up NVML facts as cl.nvml gives them).
package.path = "lua/?.lua;" .. package.path
local bounds = require("clua.bounds")
local device = require("clua.device")

local MiB256 = 256 * 2^20

describe("bounds.agree", function()
  it("refuses the H200's copy event: ~1800 GB/s where the host clock saw 1.2 GB/s", function()
    local ev, host = {}, {}
    for k = 1, 5 do ev[k], host[k] = MiB256 / 1800, MiB256 / 1.2 end -- ns
    local ok, why = bounds.agree(ev, host)
    assert.is_false(ok)
    assert.are.equal("short", why)
  end)

  it("refuses a migration event of 0 ns", function()
    local ok, why = bounds.agree({ 0, 0, 0 }, { 2e8, 2e8, 2e8 })
    assert.is_false(ok)
    assert.are.equal("0 ns", why)
  end)

  it("refuses a path with no event, and one repetition that disagrees", function()
    assert.are.equal("no event", select(2, bounds.agree({}, { 1e6 })))
    assert.are.equal("short", select(2, bounds.agree({ 9e5, 1e5, 9e5 }, { 1e6, 1e6, 1e6 })))
    assert.are.equal("long", select(2, bounds.agree({ 9e5, 2e6 }, { 1e6, 1e6 })))
  end)

  it("accepts events a little shorter than the host clock's span", function()
    assert.is_true(bounds.agree({ 9.6e6, 9.7e6, 9.9e6 }, { 1e7, 1e7, 1e7 }))
  end)
end)

describe("bounds.link", function()
  local h200 = { compute_capability = "9.0", pcie_bps = device.pcie_bps(5, 16) }
  local v100 = { compute_capability = "7.0", pcie_bps = device.pcie_bps(3, 16) }

  it("is 18 NVLinks x 25 GB/s between two H200s", function()
    local b, what = bounds.link(h200, h200, 18)
    assert.are.equal(450e9, b)
    assert.matches("18 NVLinks x 25.00 GB/s per direction, 450.0 GB/s", what, 1, true)
  end)

  it("is PCIe for a path staged through host memory, and for a pair with no NVLink", function()
    assert.near(63e9, bounds.link(h200, h200, 18, true), 1e9)
    assert.near(63e9, bounds.link(h200, h200, 0), 1e9)
    -- two generations: the slower link
    assert.near(15.76e9, bounds.link(h200, v100, 0), 1e8)
  end)

  it("is the sanity cap where nothing is known, never the host's PCIe figure of one device", function()
    local b, what = bounds.link({}, h200, nil)
    assert.are.equal(bounds.CAP.pcie, b)
    assert.matches("no link known", what, 1, true)
  end)
end)

describe("device.link", function()
  local function gpu(bus, links, topo)
    return { nvml = { pci_bus_id = bus, nvlinks = links, topology = topo } }
  end
  local A, B, C = "00000000:1B:00.0", "00000000:43:00.0", "00000000:52:00.0"

  it("counts the NVLinks joining two GPUs directly", function()
    local l = {}
    for i = 1, 4 do l[i] = { remote = B, type = 0 } end
    l[5] = { remote = C, type = 0 }
    local r = device.link(gpu(A, l, { [B] = 40 }), gpu(B, {}, {}), "/nonexistent")
    assert.are.equal(4, r.nvlinks)
    assert.are.equal("NV4", r.text)
    assert.are.equal("NODE", r.level)
  end)

  it("counts links through NVSwitches as nvidia-smi does (NV18 on a four-H200 board)", function()
    local sw = {}
    for i = 1, 18 do sw[i] = { remote = "00000000:05:00.0", type = 2 } end
    local r = device.link(gpu(A, sw, { [B] = 50 }), gpu(B, sw, { [A] = 50 }), "/nonexistent")
    assert.are.equal("NV18", r.text)
    assert.is_true(r.switch)
    assert.are.equal("SYS", r.level)
  end)

  it("names the PCIe ancestor where no NVLink joins the pair, bus ids in any case", function()
    local r = device.link(gpu(A, {}, { [B:lower()] = 20 }), gpu(B, {}, {}), "/nonexistent")
    assert.are.equal(0, r.nvlinks)
    assert.are.equal("PXB", r.text)
  end)

  it("reads each device's NUMA node from sysfs", function()
    local root = os.tmpname()
    os.remove(root)
    assert(os.execute(("mkdir -p %s/0000:1b:00.0 %s/0000:43:00.0"):format(root, root)))
    local function put(p, s) local f = assert(io.open(p, "w")); f:write(s); f:close() end
    put(root .. "/0000:1b:00.0/numa_node", "0\n")
    put(root .. "/0000:43:00.0/numa_node", "1\n")
    local r = device.link(gpu(A, {}, { [B] = 50 }), gpu(B, {}, {}), root)
    os.execute("rm -rf " .. root)
    assert.are.equal(0, r.numa_a)
    assert.are.equal(1, r.numa_b)
  end)

  it("is unknown, with the reason, without NVML", function()
    local r = device.link({ unknown_why = "not an NVIDIA device" }, {})
    assert.are.equal("unknown", r.text)
    assert.are.equal("not an NVIDIA device", r.why)
  end)
end)
