package.path = "lua/?.lua;" .. package.path
local plot = require("clua.plot")
local report = require("clua.report")
local lxp = require("lxp")

local function sweep()
  local p = plot.new{ title = "Bandwidth <by> size & mode", x = { name = "size", unit = "bytes", log2 = true },
    y = { name = "bandwidth", unit = "GB/s" } }
  for e = 10, 28, 2 do
    local s = 2 ^ e
    p:add("pinned", s, 55 * s / (s + 2 ^ 20))
    p:add("pageable", s, 10 * s / (s + 2 ^ 19))
  end
  return p
end

-- Parses XML with expat; returns the elements seen (name -> count) and all text.
local function parse_xml(text)
  local count, chars = {}, {}
  local parser = lxp.new({
    StartElement = function(_, name) count[name] = (count[name] or 0) + 1 end,
    CharacterData = function(_, s) chars[#chars + 1] = s end,
  })
  local ok, err, line = parser:parse(text)
  if ok then ok, err, line = parser:parse() end
  parser:close()
  assert(ok, ("SVG is not XML: %s at line %s"):format(tostring(err), tostring(line)))
  return count, table.concat(chars, " ")
end

describe("clua.plot", function()
  it("writes SVG that parses as XML, with axes, units, a legend and every point", function()
    local count, text = parse_xml(sweep():svg())
    assert.equal(1, count.svg)
    assert.equal(2, count.polyline)
    assert.equal(20, count.circle)
    assert.matches("size %(bytes, log2 scale%)", text)
    assert.matches("bandwidth %(GB/s%)", text)
    assert.matches("pinned", text)
    assert.matches("pageable", text)
    assert.matches("1 KiB", text)
    assert.matches("256 MiB", text)
    assert.matches("Bandwidth <by> size & mode", text) -- escaped, read back
  end)

  it("writes the SVG file", function()
    local path = os.tmpname()
    sweep():write_svg(path)
    local f = assert(io.open(path))
    local count = parse_xml(f:read("a"))
    f:close()
    os.remove(path)
    assert.equal(1, count.svg)
  end)

  it("draws a terminal chart within 80 columns with one marker per series", function()
    local text = sweep():text(80, 12)
    local lines = {}
    for l in text:gmatch("[^\n]+") do lines[#lines + 1] = l end
    for _, l in ipairs(lines) do assert.is_true(utf8.len(l) <= 80, l) end
    local stars, os_ = 0, 0
    for _, l in ipairs(lines) do
      local area = l:match("^ *%d* [|+](.*)$")
      if area and not area:match("^%+%-") then
        stars = stars + select(2, area:gsub("%*", ""))
        os_ = os_ + select(2, area:gsub("o", ""))
      end
    end
    -- 10 points a series; a later series may cover an earlier one where they meet
    assert.is_true(stars >= 6 and stars <= 10, stars)
    assert.is_true(os_ >= 8 and os_ <= 10, os_)
    assert.matches("%* pinned   o pageable", text)
    assert.matches("1 KiB", text)
    assert.matches("size %(bytes, log2 scale%)", text)
  end)

  it("chooses round ticks", function()
    assert.same({ 0, 20, 40, 60 }, plot.ticks(0, 55, 4))
    assert.same({ 0, 0.5, 1.0 }, plot.ticks(0, 1, 2))
  end)

  it("builds a sweep from report rows, one series per group", function()
    local t = report.new{ columns = { "size", "mode", { name = "bw", unit = "GB/s" } } }
    t:add{ 1024, "a", 1 }; t:add{ 2048, "a", 2 }; t:add{ 1024, "b", 3 }
    local p = plot.from_report(t, "size", "bw", "mode")
    assert.equal(2, #p.series)
    assert.equal("GB/s", p.y.unit)
    assert.same({ { 1024, 1 }, { 2048, 2 } }, p.series[1].points)
  end)

  it("draws a roofline: both axes log2, a dashed roof, labelled points", function()
    local p = plot.new{ title = "roof", x = { name = "intensity", unit = "op/B", log2 = true },
      y = { name = "throughput", unit = "G/s", log2 = true } }
    for _, x in ipairs({ 0.25, 1, 4, 16, 64, 256 }) do p:add("roof", x, math.min(60000, 3000 * x)) end
    p:style("roof", { dashed = true })
    p:add("kernels", 0.5, 1000, "copy")
    p:add("kernels", 30, 40000, "matmul")
    p:add("kernels", 2, 0) -- not on a log axis: left out
    p:style("kernels", { line = false })
    local text = p:text()
    assert.matches("1000 +", text, 1, true)
    assert.matches("1e+04 +", text, 1, true)
    assert.matches("throughput (G/s, log2 scale)", text, 1, true)
    local svg = p:svg()
    assert.matches('stroke-dasharray="6 4"', svg, 1, true)
    assert.matches(">matmul</text>", svg, 1, true)
    local _, polylines = svg:gsub("<polyline", "")
    assert.are.equal(1, polylines) -- the roof; the kernels are points alone
    assert.are.equal(2, #p.series[2].points)
    assert.has_error(function() p:style("roof", { dotted = true }) end)
  end)
end)
