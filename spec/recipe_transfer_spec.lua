-- recipes/transfer.lua --quick on the default device (PoCL in CI), run as a
-- subprocess: its tables have the rows they should, and CLUA_CORRUPT=transfer
-- makes it exit non-zero with no table.
local json = require("dkjson")
local support = require("spec.support.recipe")

local run = support.runner("transfer", { env_first = true })
local slurp, by_id = support.slurp, support.by_id

describe("recipe transfer", function()
  local out, code, err, tables, svg

  setup(function()
    local path, svgpath = os.tmpname(), os.tmpname()
    out, code, err = run(nil, "--json " .. path .. " --svg " .. svgpath .. ".svg")
    local text = slurp(path)
    svg = slurp(svgpath .. ".1.svg")
    os.remove(path)
    os.remove(svgpath)
    os.remove(svgpath .. ".1.svg")
    os.remove(svgpath .. ".2.svg")
    tables = text and by_id(json.decode(text)) or {}
  end)

  local series = { "H2D pageable", "H2D pinned", "H2D mapped", "D2H pageable", "D2H pinned", "D2H mapped" }

  it("runs --quick and exits 0", function()
    assert.are.equal(0, code, err)
    assert.truthy(out:find("Bandwidth by transfer size", 1, true))
  end)

  it("sweeps powers of two from 1 KiB to 1 MiB for every series", function()
    local t = assert(tables.sweep)
    assert.are.equal(11, #t.rows)
    for i, r in ipairs(t.rows) do
      assert.are.equal(1024 * 2 ^ (i - 1), r.size)
      for _, s in ipairs(series) do assert.is_true(r[s] > 0, s) end
      assert.is_true(r["D2D device"] > 0)
    end
    assert.truthy(svg and svg:find("<svg", 1, true))
  end)

  it("reports latency and asymptotic bandwidth per host series", function()
    local t = assert(tables.latency)
    assert.are.equal(#series, #t.rows)
    for i, r in ipairs(t.rows) do
      assert.are.equal(series[i], r.series)
      assert.is_true(r.latency > 0 and r["host latency"] > 0 and r.asymptotic > 0)
    end
  end)

  it("compares blocking, non-blocking and mapped calls at the large size", function()
    local t = assert(tables.transfers)
    local seen = {}
    for _, r in ipairs(t.rows) do
      seen[r.direction .. " " .. r.memory .. " " .. r.call] = r
      assert.is_true(r.bandwidth > 0 and r["host clock"] > 0)
    end
    for _, dir in ipairs({ "H2D", "D2H" }) do
      for _, mem in ipairs({ "pageable", "pinned" }) do
        for _, call in ipairs({ "blocking", "non-blocking" }) do
          assert.is_number(seen[dir .. " " .. mem .. " " .. call]["call returns"])
        end
      end
      assert.truthy(seen[dir .. " mapped map/unmap"])
    end
    assert.are.equal(10, #t.rows)
    assert.are.equal(2, #assert(tables.d2d).rows)
  end)

  it("batches the same bytes as 1, 16 and 256 transfers", function()
    local t = assert(tables.batched)
    assert.are.equal(6, #t.rows)
    for i, r in ipairs(t.rows) do
      assert.are.equal(i <= 3 and "pinned" or "pageable", r.memory)
      assert.are.equal(16 ^ ((i - 1) % 3), r.transfers)
      assert.are.equal(256 * 1024, r.transfers * r.each)
    end
  end)

  it("gives every timed table a spread column, and says what clock each latency is", function()
    for _, id in ipairs({ "sweep", "latency", "transfers", "d2d", "batched" }) do
      local spread = false
      for _, c in ipairs(assert(tables[id], id).columns) do spread = spread or c.name:find("spread", 1, true) ~= nil end
      assert.is_true(spread, id)
    end
    for _, r in ipairs(tables.latency.rows) do
      -- mapped: no events to time; the others by events (or the host clock where an event reads 0 ns)
      if r.series:find("mapped", 1, true) then assert.are.equal("host clock", r["latency by"])
      else assert.truthy(r["latency by"] == "events" or r["latency by"] == "host clock") end
      assert.is_number(r["latency spread"])
      assert.is_number(r["host spread"])
    end
  end)

  it("exits non-zero with no table when a result is corrupted", function()
    local o, c, e = run("CLUA_CORRUPT=transfer")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("Bandwidth", 1, true))
    assert.falsy(o:find("transfers", 1, true))
    assert.truthy(e:find("verify", 1, true), e)
  end)
end)
