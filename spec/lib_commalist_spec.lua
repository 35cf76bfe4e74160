-- clua.commalist: a comma-separated option read into a list of integers.
package.path = "lua/?.lua;" .. package.path
local commalist = require "clua.commalist"

describe("clua.commalist", function()
  it("reads integers separated by commas or spaces", function()
    assert.are.same({ 64, 100 }, commalist.integers("64,100", "--grids"))
    assert.are.same({ 64, 256, 1024 }, commalist.integers(" 64, 256 1024 ", "--local"))
  end)

  it("names the option and the word it cannot take", function()
    local ok, err = pcall(commalist.integers, "64,2", "--grids", 3)
    assert.is_false(ok)
    assert.are.equal("--grids: '2' is not an integer of at least 3", err)
    ok, err = pcall(commalist.integers, "64,x", "--local")
    assert.are.equal("--local: 'x' is not an integer of at least 1", err)
    ok, err = pcall(commalist.integers, "1.5", "--local")
    assert.is_false(ok)
    ok, err = pcall(commalist.integers, ",", "--local")
    assert.are.equal("--local: a comma-separated list of integers expected", err)
  end)
  it("reads names, each one it knows, and names the one it does not", function()
    assert.are.same({ "float", "int" }, commalist.words("float, int", "--types", { "float", "double", "int" }, "type"))
    local ok, err = pcall(commalist.words, "float,quad", "--types", { "float", "double", "int" }, "type")
    assert.is_false(ok)
    assert.are.equal("--types: unknown type 'quad' (float, double, int)", err)
  end)
end)
