package.path = "lua/?.lua;" .. package.path
local units = require("clua.units")

describe("clua.units", function()
  it("parses sizes", function()
    assert.equal(268435456, units.parse_size("256 MiB"))
    assert.equal(67108864, units.parse_size("64MiB"))
    assert.equal(1024, units.parse_size("1K"))
    assert.equal(1000000, units.parse_size("1e6"))
    assert.equal(4096, units.parse_size("4096"))
    assert.equal(10000000, units.parse_size("10 MB"))
    assert.equal(1610612736, units.parse_size("1.5GiB"))
    assert.equal("integer", math.type(units.parse_size("1e6")))
  end)

  it("rejects bad sizes with a message", function()
    for _, bad in ipairs({ "", "MiB", "12 parsecs", "1.5", "-4" }) do
      local v, msg = units.parse_size(bad)
      assert.is_nil(v, bad)
      assert.is_string(msg)
    end
  end)

  it("formats sizes", function()
    assert.equal("512 B", units.format_size(512))
    assert.equal("1 KiB", units.format_size(1024))
    assert.equal("1.5 KiB", units.format_size(1536))
    assert.equal("256 MiB", units.format_size(256 * 2 ^ 20))
    assert.equal("80 GiB", units.format_size(80 * 2 ^ 30))
  end)

  it("formats times with three significant digits", function()
    assert.equal("850 ns", units.format_time(850))
    assert.equal("12.3 µs", units.format_time(12345))
    assert.equal("4.07 ms", units.format_time(4070000))
    assert.equal("1.00 ms", units.format_time(999999))
    assert.equal("1.25 s", units.format_time(1.25e9))
  end)

  it("computes bandwidth with a stated divisor", function()
    -- 1 GiB in 1 ms
    assert.near(1073.741824, units.gbps(2 ^ 30, 1e6), 1e-9)
    assert.near(1000, units.gbps(2 ^ 30, 1e6, units.GiB), 1e-9)
    assert.equal("GB/s (10^9 B/s)", units.bw_header())
    assert.equal("GiB/s (2^30 B/s)", units.bw_header(units.GiB))
    assert.equal("GiB/s", units.bw_unit(units.GiB))
  end)
end)
