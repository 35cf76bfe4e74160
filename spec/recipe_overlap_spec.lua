-- recipes/overlap.lua --quick on the default device (PoCL in CI).
local json = require("dkjson")
local support = require("spec.support.recipe")

local run = support.runner("overlap")

describe("recipes/overlap.lua", function()
  local out, code, err, doc
  setup(function()
    local tmp = os.tmpname()
    local trace = os.tmpname()
    out, code, err = run("--max-queues 3 --max-chunks 6 --json " .. tmp .. " --trace " .. trace)
    local f = io.open(tmp)
    doc = f and json.decode(f:read("a"))
    if f then f:close() end
    f = io.open(trace)
    if doc then doc.trace = f and json.decode(f:read("a")) end -- no doc: the first test shows why
    if f then f:close() end
    os.remove(tmp)
    os.remove(trace)
  end)

  it("exits 0 and prints the phases, the pinned and the pageable tables", function()
    assert.are.equal(0, code, err)
    assert.truthy(out:find("Phases of the serial pipeline", 1, true))
    assert.truthy(out:find("Copy/compute overlap, pinned host memory", 1, true))
    assert.truthy(out:find("The same with pageable host memory", 1, true))
    assert.truthy(out:find("queue 1 |", 1, true), "the timeline")
  end)

  it("has a row per configuration: 1x1, then N x M with M a power-of-two multiple of N", function()
    local t
    for _, tab in ipairs(doc.tables) do if tab.id == "overlap" then t = tab end end
    assert.truthy(t)
    local seen = {}
    for _, row in ipairs(t.rows) do
      seen[#seen + 1] = ("%dx%d"):format(row.queues, row.chunks)
      assert.is_true(row.time > 0 and row.min <= row.time and row.time <= row.max)
    end
    assert.are.same({ "1x1", "2x2", "2x4", "3x3", "3x6" }, seen)
    assert.are.equal(0, t.rows[1].saved)
  end)

  it("gives every timed table a spread column, and times each pageable configuration once", function()
    local by = {}
    for _, tab in ipairs(doc.tables) do by[tab.id] = tab end
    for _, id in ipairs({ "phases", "overlap", "pageable" }) do
      local names = {}
      for _, c in ipairs(assert(by[id], id).columns) do names[c.name] = true end
      assert.is_true(names.spread, id)
      for _, row in ipairs(by[id].rows) do assert.is_number(row.spread, id) end
    end
    local seen = {}
    for _, row in ipairs(by.pageable.rows) do
      local key = row.queues .. "x" .. row.chunks
      assert.is_nil(seen[key], key)
      seen[key] = true
    end
  end)

  it("writes a trace with one lane per queue of the best configuration", function()
    local names = {}
    for _, e in ipairs(doc.trace.traceEvents) do
      if e.ph == "M" and e.name == "thread_name" then names[#names + 1] = e.args.name end
    end
    assert.is_true(#names >= 1 and #names <= 3)
  end)

  it("fails without printing a figure when a result is corrupted", function()
    local o, c, e = run("--max-queues 2 --max-chunks 2", "CLUA_CORRUPT=overlap")
    assert.are_not.equal(0, c)
    assert.falsy(o:find("GB/s", 1, true))
    assert.falsy(o:find("Copy/compute overlap", 1, true))
    assert.truthy(e:find("verify", 1, true), e)
  end)

  it("rejects a size too small for one work-group per chunk", function()
    local _, c, e = run("--size 1K")
    assert.are_not.equal(0, c)
    assert.truthy(e:find("too small", 1, true), e)
  end)
end)
