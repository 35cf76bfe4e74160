-- clua.memstudy: the memory studies' reading of their sweeps, fed synthetic
-- levels and facts: the read sweep's sample and replay, the bound of a
-- working set read again and again, the points added around a level's end,
-- the levels' names on NVIDIA and elsewhere, and the notes of a chase, a read
-- sweep and a TLB sweep.
package.path = "lua/?.lua;" .. package.path
local memstudy = require("clua.memstudy")
local levels = require("clua.levels")
local report = require("clua.report")
local plot = require("clua.plot")

local KiB, MiB = 1024, 1024 * 1024

-- the H100's pointer chase (spec/support/h100chase.lua): L1, the L2's near
-- and far partitions, HBM; 256 KiB a transition
local h100 = require("spec.support.h100chase")
local function curve(list) return h100.curve(list, 0.005) end
local H100 = h100.LATENCY

local NVIDIA = { vendor = "NVIDIA Corporation", compute_capability = "9.0", global_mem_cache = 2 * MiB }
local OTHER = { vendor = "Advanced Micro Devices, Inc.", global_mem_cache = 4 * MiB }

local function table_and_plot()
  return report.new{ title = "t", columns = { "working set" } },
    plot.new{ title = "p", x = { name = "working set", unit = "bytes", log2 = true }, y = { name = "latency" } }
end

local function cycles(ns) return (" (%.0f cycles)"):format(ns * 2) end

describe("clua.memstudy", function()
  it("samples work-items evenly, with the last and the middle", function()
    assert.are.same({ 0, 2, 5, 7, 9 }, memstudy.sample(10, 4))
    assert.are.same({ 0, 1, 2, 3 }, memstudy.sample(4, 4))
    local s = memstudy.sample(2048, 513)
    assert.are.equal(0, s[1])
    local has = {}
    for _, g in ipairs(s) do has[g] = true; assert.is_true(g >= 0 and g < 2048) end
    assert.is_true(has[2047] and has[1024])
  end)

  it("replays a work-item's reads of the read sweep", function()
    -- a[k] = (k % 7, k % 5, k % 3, 1): one read of k = 0 sums 1; of k = 10, 3 + 0 + 1 + 1
    assert.are.equal(1.0, memstudy.read_sum(0, 1, 5, 15))
    assert.are.equal(5.0, memstudy.read_sum(10, 1, 5, 15))
    -- two reads: k = 10, then (10 + 8) & 15 = 2: 2 + 2 + 2 + 1
    assert.are.equal(12.0, memstudy.read_sum(10, 2, 8, 15))
    assert.are.equal("float", math.type(memstudy.read_sum(3, 4, 7, 63)))
  end)

  it("holds a set read again and again against the cache bound up to REREAD times the caches", function()
    assert.are.equal("memory", memstudy.read_bound(2 * MiB, OTHER)) -- within: the harness's cache figure
    assert.are.equal("cache", memstudy.read_bound(8 * MiB, OTHER))
    assert.are.equal("cache", memstudy.read_bound(memstudy.REREAD * 4 * MiB, OTHER))
    assert.are.equal("memory", memstudy.read_bound(memstudy.REREAD * 4 * MiB + 1, OTHER))
    assert.are.equal("cache", memstudy.read_bound(128 * MiB, NVIDIA)) -- NVIDIA's 50 MiB L2, not the driver's 2 MiB
    local note = memstudy.read_bound_note(NVIDIA)
    assert.truthy(note:find("larger than the caches (50 MiB, NVIDIA's L2 for compute capability 9.0) but within 8x",
      1, true), note)
  end)

  it("knows NVIDIA's L2 only where NVIDIA's figure is the bound's", function()
    local bytes, from = memstudy.l2(NVIDIA)
    assert.are.equal(50 * MiB, bytes)
    assert.truthy(from:find("NVIDIA", 1, true))
    assert.is_nil(memstudy.l2(OTHER))
    assert.is_nil(memstudy.l2({ vendor = "NVIDIA Corporation", compute_capability = "99.0", global_mem_cache = MiB }))
  end)

  it("adds quarter octaves around each level's end, each once, rounded", function()
    local lv = { { from = 1 * KiB, to = 16 * KiB }, { from = 64 * KiB, to = 256 * KiB }, { from = 2 * MiB, to = 4 * MiB } }
    local ws = memstudy.refine(lv)
    local seen = {}
    for _, w in ipairs(ws) do
      assert.is_nil(seen[w], "once: " .. w)
      seen[w] = true
      assert.are.equal(0, w % (w >= 65536 and 65536 or 1024), tostring(w))
      assert.is_true((w > 8 * KiB and w < 64 * KiB) or (w > 128 * KiB and w < 2 * MiB), tostring(w))
    end
    assert.truthy(seen[9 * KiB] and seen[19 * KiB] and seen[192 * KiB])
    assert.are.same({}, memstudy.refine({ lv[1] }))
  end)

  it("names the levels on NVIDIA only, the chase's and the read sweep's each its way", function()
    local lv = levels.find(curve(H100))
    assert.are.same({ "L1", "L2, near partition", "L2, far partition", "HBM/DRAM" }, memstudy.names(NVIDIA, lv, true))
    assert.are.same({ "L1", "between L1 and L2", "L2", "HBM/DRAM" }, memstudy.names(NVIDIA, lv, false))
    assert.are.same({}, memstudy.names(OTHER, lv, true))
    assert.are.same({}, memstudy.names(NVIDIA, { lv[1], lv[2] }, true))
  end)

  it("writes a chase's level notes: latency, capacity, the transition, the L2 as measured, the rule", function()
    local pts = curve(H100)
    local lv, tr = levels.find(pts)
    local t, pl = table_and_plot()
    memstudy.chase_notes(t, pl, NVIDIA, lv, tr, pts, cycles, 1.15)
    local notes = table.concat(t.notes, "\n")
    assert.truthy(notes:find("level 1 (L1, likely): 20.1 ns (40 cycles) per load (20.0 to 20.3), 1 KiB to 128 KiB; "
      .. "ends near 128 KiB (the next, 512 KiB, is 7.12x slower); holds about", 1, true), notes)
    assert.truthy(notes:find("level 4 (HBM/DRAM, likely): 316.5 ns (633 cycles) per load (313.0 to 318.0), "
      .. "128 MiB to 4 GiB; the last level measured", 1, true), notes)
    assert.truthy(notes:find("\ntransition between level 1 and level 2: 256 KiB (91.0 ns)\n", 1, true), notes)
    assert.truthy(notes:find("the L2 as measured: its latency holds to 64 MiB, rises from 128 MiB", 1, true), notes)
    assert.truthy(notes:find("; 50 MiB (NVIDIA's L2 for compute capability 9.0)", 1, true), notes)
    assert.truthy(t.notes[#t.notes]:find("^levels %(clua.levels%): neighbouring levels differ by more than 1.15x"))
    assert.are.equal(1, #pl.series)
    assert.are.equal("level ends", pl.series[1].name)
    assert.are.equal(3, #pl.series[1].points)
    -- an NVIDIA device whose L2 clua does not know: the note says so
    t, pl = table_and_plot()
    memstudy.chase_notes(t, pl, { vendor = "NVIDIA", compute_capability = "99.0", global_mem_cache = MiB }, lv, tr,
      pts, cycles, 1.15)
    notes = table.concat(t.notes, "\n")
    assert.truthy(notes:find("the L2 as measured: its latency holds to 8 MiB, rises from 16 MiB; its size unknown",
      1, true), notes)
  end)

  it("writes a read sweep's plateaus, the medians around the first knee, or one plateau", function()
    local bw = { 900, 910, 905, 400, 410, 405, 100, 101 }
    local pts = {}
    for i, y in ipairs(bw) do pts[i] = { x = 65536 * 2 ^ (i - 1), y = y, lo = y * 0.99, hi = y * 1.01 } end
    local lv = levels.find(pts)
    assert.are.equal(3, #lv)
    local t, pl = table_and_plot()
    memstudy.bandwidth_notes(t, pl, OTHER, lv, bw, "GB/s", 1.5)
    assert.are.same({ "level 1: median 905.0 GB/s, 64 KiB to 256 KiB; 2.2x the next level's",
      "level 2: median 405.0 GB/s, 512 KiB to 2 MiB; 4.0x the next level's",
      "level 3: median 100.5 GB/s, 4 MiB to 8 MiB",
      "below the first knee (up to 256 KiB) median 905.0 GB/s; above it 400.0 GB/s",
      memstudy.rule(1.5) }, t.notes)
    assert.are.equal(2, #pl.series[1].points)
    t, pl = table_and_plot()
    memstudy.bandwidth_notes(t, pl, OTHER, { lv[1] }, { 900, 910, 905 }, "GB/s", 1.5)
    assert.are.equal("no knee found: one plateau", t.notes[2])
  end)

  it("writes a TLB sweep's reach in pages and the latency over the lines alone", function()
    local lat = { 100, 101, 100, 160, 161 }
    local pts = {}
    for i, y in ipairs(lat) do pts[i] = { x = 2 ^ i * 4096, y = y, lo = y * 0.99, hi = y * 1.01 } end
    local lv, tr = levels.find(pts)
    local t = table_and_plot()
    memstudy.tlb_notes(t, lv, tr, { 1, 2, 3, 50, 60 }, 4096, cycles)
    assert.are.same({ "4 KiB strides, level 1: 100.0 ns (200 cycles) per load (+2.0 ns over the lines alone), "
      .. "8 KiB to 32 KiB; reach 32 KiB: 8 pages (the next level from 16 pages, 1.60x slower)",
      "4 KiB strides, level 2: 160.5 ns (321 cycles) per load (+55.0 ns over the lines alone), 64 KiB to 128 KiB; "
      .. "the last level measured" }, t.notes)
  end)

  it("says a level's working sets and each pair's transitions", function()
    assert.are.equal("at 4 KiB", memstudy.span({ from = 4096, to = 4096 }))
    assert.are.equal("1 KiB to 16 KiB", memstudy.span({ from = 1024, to = 16384 }))
    local t = table_and_plot()
    memstudy.transitions(t, { { x = 512 * KiB, y = 19.4, after = 2 }, { x = MiB, y = 36.9, after = 2 },
      { x = 32 * KiB, y = 2.2, after = 1 } }, "x, ")
    assert.are.same({ "x, transition between level 1 and level 2: 32 KiB (2.2 ns)",
      "x, transitions between level 2 and level 3: 512 KiB (19.4 ns), 1 MiB (36.9 ns)" }, t.notes)
  end)
end)
