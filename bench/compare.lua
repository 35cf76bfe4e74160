-- bench/compare.lua: clua against the plain C OpenCL baseline, same device,
-- same run. Makes, from Lua, the very calls bench/baseline.c makes (same sizes,
-- kernels, warm-ups, repetitions, events; every output checked), and prints
-- each figure with the ratio clua / C.
--   clua bench/compare.lua [--device D] [--size BYTES] [--quick] [--rounds N]
--
-- Each round runs the C program and clua's round, each in a process of its
-- own (this script with --round-csv, which writes its figures as the C
-- program's --csv does): neither side measures in a process that earlier
-- rounds have worn (a driver's pools, caches and threads), and both start alike.
-- Odd rounds run C first, even rounds clua first, so that whatever a process
-- finds left by the one before it falls on both sides alike.
local cl = require("cl")
local argparse = require("argparse")
local stats = require("clua.stats")
local units = require("clua.units")
local report = require("clua.report")
local device = require("clua.device")
local proc = require("clua.proc")
local noise = require("clua.noise")

local p = argparse("compare", "clua beside build/bench/baseline (plain C OpenCL), same device, same run.")
p:option("--device", "Device: a name or P:D (default: CLUA_DEVICE, else the first GPU).")
p:option("--size", "Bytes per buffer (default 256 MiB; --quick 4 MiB)."):convert(units.parse_size)
p:option("--overlap-size", "Bytes per hypot input (default 64 MiB; --quick 2 MiB)."):convert(units.parse_size)
p:option("--reps", "Repetitions per figure.", "10"):convert(math.tointeger)
p:option("--rounds", "Rounds of C then clua (medians over rounds).", "2"):convert(math.tointeger)
p:flag("--quick", "Small sizes.")
p:option("--md", "Also write the table as Markdown to FILE."):argname("FILE")
p:option("--round-csv", "Measure one clua round here and write its figures as CSV to FILE (what each round runs).")
  :argname("FILE")
local args = p:parse()

local SIZE = args.size or (args.quick and 4 * 2 ^ 20 or 256 * 2 ^ 20)
local OVERLAP = args.overlap_size or (args.quick and 2 * 2 ^ 20 or 64 * 2 ^ 20)
SIZE, OVERLAP = math.tointeger(SIZE), math.tointeger(OVERLAP)
local REPS, WARM, LOCAL, ITER, LAUNCH_N, BATCHES = args.reps, 2, 256, 64, 10000, 5

local dev = cl.device(args.device)
-- clua's objects, made only in a round's own process (--round-csv)
local ctx, q, copy_prog, hyp_prog

local function check(what, got, want)
  local ok, _, _, bad = got:compare(want, 0)
  if not ok then error(("%s: element %d differs: %s, expected %s"):format(what, bad, got[bad], want[bad]), 0) end
end

local function timed(step)
  local t = {}
  for r = -WARM + 1, REPS do
    local e = step()
    e:wait()
    if r >= 1 then t[r] = e.duration end
  end
  return stats.median(t)
end

-- Each function returns {id = ns or µs} for one round, like baseline's CSV ids.
local function transfers(out)
  local bytes, n = SIZE, SIZE // 4
  local d = ctx:buffer(bytes)
  local src, dst = cl.array("float", n):random(1, -1, 1), cl.array("float", n):fill(-7)
  out.h2d_pageable = bytes / timed(function() return q:write(d, src) end)
  out.d2h_pageable = bytes / timed(function() return q:read(d, dst) end)
  check("D2H pageable", dst, src)
  local bs, bd = ctx:buffer(bytes, "alloc_host_ptr"), ctx:buffer(bytes, "alloc_host_ptr")
  local ps = q:map(bs, { type = "float" }):random(2, -1, 1)
  local pd = q:map(bd, { type = "float" }):fill(-7)
  out.h2d_pinned = bytes / timed(function() return q:write(d, ps) end)
  out.d2h_pinned = bytes / timed(function() return q:read(d, pd) end)
  check("D2H pinned", pd, ps)
  local d2 = ctx:buffer(bytes)
  out.d2d_copy = 2 * bytes / timed(function() return q:copy(d, d2) end)
  q:read(d2, dst)
  check("D2D", dst, ps)
  q:unmap(ps)
  q:unmap(pd)
end

-- As baseline.c: the output buffer is filled with a NaN pattern (and
-- finished) before each kernel is timed, and the elements a kernel must not
-- write are checked to still hold it. The fill also leaves the device's caches
-- in the state the C program times its kernel in.
local POISON = 0xFFFFFFFF
local function poison(buf)
  q:fill(buf, POISON, { type = "uint" })
  q:finish()
end

-- Elements first, first + step, ... (count of them) of a uint view still poison.
local function check_poison(what, bits, first, count, step)
  if count <= 0 then return end
  local got = cl.array("uint", count):gather(bits, first, step or 1)
  local ok, _, _, bad = got:compare(cl.array("uint", count):fill(POISON), 0)
  if not ok then
    error(("%s: element %d was written (%s), it must hold the poison"):format(what, first + bad * (step or 1),
      got[bad]), 0)
  end
end

local function kernels(out)
  local bytes, n = SIZE, SIZE // 4
  local total = n + 32
  local input = cl.array("float", total):random(3, -1, 1)
  local din, dout = ctx:buffer(bytes + 128), ctx:buffer(bytes + 128)
  q:write(din, input)
  local result = cl.array("float", total)
  local bits = cl.array("uint", total)
  local global = n // LOCAL * LOCAL
  local copy = copy_prog:kernel("copy"):args(dout, din)
  poison(dout)
  out.copy_kernel = 2 * 4 * global / timed(function() return q:launch(copy, global, LOCAL) end)
  q:read(dout, result)
  q:read(dout, bits)
  check("copy", result:slice(0, global), input:slice(0, global))
  check_poison("copy", bits, global, total - global)
  local oc = copy_prog:kernel("offsetCopy")
  for _, off in ipairs({ 0, 1, 17, 32 }) do
    oc:args(dout, din, cl.int(off))
    poison(dout)
    out["offset_" .. off] = 2 * 4 * global / timed(function() return q:launch(oc, global, LOCAL) end)
    q:read(dout, result)
    q:read(dout, bits)
    check("offsetCopy " .. off, result:slice(off, global), input:slice(off, global))
    check_poison("offsetCopy " .. off, bits, 0, off)
    check_poison("offsetCopy " .. off, bits, off + global, total - global - off)
  end
  local sc = copy_prog:kernel("strideCopy")
  for _, s in ipairs({ 2, 4, 8, 16, 32 }) do
    local m = n // s // LOCAL * LOCAL
    sc:args(dout, din, cl.int(s))
    poison(dout)
    out["stride_" .. s] = 2 * 4 * m / timed(function() return q:launch(sc, m, LOCAL) end)
    q:read(dout, result)
    q:read(dout, bits)
    local got, want = cl.array("float", m), cl.array("float", m)
    check("strideCopy " .. s, got:gather(result, 0, s), want:gather(input, 0, s))
    for j = 1, s - 1 do check_poison("strideCopy " .. s, bits, j, m, s) end
    check_poison("strideCopy " .. s, bits, m * s, total - m * s)
  end
end

local function launch(out)
  local k = copy_prog:kernel("empty")
  local no_event, per = { event = false }, {}
  for b = 0, BATCHES do
    q:finish()
    local t0 = cl.now()
    for _ = 1, LAUNCH_N do q:launch(k, 1, nil, no_event) end
    local t1 = cl.now()
    q:finish()
    if b > 0 then per[b] = (t1 - t0) / LAUNCH_N end
  end
  out.launch_enqueue_us = stats.median(per) / 1e3
end

-- The hypotenuse pipeline as baseline.c runs it: 1 queue, then 2 queues on
-- halves enqueued in the guide's staggered order, 64 iterations, pinned memory.
local function overlap(out)
  local hyp = hyp_prog:kernel("hypotenuse")
  local n = OVERLAP // 4 // (2 * LOCAL) * (2 * LOCAL)
  local bytes, h = n * 4, n // 2
  local q1 = ctx:queue()
  local function pinned() return q:map(ctx:buffer(bytes, "alloc_host_ptr"), { type = "float" }) end
  local ha, hb, hc = pinned():random(4, 0.5, 2), pinned():random(5, 0.5, 2), pinned()
  local da, db, dc = ctx:buffer(bytes, "read_only"), ctx:buffer(bytes, "read_only"), ctx:buffer(bytes, "write_only")
  hyp:args(da, db, dc, cl.int(ITER))
  local ref = cl.array("float", n)
  for i = 0, n - 1 do ref[i] = math.sqrt(ha[i] * ha[i] + hb[i] * hb[i]) end
  local nb = { blocking = false }
  local function span(evs)
    local s, e = math.huge, 0
    for _, ev in ipairs(evs) do s, e = math.min(s, ev.start), math.max(e, ev["end"]) end
    return e - s
  end
  local function serial()
    local evs = { q:write(da, ha, nb), q:write(db, hb, nb), q:launch(hyp, n, LOCAL), q:read(dc, hc, nb) }
    q:finish()
    return evs
  end
  local A1, A2, B1, B2, C1, C2 = ha:slice(0, h), ha:slice(h, h), hb:slice(0, h), hb:slice(h, h), hc:slice(0, h), hc:slice(h, h)
  local hi = { offset = h * 4, blocking = false }
  local function two()
    local evs = {}
    evs[1], evs[2] = q:write(da, A1, nb), q:write(db, B1, nb)
    q:flush()
    evs[3] = q:launch(hyp, h, LOCAL, { offset = { 0 } })
    evs[4], evs[5] = q1:write(da, A2, hi), q1:write(db, B2, hi)
    q:flush(); q1:flush()
    evs[6] = q:read(dc, C1, nb)
    evs[7] = q1:launch(hyp, h, LOCAL, { offset = { h } })
    q:flush(); q1:flush()
    evs[8] = q1:read(dc, C2, hi)
    q:finish(); q1:finish()
    return evs
  end
  for name, fn in pairs({ overlap_1queue_ms = serial, overlap_2queues_ms = two }) do
    local t = {}
    for r = -WARM + 1, REPS do
      hc:fill(-1)
      local evs = fn()
      local ok, _, _, bad = hc:compare(ref, 1e-5)
      if not ok then error(("%s: element %d is %s, expected %s"):format(name, bad, hc[bad], ref[bad]), 0) end
      if r >= 1 then t[r] = span(evs) end
    end
    out[name] = stats.median(t) / 1e6
  end
  out.overlap_saved_pct = 100 * (1 - out.overlap_2queues_ms / out.overlap_1queue_ms)
end

-- One clua round, in this process: its figures to the CSV file, then exit.
if args.round_csv then
  ctx = cl.context(dev)
  q = ctx:queue()
  copy_prog = ctx:program_file("copy.cl"):build()
  hyp_prog = ctx:program_file("overlap.cl"):build()
  local out = {}
  transfers(out)
  kernels(out)
  launch(out)
  overlap(out)
  local f = assert(io.open(args.round_csv, "w"))
  for id, v in pairs(out) do f:write(("%s,%.17g,clua\n"):format(id, v)) end
  assert(f:close())
  os.exit(0)
end

-- Runs one side's round, a process of its own writing a CSV: {id = value}.
local baseline = (cl.root or ".") .. "/build/bench/baseline"
local sizes = ("--device %s --size %d --overlap-size %d --reps %d"):format(device.index(dev), SIZE, OVERLAP, REPS)
local function run_round(side)
  local csv = os.tmpname()
  local quote = proc.quote
  local cmd = side == "C" and ("%s %s --csv %s > /dev/null"):format(quote(baseline), sizes, quote(csv))
    or ("%s %s %s --round-csv %s"):format(quote(proc.interpreter()), quote(arg[0]), sizes, quote(csv))
  local ok = os.execute(cmd)
  if not ok then
    os.remove(csv)
    error(("%s's round failed: %s"):format(side, cmd), 0)
  end
  local out = {}
  for line in io.lines(csv) do
    local id, v = line:match("^([%w_]+),([-%d.eE+]+),")
    if id then out[id] = tonumber(v) end
  end
  os.remove(csv)
  return out
end

local load0 = noise.loadavg() or "unknown"
local rounds = { c = {}, clua = {} }
for r = 1, args.rounds do
  for _, side in ipairs(r % 2 == 1 and { "C", "clua" } or { "clua", "C" }) do
    io.stderr:write(("compare: round %d of %d: %s\n"):format(r, args.rounds, side))
    rounds[side == "C" and "c" or "clua"][r] = run_round(side)
  end
end

local function med(side, id)
  local xs = {}
  for _, round in ipairs(rounds[side]) do xs[#xs + 1] = round[id] end
  return #xs > 0 and stats.median(xs) or nil
end

local FIGS = {
  { "h2d_pageable", "H2D pageable", "GB/s", true }, { "d2h_pageable", "D2H pageable", "GB/s", true },
  { "h2d_pinned", "H2D pinned", "GB/s", true }, { "d2h_pinned", "D2H pinned", "GB/s", true },
  { "d2d_copy", "D2D clEnqueueCopyBuffer", "GB/s", true }, { "copy_kernel", "copy kernel", "GB/s", true },
  { "offset_0", "copy kernel, offset 0", "GB/s", true }, { "offset_1", "offset 1", "GB/s", true },
  { "offset_17", "offset 17", "GB/s", true }, { "offset_32", "offset 32", "GB/s", true },
  { "stride_2", "stride 2", "GB/s", true }, { "stride_4", "stride 4", "GB/s", true },
  { "stride_8", "stride 8", "GB/s", true }, { "stride_16", "stride 16", "GB/s", true },
  { "stride_32", "stride 32", "GB/s", true },
  { "launch_enqueue_us", "empty kernel, enqueue (host, no event)", "µs", false },
  { "overlap_1queue_ms", "hypot pipeline, 1 queue", "ms", false },
  { "overlap_2queues_ms", "hypot pipeline, 2 queues", "ms", false },
  { "overlap_saved_pct", "hypot pipeline, time saved", "%", true },
}
local t = report.new{ title = "clua against plain C OpenCL, same device, same run", id = "compare",
  columns = { { name = "figure", key = true }, { name = "unit" }, { name = "C", format = "%.2f" },
    { name = "clua", format = "%.2f", compare = true }, { name = "clua / C", format = "%.3f" },
    { name = "rounds' clua / C" }, { name = "clua's cost", unit = "%", format = "%+.1f" } },
  meta = { device = dev.name, driver = dev.info.driver_version, date = os.date("!%Y-%m-%dT%H:%M:%SZ"),
    clua = cl.version, size = units.format_size(SIZE), rounds = args.rounds, reps = REPS,
    load = ("%s at the start, %s at the end (1, 5, 15 min)"):format(load0, noise.loadavg() or "unknown") } }
-- The lowest and highest ratio clua / C of single rounds: a difference of
-- the medians inside that range is within what the rounds themselves spread.
local function round_range(id)
  local xs = {}
  for r = 1, args.rounds do
    local c, l = rounds.c[r][id], rounds.clua[r][id]
    if c and l and c ~= 0 then xs[#xs + 1] = l / c end
  end
  return #xs > 0 and ("%.3f–%.3f"):format(stats.min(xs), stats.max(xs)) or nil
end

for _, f in ipairs(FIGS) do
  local c, l = med("c", f[1]), med("clua", f[1])
  local ratio = c and l and c ~= 0 and l / c or nil
  -- cost: how much worse clua is (slower time, lower bandwidth), in %
  local cost = ratio and (f[4] and (1 / ratio - 1) or (ratio - 1)) * 100 or nil
  if f[1] == "overlap_saved_pct" then ratio, cost = nil, c and l and (c - l) or nil end -- points, not %
  t:add{ figure = f[2], unit = f[3], C = c, clua = l, ["clua / C"] = ratio,
    ["rounds' clua / C"] = ratio and round_range(f[1]), ["clua's cost"] = cost }
end
t:note(("medians over %d rounds (C then clua in odd rounds, clua then C in even ones, each a process of its own); "
  .. "each figure the median of %d repetitions after %d warm-ups"):format(args.rounds, REPS, WARM))
t:note("clua's cost: how much slower (or lower) clua's figure is than C's, in % (for the time saved, in points); "
  .. "negative: clua measured better")
t:note("rounds' clua / C: the lowest and highest ratio of single rounds (C's round r beside clua's round r)")
t:note("every output checked in both programs; C: build/bench/baseline --csv")
for _, id in ipairs({ "h2d_pageable", "d2h_pageable", "h2d_pinned", "d2h_pinned" }) do
  local c, l = {}, {}
  for r = 1, args.rounds do
    c[r] = ("%.1f"):format(rounds.c[r][id] or 0 / 0)
    l[r] = ("%.1f"):format(rounds.clua[r][id] or 0 / 0)
  end
  t:note(("%s by round (GB/s): C %s; clua %s"):format(id, table.concat(c, ", "), table.concat(l, ", ")))
end
io.write(report.text(t), "\n")
if args.md then
  local f = assert(io.open(args.md, "w"))
  f:write(report.markdown(t), "\n")
  f:close()
end
