-- recipes/multigpu.lua --quick on the default platform (PoCL in CI: one
-- device): each device alone, all at once, the device-to-device matrix by
-- q:migrate; every transfer checked; CLUA_CORRUPT=multigpu exits non-zero
-- with no table.
local support = require("spec.support.recipe")

local run = support.runner("multigpu")

describe("recipe multigpu", function()
  local tables, out

  setup(function() tables, out = support.tables("multigpu") end)

  it("measures each device alone: H2D, D2H, both directions and a copy kernel", function()
    local t = assert(tables.alone)
    assert.is_true(#t.rows >= 1)
    for _, r in ipairs(t.rows) do
      assert.matches("^%d+:%d+$", r.index)
      for _, op in ipairs({ "H2D", "D2H", "both", "copy" }) do assert.is_true(r[op] > 0, op) end
    end
  end)

  it("runs every device at once and sets the aggregate beside the sum of the alones", function()
    local t = assert(tables.together)
    assert.are.equal(4, #t.rows)
    for _, r in ipairs(t.rows) do
      assert.is_true(r.aggregate > 0 and r["sum of alone"] > 0)
      assert.near(r.aggregate / r["sum of alone"], r["aggregate / sum"], 1e-9)
      assert.is_true(r.enqueue >= 0 and r.enqueue <= 100, "enqueue share " .. tostring(r.enqueue))
    end
    if #tables.alone.rows == 1 then assert.matches("one device on this platform", out, 1, true) end
    assert.matches("multigpu: H2D on", out, 1, true) -- the timeline
  end)

  it("has a device-to-device matrix, a row per device", function()
    local t = assert(tables.matrix)
    assert.are.equal(#tables.alone.rows, #t.rows)
  end)

  it("fails, printing no table, when a transfer is corrupted", function()
    local o, code, err = run("", "CLUA_CORRUPT=multigpu")
    assert.are_not.equal(0, code)
    assert.matches("verify H2D on .*: 1 of %d+ elements differ", err)
    assert.is_nil(o:find("Each device alone", 1, true))
  end)
end)

-- Any number of devices: PoCL makes as many CPU devices as POCL_DEVICES
-- names, so three of them stand in for a three-GPU host (the code path of
-- 2, 4 or 8 GPUs, which CI has none of). Only where the default device is
-- PoCL's.
describe("recipe multigpu on three devices (POCL_DEVICES)", function()
  local json = require("dkjson")
  local cl = require("cl")
  local pocl = cl.device().info.platform:match("Portable") ~= nil
  local env = 'POCL_DEVICES="pthread pthread pthread"'
  local tables, out, trace

  setup(function()
    if not pocl then return end
    local path, tpath = os.tmpname(), os.tmpname()
    local code, err
    out, code, err = support.run("multigpu", ("--json %s --trace %s"):format(path, tpath), env)
    assert(code == 0, "the recipe failed: " .. err)
    tables = support.tables_of(path)
    trace = json.decode(support.slurp(tpath))
    os.remove(tpath)
  end)

  it("has a row per device alone, labelled 0:0 to 0:2", function()
    if not pocl then return pending("the default device is not PoCL's") end
    local idx = {}
    for i, r in ipairs(tables.alone.rows) do idx[i] = r.index end
    assert.are.same({ "0:0", "0:1", "0:2" }, idx)
    assert.falsy(out:find("one device on this platform", 1, true))
  end)

  it("runs the three at once, the aggregate beside the sum of three alones", function()
    if not pocl then return pending("the default device is not PoCL's") end
    assert.are.equal(4, #tables.together.rows)
    for _, r in ipairs(tables.together.rows) do
      assert.is_true(r.aggregate > 0 and r["sum of alone"] > 0 and r["slowest device"] > 0)
    end
    assert.matches("multigpu: H2D on 3 devices at once", out, 1, true)
  end)

  it("sets plain C's aggregate (bench/multigpu.c) beside clua's, where it is built", function()
    if not pocl then return pending("the default device is not PoCL's") end
    local f = io.open((cl.root or ".") .. "/build/bench/multigpu")
    if not f then
      assert.matches("C: build/bench/multigpu is not built", out, 1, true)
      return
    end
    f:close()
    for _, r in ipairs(tables.together.rows) do
      assert.is_true(r["C one thread"] > 0 and r["C thread per device"] > 0, r.operation)
      assert.near(r.aggregate / r["C one thread"], r["clua / C"], 1e-6)
    end
  end)

  it("has a 3 x 3 device-to-device matrix, its diagonal empty", function()
    if not pocl then return pending("the default device is not PoCL's") end
    local t = tables.matrix
    assert.are.equal(3, #t.rows)
    local cells = 0
    for i, r in ipairs(t.rows) do
      for j = 0, 2 do
        local v = r[("0:%d"):format(j)]
        if j == i - 1 then
          assert.is_true(v == nil or v == "-", ("diagonal %d: %s"):format(j, tostring(v)))
        else
          assert.is_number(v)
          assert.is_true(v > 0)
          -- no figure above its bound: the cap for any link (the driver tells none between devices)
          assert.is_true(v <= 10000 * 1.02, ("%d -> %d: %s GB/s"):format(i - 1, j, v))
          cells = cells + 1
        end
      end
    end
    assert.are.equal(6, cells)
  end)

  it("times every path of every pair by the host clock, each figure within its bound", function()
    if not pocl then return pending("the default device is not PoCL's") end
    local t = tables.paths
    assert.are.equal(6 * 5, #t.rows)
    local best, seen = {}, {}
    for _, r in ipairs(t.rows) do
      seen[r.path] = true
      assert.is_true(r.bandwidth > 0)
      assert.is_true(r.bandwidth <= r.bound * 1.02, ("%s -> %s %s"):format(r.source, r.destination, r.path))
      -- an event is shown only where it agrees with the host clock: never far above it
      if type(r.event) == "number" then
        assert.is_true(r.event <= r.bandwidth / 0.5 * 1.02, ("%s -> %s %s: event %s, host %s"):format(r.source,
          r.destination, r.path, r.event, r.bandwidth))
      end
      local k = r.source .. ">" .. r.destination
      best[k] = math.max(best[k] or 0, r.bandwidth)
    end
    assert.are.same({ copy = true, migrate = true, staged = true, ["staged x8"] = true, pageable = true }, seen)
    -- the matrix holds each pair's fastest path
    for _, r in ipairs(tables.matrix.rows) do
      local from = r.source:match("^(%d+:%d+)")
      for j = 0, 2 do
        local to = ("0:%d"):format(j)
        if to ~= from then assert.near(best[from .. ">" .. to], r[to], 1e-6) end
      end
    end
    assert.matches("host clock from the source's completion", out, 1, true)
  end)

  it("names what joins each pair (unknown off NVIDIA) and its fastest path", function()
    if not pocl then return pending("the default device is not PoCL's") end
    local t = tables.links
    assert.are.equal(6, #t.rows)
    for _, r in ipairs(t.rows) do
      assert.are.equal("unknown", r.link)
      assert.is_string(r["fastest path"])
      assert.is_true(r["of bound"] > 0 and r["of bound"] <= 102)
    end
    assert.matches("link unknown: not an NVIDIA device", out, 1, true)
  end)

  it("writes a timeline with a lane per device", function()
    if not pocl then return pending("the default device is not PoCL's") end
    local lanes, spans = {}, {}
    for _, e in ipairs(trace.traceEvents) do
      if e.name == "thread_name" then lanes[#lanes + 1] = e.args.name:match("^(%d+:%d+)") end
      if e.ph == "X" then spans[e.tid] = (spans[e.tid] or 0) + 1 end
    end
    table.sort(lanes)
    assert.are.same({ "0:0", "0:1", "0:2" }, lanes)
    for tid = 1, 3 do assert.is_true((spans[tid] or 0) >= 1, "no span in lane " .. tid) end
  end)
end)
