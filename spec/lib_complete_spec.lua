-- clua.complete: the REPL's completion candidates (spec/repl_spec.lua types
-- them on a terminal).
local complete = require("clua.complete")
local cl = require("cl")

describe("clua.complete", function()
  it("completes globals and keywords", function()
    local c = complete.candidates("pri")
    assert.same({ "print" }, c)
    assert.same({ "while" }, complete.candidates("whil"))
    assert.truthy(#complete.candidates("") > 20)
  end)

  it("completes the fields of a chain of tables", function()
    assert.same({ "string.format" }, complete.candidates("string.form"))
    _G.spec_complete = { inner = { alpha = 1, beta = 2 } }
    assert.same({ "spec_complete.inner.alpha" }, complete.candidates("spec_complete.inner.al"))
    _G.spec_complete = nil
  end)

  it("completes cl's functions and the methods of a cl object", function()
    _G.spec_q = cl.context():queue()
    local c = complete.candidates("spec_q:la")
    assert.same({ "spec_q:launch", "spec_q:launcher" }, c)
    local all = complete.candidates("spec_q:")
    assert.truthy(#all >= 10)
    for _, m in ipairs(all) do assert.matches("^spec_q:[%a_]+$", m) end
    _G.spec_cl = cl
    assert.same({ "spec_cl.device", "spec_cl.devices" }, complete.candidates("spec_cl.devic"))
    _G.spec_q, _G.spec_cl = nil, nil
  end)

  it("offers only functions after ':'", function()
    _G.spec_t = { f = function() end, n = 1 }
    assert.same({ "spec_t:f" }, complete.candidates("spec_t:"))
    _G.spec_t = nil
  end)

  it("never raises: unknown names, bad chains, an __index that raises", function()
    assert.same({}, complete.candidates("no_such_global.x"))
    assert.same({}, complete.candidates("a..b"))
    assert.same({}, complete.candidates("(x):y"))
    assert.same({}, complete.candidates(42))
    _G.spec_bad = setmetatable({}, { __index = function() error("boom") end })
    assert.same({}, complete.candidates("spec_bad.x.y"))
    _G.spec_bad = nil
  end)
end)
