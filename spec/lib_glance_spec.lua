-- clua.glance: the card's headline figures from the recipes' tables;
-- report.without_empty; a cache figure on the roofline (clua.roofline.place).
local glance = require("clua.glance")
local report = require("clua.report")
local roofline = require("clua.roofline")

-- A recipe's table as the card's JSON holds it (Report:data()).
local function data(spec, rows)
  local t = report.new(spec)
  for _, r in ipairs(rows) do t:add(r) end
  return t:data()
end

local function rows_of(t)
  local out = {}
  for _, r in ipairs(t.rows) do out[r.figure] = r end
  return out
end

describe("clua.glance", function()
  local peak = data({ id = "peak", columns = { { name = "type" }, { name = "width" }, { name = "peak", unit = "G/s" },
    { name = "theoretical", unit = "G/s" } } }, {
    { type = "float", width = 1, peak = 60000, theoretical = 66908 },
    { type = "float", width = 16, peak = 66551, theoretical = 66908 },
    { type = "int", width = 1, peak = 33400, theoretical = 33454 } })
  local best_col = { name = "best", unit = "GB/s", format = function(v, row)
    return ("%.1f"):format(v) .. (row.cache_figure and " c" or "") end }
  local function stream(cache)
    local t = report.new{ id = "stream", columns = { { name = "precision" }, { name = "kernel" }, best_col,
      { name = "best %" } } }
    t:add{ precision = "float", kernel = "triad", best = 3000, ["best %"] = 89.5 }
    local r = t:add{ precision = "double", kernel = "triad", best = 3078, ["best %"] = 91.8 }
    r.cache_figure = cache or nil
    return t:data()
  end

  it("reads each figure from its recipe's table, with its bound and % of it", function()
    local t = glance.table({ recipes = { { name = "peak", tables = { peak } }, { name = "stream", tables = { stream() } } } })
    local r = rows_of(t)
    assert.are.equal("66.6 TFLOP/s (width 16)", r["compute peak, float"].measured)
    assert.are.equal("66.9 TFLOP/s (theoretical)", r["compute peak, float"].bound)
    assert.near(66551 / 66908 * 100, r["compute peak, float"]["% of bound"], 1e-9)
    assert.are.equal("33.4 TOP/s (width 1)", r["compute peak, int"].measured)
    assert.are.equal("3078.0 GB/s", r["stream triad, double"].measured) -- double, as BabelStream reports
    assert.near(91.8, r["stream triad, double"]["% of bound"], 1e-9)
    assert.are.equal("3352.9 GB/s (theoretical)", r["stream triad, double"].bound)
    -- no line of a recipe that did not run, or failed
    assert.is_nil(r["host to device"])
    t = glance.table({ recipes = { { name = "peak", error = "exit 1: boom", tables = { peak } } } })
    assert.is_nil(t)
  end)

  it("marks a cache figure as one, held against the cache's roof only where the card measured it", function()
    local doc = { recipes = { { name = "stream", tables = { stream(true) } } } }
    local r = rows_of(glance.table(doc))["stream triad, double"]
    assert.are.equal("3078.0 GB/s (cache)", r.measured)
    assert.is_nil(r.bound) -- no memory recipe: no cache roof, and never the memory's
    assert.is_nil(r["% of bound"])
    local bw = report.new{ id = "bandwidth", columns = { { name = "working set" }, best_col } }
    bw.columns[2] = { name = "bandwidth", unit = "GB/s", format = best_col.format }
    bw:add{ ["working set"] = 65536, bandwidth = 6000 }.cache_figure = true
    bw:add{ ["working set"] = 2 ^ 30, bandwidth = 9000 } -- the memory, not a cache: not the cache's roof
    table.insert(doc.recipes, { name = "memory", tables = { bw:data() } })
    assert.are.equal(6000, glance.cache_roof(doc))
    r = rows_of(glance.table(doc))["stream triad, double"]
    assert.are.equal("6000.0 GB/s (cache, read)", r.bound)
    assert.near(3078 / 6000 * 100, r["% of bound"], 1e-9)
  end)

  it("lists each memory level's latency and size from the pointer chase's notes", function()
    local chase = data({ id = "chase", columns = { { name = "working set" }, { name = "latency" } },
      notes = { "c: a cache figure: ...",
        "level 1 (L1, likely): 20.1 ns (40 cycles) per load (20.0 to 22.0), 1 KiB to 128 KiB; ends near 128 KiB "
          .. "(the next, 512 KiB, is 7.13x slower); holds about 174.01 KiB (from 3 working sets between the two "
          .. "levels, random replacement)",
        "level 2: 332.0 ns per load (331.0 to 333.0), 64 MiB to 4 GiB; the last level measured" } },
      { { ["working set"] = 1024, latency = 20 } })
    local r = rows_of(glance.table({ recipes = { { name = "memory", tables = { chase } } } }))
    assert.are.equal("20.1 ns per load, about 174.01 KiB", r["memory level 1 (L1)"].measured)
    assert.are.equal("332.0 ns per load, 64 MiB to 4 GiB", r["memory level 2"].measured)
  end)
end)

describe("report.without_empty", function()
  it("leaves out the columns no row fills, keys kept", function()
    local t = report.new{ columns = { { name = "type", key = true }, { name = "peak" }, { name = "theoretical" } } }
    t:add{ type = "float", peak = 1 }
    local u = report.without_empty(t)
    assert.are.same({ "type", "peak" }, { u.columns[1].name, u.columns[2].name })
    assert.are.equal(2, #u.columns)
    assert.is_nil(report.markdown(u):find("theoretical", 1, true))
    assert.are.equal(3, #t.columns) -- the table itself unchanged
    t:add{ type = "int", peak = 2, theoretical = 3 }
    assert.are.equal(t, report.without_empty(t))
  end)
end)

describe("roofline.place", function()
  local roofs = { float = { bandwidth = 40, peak = 30 } }
  it("holds a cache figure against no memory roof: bound 'cache', no % above 100", function()
    local pts = { { recipe = "stream", kernel = "triad", type = "float", intensity = 1 / 6, throughput = 8.6,
      bandwidth = 51.6 }, -- above the memory roof (6.7 G/s there)
      { recipe = "particles", kernel = "SoA", type = "float", intensity = 0.2, throughput = 2, bandwidth = 10,
        cache = "yes" }, -- under it, but its working set fits the cache
      { recipe = "scan", kernel = "big", type = "float", intensity = 0.25, throughput = 5, bandwidth = 20 } }
    local t = roofline.place(pts, roofs)
    assert.are.equal("cache", t.rows[1].bound)
    assert.is_nil(t.rows[1]["% of roof"])
    assert.are.equal("cache", t.rows[2].bound)
    assert.are.equal("memory", t.rows[3].bound)
    assert.near(50, t.rows[3]["% of roof"], 1e-9)
    assert.truthy(t.notes[3]:find("^cache: 2 points"), t.notes[3])
    -- with the cache's roof measured: a share of it where the point stays under it
    t = roofline.place(pts, roofs, { cache_roof = 100 })
    assert.near(8.6 / (100 / 6) * 100, t.rows[1]["% of roof"], 1e-9)
    assert.near(100 / 6, t.rows[1].roof, 1e-9)
    -- the plot's tip says so too
    local svg = roofline.plot(t.rows, roofs):svg()
    assert.truthy(svg:find("stream: triad (float)\nintensity 0.167 op/B\nthroughput 8.6 G/s\na cache figure", 1, true))
  end)
end)
