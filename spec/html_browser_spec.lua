-- The report card as a web page, opened in a real browser (Debian's chromium,
-- headless; pending where it is not installed: .ci/setup installs it for
-- make test): every figure has all its points drawn inside it with their
-- tips, the roofline's tip tells kernel, intensity, throughput and % of the
-- roof, nothing is fetched, no script error; and the page renders at a
-- phone's width and prints.
local browser = require("spec.support.browser")
local support = require("spec.support.recipe")

local has_chromium = browser.chromium() ~= nil
local it_browser = has_chromium and it or pending

describe("the report card in chromium", function()
  if (os.getenv("CLUA") or ""):find("/asan/", 1, true) then
    pending("in the plain binary's run: "
      .. "renders a card in chromium: the card's runs are the recipe specs' under ASan")
    return
  end
  local dir = os.tmpname()
  os.remove(dir)
  os.execute("mkdir -p " .. dir)
  teardown(function() os.execute("rm -rf " .. dir) end)

  local function all_points(r)
    assert.are.same({}, r.errors)
    assert.are.same({}, r.console)
    assert.are.same({}, r.external)
    for _, f in ipairs(r.figures) do
      assert.is_true(f.expected > 0, f.id .. ": a figure without points")
      assert.are.equal(f.expected, f.found, f.id .. ": points drawn")
      assert.are.equal(f.found, f.inside, f.id .. ": points inside the drawing")
      assert.are.equal(f.found, f.tips, f.id .. ": a tip on every point")
      assert.is_true(f.width > 100 and f.height > 50, f.id .. ": drawn at a readable size")
    end
  end

  it_browser("renders the committed H100 card from its JSON: every plot, the roofline's tips", function()
    local page = dir .. "/h100.html"
    local out, code = support.run("report", "--from-json docs/report-h100-files --html " .. page, nil,
      { merge = true })
    assert.are.equal(0, code, out)
    local r = assert(browser.check(page))
    all_points(r)
    local ids = {}
    for _, f in ipairs(r.figures) do ids[#ids + 1] = f.id end
    assert.are.same({ "figure-peak", "figure-memory-1", "figure-memory-2", "figure-memory-3", "figure-roofline",
      "figure-transfer-1", "figure-transfer-2", "figure-offset", "figure-stride", "figure-overlap-timeline",
      "figure-occupancy", "figure-stencil", "figure-roofline-experiments" }, ids)
    assert.are.equal("block", r.tip_display)
    assert.matches("^[%w_ ]+: .+\nintensity [%d.e+-]+ op/B\nthroughput [%d.e+-]+ G/s\n[%d.]+%% of the roof", r.tip)
    assert.is_true(r.noisy > 0) -- the H100 card's noisy rows, flagged
    assert.is_true(r.tables >= 30)
    assert.is_true(browser.screenshot(page, dir .. "/phone.png", 390, 1600))
    assert.is_true(browser.pdf(page, dir .. "/h100.pdf"))
  end)

  it_browser("draws no two text boxes of a figure over each other: axis labels thinned, kernels' labels placed",
    function()
    local out, code = support.run("report", "--recipes memory,roofline,stride,stream,particles,transpose --out "
      .. dir .. "/labels.md", nil, { merge = true })
    assert.are.equal(0, code, out)
    local r = assert(browser.text_overlaps(dir .. "/labels.html"))
    assert.is_true(r.figures >= 6, "the figures: " .. r.figures)
    assert.is_true(r.texts >= 100, "their texts: " .. r.texts)
    assert.are.same({}, r.overlaps)
    -- at a phone's width too, where the drawings scale down
    assert.are.same({}, assert(browser.text_overlaps(dir .. "/labels.html", 390)).overlaps)
    -- the H100 card's roofline of every kernel, drawn again from its JSON (its other plots are the saved files)
    out, code = support.run("report", "--from-json docs/report-h100-files --html " .. dir .. "/h100-labels.html", nil,
      { merge = true })
    assert.are.equal(0, code, out)
    r = assert(browser.text_overlaps(dir .. "/h100-labels.html"))
    local roof = {}
    for _, o in ipairs(r.overlaps) do
      if o:match("^figure%-roofline%-experiments:") then roof[#roof + 1] = o end
    end
    assert.are.same({}, roof)
    -- and the check finds an overlap where there is one
    local f = assert(io.open(dir .. "/bad.html", "w"))
    f:write('<!DOCTYPE html><html><head></head><body><figure class="plot" id="f"><svg viewBox="0 0 200 100" '
      .. 'width="200" height="100"><text x="10" y="50">0.419</text><text x="20" y="50">0.5</text></svg></figure>'
      .. "</body></html>")
    f:close()
    assert.are.same({ "f: '0.419' / '0.5'" }, assert(browser.text_overlaps(dir .. "/bad.html")).overlaps)
  end)

  it_browser("writes the page of a --quick card beside the Markdown, with the overlap timeline and, with "
    .. "--compare, each ratio coloured by the noise", function()
    local out, code = support.run("report", "--recipes overlap,roofline,particles --out " .. dir .. "/a.md", nil,
      { merge = true })
    assert.are.equal(0, code, out)
    out, code = support.run("report", "--recipes overlap,roofline,particles --out " .. dir .. "/b.md --compare "
      .. dir .. "/a.json", nil, { merge = true })
    assert.are.equal(0, code, out)
    local r = assert(browser.check(dir .. "/b.html"))
    all_points(r)
    local ids = {}
    for _, f in ipairs(r.figures) do ids[f.id] = f end
    assert.truthy(ids["figure-overlap-timeline"], "the overlap timeline")
    assert.truthy(ids["figure-roofline-experiments"], "the roofline of every kernel")
    assert.matches("^particles: ", r.tip)
    assert.is_true(r.better + r.worse + r.within > 0, "compared ratios coloured")
  end)
end)
