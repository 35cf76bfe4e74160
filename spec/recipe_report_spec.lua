-- recipes/report.lua --quick: one page and one JSON from a set of recipes.
local json = require "dkjson"
local support = require "spec.support.recipe"

local run = support.runner("report", { merge = true })
local read = support.read

describe("recipes/report.lua", function()
  local dir = os.tmpname()
  os.remove(dir)
  os.execute("mkdir -p " .. dir)
  teardown(function() os.execute("rm -rf " .. dir) end)

  it("writes Markdown and JSON that parse, with the device and each recipe", function()
    local out, code = run("--recipes overlap,nosuchrecipe --out " .. dir .. "/r.md")
    assert.are.equal(0, code, out)
    local md = read(dir .. "/r.md")
    assert.truthy(md:find("# Device report: ", 1, true))
    assert.truthy(md:find("## overlap", 1, true))
    assert.truthy(md:find("| queues | chunks |", 1, true))
    assert.truthy(md:find("not available", 1, true))
    local doc = json.decode(read(dir .. "/r.json"))
    assert.truthy(doc.device.name)
    assert.are.equal("overlap", doc.recipes[1].name)
    assert.are.equal(0, doc.recipes[1].exit)
    assert.truthy(#doc.recipes[1].tables >= 2)
  end)

  it("puts a saved report beside the new one with --compare", function()
    local out, code = run("--recipes overlap --out " .. dir .. "/new.md --compare " .. dir .. "/r.json")
    assert.are.equal(0, code, out)
    local md = read(dir .. "/new.md")
    assert.truthy(md:find("vs saved", 1, true))
    assert.truthy(md:find("this run / saved run", 1, true))
    -- the saved run's device has this device's name: both carry their P:D index
    local doc = json.decode(read(dir .. "/r.json"))
    assert.matches("^%d+:%d+$", doc.device.index)
    assert.truthy(md:find("# Device report: " .. doc.device.name .. " [" .. doc.device.index .. "]", 1, true))
    assert.truthy(md:find(", " .. doc.device.name .. " [" .. doc.device.index .. "], ", 1, true), md)
  end)

  it("places the recipes' kernels on the roofline the roofline recipe measured", function()
    local out, code = run("--recipes roofline,transpose,particles --out " .. dir .. "/roof.md")
    assert.are.equal(0, code, out)
    local md = read(dir .. "/roof.md")
    assert.truthy(md:find("## The seed experiments on the roofline", 1, true))
    assert.truthy(md:find("| particles | SoA float arrays (posx[], posy[], ...) | float |", 1, true), md)
    assert.truthy(md:find("| transpose | padded local tile | float | 0 |", 1, true))
    assert.truthy(md:find("roof-files/roofline-experiments.svg", 1, true))
    assert.truthy(read(dir .. "/roof-files/roofline-experiments.svg"):find("particles: SoA", 1, true))
    assert.is_nil(md:find("Roofline points:", 1, true)) -- not repeated in each recipe's section
    local doc = json.decode(read(dir .. "/roof.json"))
    assert.truthy(#doc.roofline.rows >= 9)
  end)

  it("reports a failing recipe and exits non-zero", function()
    local out, code = run("--recipes overlap --out " .. dir .. "/bad.md", "")
    assert.are.equal(0, code, out)
    local o = run("--recipes overlap --out " .. dir .. "/bad.md", "CLUA_CORRUPT=overlap")
    assert.are.equal("1", o:match("exit=(%d+)%s*$"))
    assert.truthy(read(dir .. "/bad.md"):find("Did not run", 1, true))
  end)
end)
