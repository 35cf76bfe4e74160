package.path = "lua/?.lua;" .. package.path
local report = require("clua.report")
local units = require("clua.units")
local json = require("dkjson")

local function sample(theoretical)
  return report.new{
    title = "Transfers", id = "transfers",
    columns = {
      { name = "size", key = true, format = units.format_size },
      { name = "mode", key = true },
      { name = "time", unit = "ms", format = "%.3f" },
      { name = "bandwidth", unit = "GB/s", theoretical = "pcie", compare = true },
    },
    rows = {
      { size = 1024, mode = "pinned", time = 0.5, bandwidth = 50 },
      { size = 1024, mode = 'page, "able"', time = 1.25, bandwidth = 25 },
      { 2048, "pinned\nnew", 1.0, 31.5 },
    },
    meta = { device = "Fake GPU", driver = "1.0", reps = 10, date = "2026-01-01" },
    notes = { "a note" },
    theoretical = theoretical,
  }
end

-- A small RFC 4180 reader, to check the quoting by reading it back.
local function parse_csv(text)
  local rows, row, field, i, quoted = {}, {}, {}, 1, false
  while i <= #text do
    local ch = text:sub(i, i)
    if quoted then
      if ch == '"' and text:sub(i + 1, i + 1) == '"' then field[#field + 1] = '"'; i = i + 1
      elseif ch == '"' then quoted = false
      else field[#field + 1] = ch end
    elseif ch == '"' then quoted = true
    elseif ch == "," then row[#row + 1] = table.concat(field); field = {}
    elseif ch == "\r" and text:sub(i + 1, i + 1) == "\n" then
      row[#row + 1] = table.concat(field); rows[#rows + 1] = row; row, field = {}, {}; i = i + 1
    else field[#field + 1] = ch end
    i = i + 1
  end
  return rows
end

describe("clua.report", function()
  it("adds a note once: a second of the same text is dropped", function()
    local t = report.new{ title = "t", columns = { "a" }, notes = { "first" } }
    assert.are.equal(t, t:note_once("first"))
    t:note_once("second"):note_once("second")
    assert.are.same({ "first", "second" }, t.notes)
  end)

  it("renders an aligned terminal table with metadata and units", function()
    local text = report.text(sample())
    assert.matches("^Transfers\n", text)
    assert.matches("device Fake GPU", text)
    assert.matches("reps 10", text)
    assert.matches("1 KiB", text)
    assert.matches("0.500", text)
    assert.matches("a note", text)
    -- every table line (header, units, rule, rows) is as wide as the rule
    local lines = {}
    for l in text:gmatch("[^\n]*") do lines[#lines + 1] = l end
    local r
    for i, l in ipairs(lines) do if l:match("^%-+ ") then r = i end end
    assert.truthy(r, "no rule line")
    for i = r + 1, r + 3 do
      assert.equal(utf8.len(lines[r]), utf8.len(lines[i]), lines[i])
    end
    assert.equal("  a note", lines[r + 4])
  end)

  it("quotes CSV fields that need it, and reads back", function()
    local csv = report.csv(sample())
    local rows = parse_csv(csv)
    assert.equal(4, #rows)
    assert.same({ "size", "mode", "time (ms)", "bandwidth (GB/s)" }, rows[1])
    assert.same({ "1024", 'page, "able"', "1.25", "25" }, rows[3])
    assert.equal("pinned\nnew", rows[4][2])
    assert.matches('"page, ""able"""', csv, 1, true)
  end)

  it("starts CSV with its header, and keeps the metadata for the sidecar", function()
    assert.matches("^size,mode,time %(ms%),", report.csv(sample()))
    local meta = json.decode(report.csv_meta(sample(), { recipe = "demo" }))
    assert.equal("Fake GPU", meta.meta.device)
    assert.equal("demo", meta.recipe)
    assert.equal("ms", meta.columns[3].unit)
    assert.is_nil(meta.rows)
  end)

  it("puts commented metadata first when asked", function()
    local csv = report.csv(sample(), { comments = true })
    assert.matches("^# Transfers\r\n", csv)
    assert.matches("# device: Fake GPU\r\n", csv, 1, true)
  end)

  it("writes JSON that parses back with raw values and metadata", function()
    local d = json.decode(report.json(sample()))
    assert.equal("transfers", d.id)
    assert.equal(3, #d.rows)
    assert.equal(1.25, d.rows[2].time)
    assert.equal('page, "able"', d.rows[2].mode)
    assert.equal("Fake GPU", d.meta.device)
    assert.equal("ms", d.columns[3].unit)
    assert.is_true(d.columns[1].key)
  end)

  it("writes Markdown: heading, header, alignment row, one line a row", function()
    local md = report.markdown(sample())
    local lines = {}
    for l in md:gmatch("[^\n]*") do if l:match("^|") then lines[#lines + 1] = l end end
    assert.equal(2 + 3, #lines)
    assert.matches("^### Transfers", md)
    assert.equal("|---:|:---|---:|---:|", lines[2])
    local bars = select(2, lines[1]:gsub("[^\\]|", ""))
    for _, l in ipairs(lines) do assert.equal(bars, select(2, l:gsub("[^\\]|", ""))) end
  end)

  it("adds a % of theoretical column only when the peak is known", function()
    local without = sample()
    assert.equal(4, #without:resolved_columns())
    local with = sample({ pcie = 63e9 })
    local cols = with:resolved_columns()
    assert.equal(5, #cols)
    assert.equal("bandwidth %", cols[5].name)
    local d = json.decode(report.json(with))
    assert.near(50 / 63 * 100, d.rows[1]["bandwidth %"], 1e-9)
    assert.matches("79.4", report.text(with))
  end)

  it("compares each row with the matching saved row", function()
    local saved = json.decode(report.json(sample()))
    local now = sample()
    now.rows[1].bandwidth = 100       -- twice as fast as saved
    now.rows[2].bandwidth = 12.5      -- half
    now:add{ size = 4096, mode = "pinned", time = 1, bandwidth = 9 } -- nothing saved
    -- saved rows in another order must still match by key
    table.sort(saved.rows, function(a, b) return a.bandwidth < b.bandwidth end)
    local c = report.compare(now, { tables = { saved } }, { file = "old.json" })
    local d = json.decode(report.json(c))
    assert.equal("vs saved", d.columns[5].name)
    assert.near(2.0, d.rows[1]["vs saved"], 1e-12)
    assert.near(0.5, d.rows[2]["vs saved"], 1e-12)
    assert.near(1.0, d.rows[3]["vs saved"], 1e-12)
    assert.is_nil(d.rows[4]["vs saved"])
    assert.matches("old.json", report.text(c), 1, true)
  end)

  it("compare's note says which way a ratio above 1 goes, from each column's unit", function()
    local t = report.new{ title = "x", id = "x", columns = {
      { name = "size" }, { name = "time", unit = "us", compare = true }, { name = "bw", unit = "GB/s", compare = true } } }
    t:add{ size = 1, time = 2, bw = 3 }
    local saved = { meta = {}, tables = { { id = "x", columns = { { name = "size" }, { name = "time" }, { name = "bw" } },
      rows = { { size = 1, time = 1, bw = 1 } } } } }
    local c = report.compare(t, saved, { file = "old.json" })
    assert.are.equal("vs saved = this run / saved run (old.json); time: above 1 is slower; bw: above 1 is faster",
      c.notes[#c.notes])
  end)
end)
