-- clua.html: the report model as one web page (no browser needed here;
-- spec/html_browser_spec.lua opens the pages in chromium).
local html = require("clua.html")
local report = require("clua.report")
local plot = require("clua.plot")
local timeline = require("clua.timeline")
local noise = require("clua.noise")

local function timings()
  local t = report.new{ title = "Copy <fast> & slow", id = "copy",
    columns = { { name = "size", key = true }, { name = "time", unit = "µs", compare = true }, noise.column(),
      { name = "bandwidth", unit = "GB/s" } } }
  t:add{ size = 1, time = 10, spread = 2, bandwidth = 100 }
  t:add{ size = 2, time = 20, spread = 40, bandwidth = 100 }
  t:add{ size = 3, time = 30, spread = 1, bandwidth = 100 }
  t:note("! 1 of 3 rows: noise")
  return t
end

describe("clua.html", function()
  it("renders a table: escaped text, units, numbers right-aligned, noisy cells marked", function()
    local tally = html.tally()
    local s = html.table(timings(), { tally = tally })
    assert.truthy(s:find("<h3>Copy &lt;fast&gt; &amp; slow</h3>", 1, true))
    assert.truthy(s:find('<th class="num">time<span class="unit">µs</span></th>', 1, true))
    assert.truthy(s:find('<td class="num noisy" title="repetitions spread more than 10%', 1, true))
    assert.truthy(s:find('<tr class="noisy">', 1, true))
    assert.truthy(s:find('<li class="noise">! 1 of 3 rows: noise</li>', 1, true))
    assert.are.equal(1, tally.noisy)
  end)

  it("keeps the noise flag through JSON (a spread column stays one)", function()
    local back = report.from_data(report.decode(report.json(timings())))
    assert.is_true(back:column("spread").spread)
    local tally = html.tally()
    html.table(back, { tally = tally })
    assert.are.equal(1, tally.noisy)
  end)

  it("colours each compared ratio by the noise and the way it went", function()
    local saved = report.decode(report.json(timings()))
    local now = timings()
    now.rows[1].time, now.rows[2].time, now.rows[3].time = 5, 21, 60 -- faster, within, slower
    local c = report.compare(now, saved, { file = "old.json" })
    local ratio = c:column("vs saved")
    assert.are.equal("time", ratio.ratio)
    assert.are.equal("lower", ratio.better)
    assert.are.equal("vs saved", c:column("vs noise").verdict)
    local tally = html.tally()
    local s = html.table(c, { tally = tally })
    assert.truthy(s:find('<td class="num better" title="beyond the noise: better', 1, true))
    assert.truthy(s:find('<td class="num worse" title="beyond the noise: worse', 1, true))
    assert.truthy(s:find('<td class="num within"', 1, true))
    assert.are.same({ 1, 1, 1 }, { tally.better, tally.worse, tally.within })
  end)

  it("inlines a plot as a scalable figure whose points carry tips and are counted", function()
    local p = plot.new{ title = "sweep", x = { name = "n" }, y = { name = "t", unit = "s" } }
    p:add("a", 1, 2):add("a", 2, 3, nil, "two: 3 s"):add("b", 1, 1)
    local f = html.figure(p:svg(), { id = "f1", caption = "a caption" })
    assert.truthy(f:find('<figure class="plot" id="f1" data-points="3" style="max-width:760px">', 1, true))
    assert.is_nil(f:find("<?xml", 1, true))
    assert.truthy(f:find('<svg role="img" aria-label="sweep" xmlns=', 1, true))
    assert.truthy(f:find("<title>two: 3 s</title>", 1, true))
    assert.truthy(f:find("<title>a: 1, 2</title>", 1, true))
    assert.truthy(f:find("<figcaption>a caption</figcaption>", 1, true))
  end)

  it("marks the points of an SVG file written before points had classes", function()
    local old = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="760" height="460">'
      .. '<g class="series"><title>pinned</title><circle cx="1" cy="2" r="3" fill="red"/></g></svg>'
    local f = html.figure(old)
    assert.truthy(f:find('data-points="1"', 1, true))
    assert.truthy(f:find('<circle class="point" cx="1" cy="2" r="3" fill="red"><title>pinned</title></circle>', 1,
      true))
  end)

  it("draws a timeline with a bar per command", function()
    local tl = timeline.new("two queues")
    tl:add("queue 1", "write", "A0", { start = 0, ["end"] = 1000 })
    tl:add("queue 2", "kernel", "K0", { start = 500, ["end"] = 3000 })
    local f = html.figure(tl:svg())
    assert.truthy(f:find('data-points="2"', 1, true))
    assert.truthy(f:find("<title>K0 (kernel, queue 2): 2.50 µs from 500 ns</title>", 1, true), f)
  end)

  it("writes one self-contained page: its own CSS and script, print and phone styles, nothing fetched", function()
    local page = html.document({ timings() }, { title = "copy", meta = { recipe = "copy", date = "today" } })
    assert.truthy(page:match("^<!DOCTYPE html>"))
    assert.truthy(page:find('<meta name="viewport"', 1, true))
    assert.truthy(page:find("@media print", 1, true))
    assert.truthy(page:find("@media (max-width:640px)", 1, true))
    assert.is_nil(page:find("<link", 1, true))
    assert.is_nil(page:find("<script src", 1, true))
    assert.is_nil(page:find("url(", 1, true))
    assert.is_nil(page:find("@import", 1, true))
  end)

  it("renders the committed H100 card from its saved JSON", function()
    -- docs/report-h100.json and its folder are the checkout's; a bundle (bundle/test) has no docs/ of runs
    local f = io.open("docs/report-h100.json")
    if not f then return pending("no docs/report-h100.json (a bundle)") end
    f:close()
    local doc, dir = html.load_card("docs/report-h100-files")
    assert.are.equal("docs/report-h100-files", dir)
    local page = html.card(doc, { dir = dir })
    assert.truthy(page:find("<h1>Device report: NVIDIA H100 80GB HBM3</h1>", 1, true))
    assert.truthy(page:find("<dt>theoretical memory</dt><dd>3352 GB/s", 1, true))
    for _, r in ipairs(doc.recipes) do
      assert.truthy(page:find('<section class="recipe" id="recipe-' .. r.name .. '">', 1, true), r.name)
      for _, svg in ipairs(r.svgs) do
        assert.truthy(page:find('id="figure-' .. svg:gsub("%.svg$", ""):gsub("%.", "-") .. '"', 1, true), svg)
      end
    end
    assert.truthy(page:find('id="figure-roofline-experiments"', 1, true))
    assert.truthy(page:find("% of the roof", 1, true))
    assert.is_nil(page:find("Missing plot", 1, true))
  end)
end)
