-- clua.outcap: a run's output kept within a bound, what was cut counted.
package.path = "lua/?.lua;" .. package.path
local outcap = require("clua.outcap")
local shell = require("spec.support.shell")

describe("clua.outcap", function()
  local path
  before_each(function() path = os.tmpname() end)
  after_each(function() os.remove(path); os.remove(path .. ".in") end)

  local function pipe(text, limit)
    local f = assert(io.open(path .. ".in", "wb"))
    f:write(text)
    f:close()
    f = assert(io.open(path .. ".in", "rb"))
    local bytes, lines, cut = outcap.pipe(path, limit, f)
    f:close()
    return shell.read(path), bytes, lines, cut
  end

  it("keeps a small output whole", function()
    local kept, bytes, lines, cut = pipe("one\ntwo\n", 100)
    assert.are.equal("one\ntwo\n", kept)
    assert.are.same({ 8, 2, 0 }, { bytes, lines, cut })
    assert.are.same({ 8, 2, 0 }, { outcap.size(kept) })
    kept = pipe(("x"):rep(100), 100)
    assert.are.equal(("x"):rep(100), kept)
  end)

  it("keeps the first and the last half of the bound, and says what was cut between them", function()
    local parts = {}
    for i = 1, 100000 do parts[i] = ("line %d\n"):format(i) end
    local text = table.concat(parts)
    local kept, bytes, lines, cut = pipe(text, 1000)
    assert.are.equal(#text, bytes)
    assert.are.equal(100000, lines)
    assert.are.equal(#text - 1000, cut)
    assert.are.equal(text:sub(1, 500), kept:sub(1, 500))
    assert.are.equal(text:sub(-500), kept:sub(-500))
    assert.matches(("\n[clua grade: %d bytes ("):format(cut), kept, 1, true)
    assert.is_true(#kept < 1200)
    assert.are.same({ #text, 100000, cut }, { outcap.size(kept) })
  end)

  it("bounds a flood through the pipe of a real process", function()
    local p = io.popen(("%s -e 'for i = 1, 300000 do io.write(\"flood \", i, \"\\n\") end' | %s -e %s"):format(
      os.getenv("CLUA") or "build/clua", os.getenv("CLUA") or "build/clua",
      shell.quote(("require('clua.outcap').pipe(%q, 4096)"):format(path))))
    p:close()
    local kept = shell.read(path)
    assert.is_true(#kept < 4096 + 200, #kept)
    local bytes, lines = outcap.size(kept)
    assert.are.equal(300000, lines)
    assert.is_true(bytes > 3e6)
  end)
end)
