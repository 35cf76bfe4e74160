-- clua.peak's pure parts: the extension a type needs, the launch geometry.
package.path = "lua/?.lua;" .. package.path
local peak = require("clua.peak")

describe("clua.peak", function()
  it("names the extension a type needs that the device lacks", function()
    local bare, full = { extensions = { "cl_khr_icd" } }, { extensions = { "cl_khr_fp64", "cl_khr_fp16" } }
    assert.are.equal("cl_khr_fp64", peak.missing(bare, "double"))
    assert.are.equal("cl_khr_fp16", peak.missing(bare, "half"))
    assert.is_nil(peak.missing(bare, "float"))
    assert.is_nil(peak.missing(bare, "int"))
    assert.is_nil(peak.missing(full, "double"))
    assert.is_nil(peak.missing(full, "half"))
    assert.are.equal("cl_khr_fp64", peak.missing({}, "double")) -- no extensions listed
  end)

  it("fills the device: 64 groups per compute unit on a GPU, 4 elsewhere", function()
    local g, L, groups = peak.geometry({ max_work_group_size = 1024, compute_units = 2, type = "GPU" })
    assert.are.same({ 256 * 128, 256, 128 }, { g, L, groups })
    g, L, groups = peak.geometry({ max_work_group_size = 64, compute_units = 2, type = "CPU" })
    assert.are.same({ 64 * 8, 64, 8 }, { g, L, groups })
  end)
end)
