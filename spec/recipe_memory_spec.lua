-- recipes/memory.lua --quick on the default device (PoCL in CI), run as a
-- subprocess: pointer-chase latency and read bandwidth by working set, local
-- memory bandwidth by vector width, each verified before it prints;
-- CLUA_CORRUPT=memory makes it exit non-zero with no table; a bad option is
-- refused.
local json = require "dkjson"
local support = require "spec.support.recipe"

local run = support.runner("memory", { env_first = true })
local slurp, by_id = support.slurp, support.by_id

local TITLES = { "Pointer chase: latency per dependent load", "Read bandwidth by working set",
  "Local memory bandwidth by vector width" }

describe("recipe memory", function()
  local out, code, err, tables

  setup(function()
    local path = os.tmpname()
    out, code, err = run(nil, "--json " .. path)
    local text = slurp(path)
    os.remove(path)
    tables = text and by_id(json.decode(text)) or {}
  end)

  it("runs --quick and exits 0, printing the three tables and the plots", function()
    assert.are.equal(0, code, err)
    for _, title in ipairs(TITLES) do assert.truthy(out:find(title, 1, true), title) end
    assert.truthy(out:find("Pointer chase: latency by working set", 1, true))
    assert.truthy(out:find("log2 scale", 1, true))
  end)

  it("chases 1 KiB .. 4 MiB, doubling, with a latency > 0 in ns and in cycles", function()
    local t = assert(tables.chase)
    assert.are.equal(13, #t.rows)
    for i, r in ipairs(t.rows) do
      assert.are.equal(1024 * 2 ^ (i - 1), r["working set"])
      assert.is_true(r.latency > 0 and r.latency < 1e6, tostring(r.latency))
      assert.is_true(r.steps >= 4096)
      assert.is_true(r.slot >= 128)
      if r.cycles then assert.is_true(r.cycles > 0) end
    end
    local notes = table.concat(t.notes, "\n")
    assert.truthy(notes:match("level 1[:(%s]"), notes) -- on NVIDIA "level 1 (L1, likely):"
    assert.truthy(notes:find("verified: after every working set", 1, true), notes)
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
    local first = { ["chase,bandwidth,local"] = "verify chase over 1 KiB: the index reached and the steps taken: 1 of 2",
      bandwidth = "verify bandwidth over 64 KiB: %d+ work%-items' sums: 1 of", ["local"] = "verify local float, work%-items 0%.%.%d+: 1 of" }
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
