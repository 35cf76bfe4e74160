-- recipes/memory.lua --quick on the default device (PoCL in CI), run as a
-- subprocess: pointer-chase latency and read bandwidth by working set, local
-- memory bandwidth by vector width, the TLB's reach at page-sized strides,
-- each verified before it prints;
-- CLUA_CORRUPT=memory makes it exit non-zero with no table; a bad option is
-- refused.
local json = require("dkjson")
local support = require("spec.support.recipe")

local run = support.runner("memory", { env_first = true })
local slurp, by_id = support.slurp, support.by_id

local TITLES = { "Pointer chase: latency per dependent load", "Read bandwidth by working set",
  "Local memory bandwidth by vector width", "TLB reach: latency per dependent load at page-sized strides" }

describe("recipe memory", function()
  local out, code, err, tables

  setup(function()
    local path = os.tmpname()
    out, code, err = run(nil, "--json " .. path)
    local text = slurp(path)
    os.remove(path)
    tables = text and by_id(json.decode(text)) or {}
  end)

  it("runs --quick and exits 0, printing the four tables and the plots", function()
    assert.are.equal(0, code, err)
    for _, title in ipairs(TITLES) do assert.truthy(out:find(title, 1, true), title) end
    assert.truthy(out:find("Pointer chase: latency by working set", 1, true))
    assert.truthy(out:find("log2 scale", 1, true))
  end)

  -- a working set of the doubling sweep (a power of two)
  local function doubling(ws) return ws & (ws - 1) == 0 end

  it("chases 1 KiB .. 4 MiB, doubling, with a latency > 0 in ns and in cycles", function()
    local t = assert(tables.chase)
    local k = 0
    for i, r in ipairs(t.rows) do
      if doubling(r["working set"]) then
        k = k + 1
        assert.are.equal(1024 * 2 ^ (k - 1), r["working set"])
      end
      if i > 1 then assert.is_true(r["working set"] > t.rows[i - 1]["working set"]) end
      assert.is_true(r.latency > 0 and r.latency < 1e6, tostring(r.latency))
      assert.is_true(r.steps >= 4096)
      assert.is_true(r.slot >= 128)
      if r.cycles then assert.is_true(r.cycles > 0) end
    end
    assert.are.equal(13, k)
    local notes = table.concat(t.notes, "\n")
    assert.truthy(notes:match("level 1[:(%s]"), notes) -- on NVIDIA "level 1 (L1, likely):"
    assert.truthy(notes:find("verified: after every working set", 1, true), notes)
    assert.truthy(notes:find("levels (clua.levels): neighbouring levels differ by more than 1.15x", 1, true), notes)
  end)

  it("chases one line a page over 2 .. 256 pages (--quick), beside the same lines alone", function()
    local t = assert(tables.tlb)
    assert.is_true(#t.rows >= 1)
    local stride = t.rows[1].stride
    assert.is_true(stride == 4096 or stride == 2 ^ 21, tostring(stride))
    for i, r in ipairs(t.rows) do
      assert.are.equal(stride, r.stride)
      assert.are.equal(2 ^ i, r.pages)
      assert.are.equal(r.pages * stride, r["working set"])
      assert.is_true(r.latency > 0 and r["lines alone"] > 0)
      assert.near(r.latency - r["lines alone"], r.extra, 1e-9)
    end
    assert.is_true(#t.rows <= 8) -- bounded: at most 256 pages with --quick
    local notes = table.concat(t.notes, "\n")
    assert.truthy(notes:match("strides, level 1: [%d.]+ ns"), notes)
    assert.truthy(notes:find("lines alone: the same count of lines", 1, true), notes)
  end)

  it("adds quarter octaves around each level's end, and reads capacities there", function()
    local t = assert(tables.chase)
    local notes = table.concat(t.notes, "\n")
    local added = #t.rows - 13
    if notes:find("level 2", 1, true) then
      assert.is_true(added > 0)
      assert.truthy(notes:find(added .. " working sets a quarter octave apart added", 1, true), notes)
    else
      assert.are.equal(0, added) -- one level: nothing to refine
    end
    for cap in notes:gmatch("holds about ([^(]+) %(") do
      assert.truthy(cap:match("^[%d.]+ [KMG]iB$"), cap) -- a capacity in KiB at least
    end
  end)

  it("reads 64 KiB .. 4 MiB, doubling, with a bandwidth > 0 and the plateaus named", function()
    local t = assert(tables.bandwidth)
    assert.are.equal(7, #t.rows)
    for i, r in ipairs(t.rows) do
      assert.are.equal(65536 * 2 ^ (i - 1), r["working set"])
      assert.is_true(r.bandwidth > 0)
      assert.is_true(r.time > 0)
    end
    local notes = table.concat(t.notes, "\n")
    assert.truthy(notes:match("level 1[^\n]*: median"), notes)
    assert.truthy(notes:find("work-items' sums", 1, true), notes)
  end)

  it("has local memory bandwidth for float, float2, float4 and float8", function()
    local t = assert(tables["local"])
    local seen = {}
    for _, r in ipairs(t.rows) do
      seen[r.width] = true
      assert.is_true(r.bandwidth > 0)
    end
    for _, w in ipairs({ "float", "float2", "float4", "float8" }) do assert.truthy(seen[w], w) end
    assert.are.equal(4, #t.rows)
  end)

  it("runs only the parts asked for", function()
    local path = os.tmpname()
    local _, c, e = run(nil, "--parts local --reps 1 --json " .. path)
    local doc = json.decode(slurp(path))
    os.remove(path)
    assert.are.equal(0, c, e)
    assert.are.equal(1, #doc.tables)
    assert.are.equal("local", doc.tables[1].id)
  end)

  it("exits non-zero with no table when a result is corrupted", function()
    -- the first verification of the run fails: the harness changed one element
    local first = { ["chase,bandwidth,local,tlb"] = "verify chase over 1 KiB: the index reached and the steps taken: 1 of 2",
      tlb = "verify tlb over %d+ [KM]iB at %d+ [KM]iB strides: the index reached and the steps taken: 1 of 2",
      bandwidth = "verify bandwidth over 64 KiB: %d+ work%-items' sums: 1 of", ["local"] = "verify local float, work%-items %d+%.%.%d+: 1 of" }
    for parts, msg in pairs(first) do
      local o, c, e = run("CLUA_CORRUPT=memory", "--parts " .. parts)
      assert.are_not.equal(0, c, parts)
      for _, title in ipairs(TITLES) do assert.falsy(o:find(title, 1, true), parts .. ": " .. title) end
      assert.matches(msg, e)
    end
  end)

  it("refuses a bad option", function()
    for _, args in ipairs({ "--parts cache", "--knee 1", "--no-such-option" }) do
      local o, c, e = run(nil, args)
      assert.are.equal(2, c, args)
      assert.truthy(e:find("Usage", 1, true), e)
      assert.falsy(o:find("Pointer chase", 1, true))
    end
    local _, c, e = run(nil, "--parts chase --size 512")
    assert.are_not.equal(0, c)
    assert.truthy(e:find("too small", 1, true), e)
  end)
end)
