-- recipes/report.lua --quick: one page and one JSON from a set of recipes.
local json = require("dkjson")
local support = require("spec.support.recipe")

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
    -- each recipe's wall time, in the JSON and in the page's closing line
    assert.is_true(doc.recipes[1].seconds > 0)
    assert.truthy(md:find(("in %%d+ s: overlap %s s, nosuchrecipe not run%%.\n$"):format(
      ("%.1f"):format(doc.recipes[1].seconds):gsub("%.", "%%."))), md:sub(-200))
    -- it names its schema and holds to it (schema/card-1.json)
    assert.are.equal("clua.card/1", doc.schema)
    local valid, ok = require("spec.support.schema").check({ dir .. "/r.json" })
    assert.is_true(ok ~= false, valid)
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
    -- a recipe's --json is not a card: refused, with the reason
    local f = assert(io.open(dir .. "/recipe.json", "w"))
    f:write(require("clua.report").json({}, { schema = "clua.recipe/1" }))
    f:close()
    out, code = run("--recipes overlap --out " .. dir .. "/no.md --compare " .. dir .. "/recipe.json")
    assert.are_not.equal(0, code, out)
    assert.truthy(out:find("refusing to compare with " .. dir .. "/recipe.json: it is a recipe's --json "
      .. "(clua.recipe/1), not a device report card (clua.card/1)", 1, true), out)
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

  it("writes every file beside --html FILE when no --out is given, none in the current folder, and names them "
    .. "all on its last line", function()
    local here = dir .. "/here"
    os.execute("mkdir -p " .. here)
    local root = io.popen("pwd"):read("l")
    local clua = support.clua:sub(1, 1) == "/" and support.clua or root .. "/" .. support.clua
    local p = io.popen(("cd %s && %s %s/recipes/report.lua --quick --recipes launch --html %s/sub/card.html 2>&1; "
      .. "echo \"exit=$?\""):format(here, clua, root, dir))
    local out = p:read("a")
    p:close()
    assert.truthy(out:find("exit=0", 1, true), out)
    assert.are.equal("", io.popen("ls -A " .. here):read("a")) -- nothing in the current folder
    for _, f in ipairs({ "card.md", "card.json", "card.html", "card-files/launch.json", "card-files/launch.log" }) do
      assert.truthy(support.slurp(dir .. "/sub/" .. f), f)
    end
    local last = out:gsub("%s*exit=%d+%s*$", ""):match("([^\n]*)$")
    assert.are.equal(("report: 1 recipes, 0 failed, %s s; wrote %s/sub/card.md, %s/sub/card.json, %s/sub/card.html "
      .. "and the 2 files of %s/sub/card-files/"):format(last:match("failed, ([%d.]+) s"), dir, dir, dir, dir), last)
    -- --out without .md: the Markdown gets it, the rest beside it
    out = run("--recipes launch --html none --out " .. dir .. "/o/card")
    assert.truthy(support.slurp(dir .. "/o/card.md"), out)
    assert.truthy(support.slurp(dir .. "/o/card.json"))
    assert.is_nil(support.slurp(dir .. "/o/card.html"))
    assert.truthy(out:find("wrote " .. dir .. "/o/card.md, " .. dir .. "/o/card.json and the 2 files of ", 1, true), out)
  end)

  it("opens with its answer: an at-a-glance table of what the run measured, then the tables; no column of '-' "
    .. "only", function()
    local out, code = run("--recipes peak,launch,transfer --with 'peak --types float,int --widths 1,4' --out "
      .. dir .. "/g.md")
    assert.are.equal(0, code, out)
    local md = read(dir .. "/g.md")
    local at, device, peak = md:find("## At a glance", 1, true), md:find("## The device", 1, true),
      md:find("## peak", 1, true)
    assert.truthy(at and device and peak and at < device and device < peak, md)
    local block = md:sub(at, device)
    local doc = json.decode(read(dir .. "/g.json"))
    local best = {}
    for _, row in ipairs(doc.recipes[1].tables[1].rows) do best[row.type] = math.max(best[row.type] or 0, row.peak) end
    for _, ty in ipairs({ "float", "int" }) do
      local v, unit = block:match("| compute peak, " .. ty .. " | ([%d.]+) (%a)[%a/]+ %(width %d+%) |")
      assert.truthy(v, block)
      assert.near(best[ty] / (unit == "T" and 1000 or unit == "M" and 0.001 or 1), tonumber(v), 0.051)
    end
    for _, line in ipairs({ "| host to device | ", "| device to host | ", "| kernel launch: enqueue (host side) | ",
      "| kernel launch: round trip | " }) do
      assert.truthy(block:find(line, 1, true), line .. " in " .. block)
    end
    assert.is_nil(block:find("stream triad", 1, true)) -- not run: no line
    assert.is_nil(block:find("memory level", 1, true))
    if doc.device.type == "CPU" then
      -- a CPU: no theoretical figures, so no such columns, in the glance or the peak table
      assert.is_nil(block:find("| bound |", 1, true), block)
      assert.is_nil(md:find("| theoretical (G/s) |", 1, true))
      assert.truthy(md:find("| type | width | peak (G/s) | median (G/s) | spread (%) | iterations |", 1, true), md)
    else
      -- a GPU whose driver tells its clocks and link: each figure beside its bound
      assert.truthy(block:find("| figure | measured | bound | % of bound | recipe |", 1, true), block)
      assert.truthy(block:find("| host to device | [%d.]+ GB/s %(.-%) | [%d.]+ GB/s %(PCIe%) | [%d.]+ |"), block)
    end
    -- the page: the same block first, the noise count after it
    local page = read(dir .. "/g.html")
    local g, noise = page:find('<section id="glance">', 1, true), page:find("figures flagged as noise", 1, true)
    assert.truthy(g and noise and g < noise)
    assert.truthy(page:find("<td>kernel launch: round trip</td>", 1, true))
  end)

  it("reports a failing recipe and exits non-zero", function()
    local out, code = run("--recipes overlap --out " .. dir .. "/bad.md", "")
    assert.are.equal(0, code, out)
    local o = run("--recipes overlap --out " .. dir .. "/bad.md", "CLUA_CORRUPT=overlap")
    assert.are.equal("1", o:match("exit=(%d+)%s*$"))
    assert.truthy(read(dir .. "/bad.md"):find("Did not run", 1, true))
  end)
end)
