-- clua.bankconflict: the n-way conflict of an access pattern, worst and mean
-- over requests, and of a tile read down its columns, plain or padded.
package.path = "lua/?.lua;" .. package.path
local bankconflict = require("clua.bankconflict")

describe("clua.bankconflict", function()
  it("counts distinct words a bank must give, a broadcast once", function()
    local id = function(l) return l end
    assert.are.same({ 1, 1 }, { bankconflict.degree(id, 64, 32) })
    assert.are.same({ 2, 2 }, { bankconflict.degree(function(l) return 2 * l end, 64, 32) })
    assert.are.same({ 32, 32 }, { bankconflict.degree(function(l) return 32 * l end, 32, 32) })
    assert.are.same({ 1, 1 }, { bankconflict.degree(function() return 5 end, 32, 32) }) -- broadcast
    assert.are.same({ 1, 1 }, { bankconflict.degree(function(l) return 33 * l end, 32, 32) })
    -- one request conflict-free, the next 4-way: worst 4, mean 2.5
    local w, mean = bankconflict.degree(function(l) return l < 32 and l or 4 * l end, 64, 32)
    assert.are.equal(4, w)
    assert.near(2.5, mean, 1e-12)
  end)

  it("gives a T-way conflict for a column read of a T x T tile, none once padded", function()
    assert.are.equal(16, bankconflict.tile(16, 16, 16))
    assert.are.equal(8, bankconflict.tile(16, 16, 32)) -- two rows of the tile a request, 8 words a bank
    assert.are.equal(32, bankconflict.tile(32, 32, 32))
    assert.are.equal(1, bankconflict.tile(16, 17, 16))
    assert.are.equal(1, bankconflict.tile(32, 33, 32))
  end)

  it("gives the --banks option and the note of a column of the model's figures", function()
    local seen = {}
    local opt = {}
    function opt:argname(a) seen.argname = a; return self end
    function opt:convert(f) seen.convert = f; return self end
    local p = { option = function(_, name, help, default) seen.name, seen.help, seen.default = name, help, default; return opt end }
    bankconflict.option(p)
    assert.are.same({ "--banks", "32", "B", math.tointeger }, { seen.name, seen.default, seen.argname, seen.convert })
    assert.truthy(seen.help:find("conflict model", 1, true))
    assert.are.equal("tile read: x by the model: 16 banks of 32-bit words serving requests of 16 work-items "
      .. "(--banks 16: the guide's half-warps)", bankconflict.note("tile read: x", 16))
  end)
end)
