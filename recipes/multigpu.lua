-- multigpu: every device of a platform alone, then all at once, and the
-- device-to-device matrix. Host<->device bandwidth (H2D, D2H, both directions
-- at once) from pinned memory and a device copy kernel, first on each device
-- alone, then started on every device at once from one host thread and
-- flushed together: the aggregate against the sum of the alones is the cost
-- of sharing host memory and the PCIe switches. Then, in one context holding
-- every device, nvbandwidth's matrix (rows the source, columns the
-- destination, GB/s): the buffer is first migrated to its source device
-- (q:migrate), then the migration to the destination is timed, and the bytes
-- are checked there. With one device (PoCL in CI) the tables have one row and
-- a note says so.
local cl = require "cl"
local recipe = require "clua.recipe"
local units = require "clua.units"
local timeline = require "clua.timeline"
local devicemod = require "clua.device"
local noise = require "clua.noise"
local stats = require "clua.stats"

local R = recipe.new{
  name = "multigpu",
  description = "Each device alone and all at once (H2D, D2H, both, device copy), and the device-to-device matrix.",
  seed = "nvbandwidth's host and device-to-device matrices; the guide's 3.1 on host transfers",
  size = "256MiB", quick_size = "1MiB", quick_reps = 3,
}

local OPS = { "H2D", "D2H", "both", "copy" }

-- The devices to use: every device of the chosen device's platform.
local function platform_devices(dev)
  for _, pl in ipairs(cl.platforms()) do
    local list = pl:devices()
    for _, d in ipairs(list) do if d == dev then return list end end
  end
  return { dev }
end

R:main(function(R, dev)
  local devices = platform_devices(dev)
  local bytes = math.tointeger(R.size) // 4 * 4
  local n = bytes // 4
  local src = cl.array("float", n):random(11, -1, 1)

  -- One context and queue per device (the alone and all-at-once runs), each
  -- with its pinned host memory, its device buffers and a copy kernel.
  local rigs = {}
  for i, d in ipairs(devices) do
    local ctx = cl.context(d)
    local q = ctx:queue()
    local q2 = ctx:queue() -- the second direction of "both"
    local hin = q:map(ctx:buffer(bytes, "alloc_host_ptr"), { type = "float" })
    hin:copy(src)
    local hout = q:map(ctx:buffer(bytes, "alloc_host_ptr"), { type = "float" })
    local da, db = ctx:buffer(bytes), ctx:buffer(bytes)
    local k = ctx:program_file("copy.cl"):build():kernel("copy"):args(db, da)
    rigs[i] = { device = d, index = devicemod.index(d) or tostring(i - 1), ctx = ctx, q = q, q2 = q2, hin = hin,
      hout = hout, da = da, db = db, k = k }
  end

  -- Enqueues one operation on a rig without waiting; returns its events.
  local function start(r, op)
    if op == "H2D" then return { r.q:write(r.da, r.hin, { blocking = false }) } end
    if op == "D2H" then return { r.q:read(r.da, r.hout, { blocking = false }) } end
    if op == "both" then
      return { r.q:write(r.da, r.hin, { blocking = false }), r.q2:read(r.db, r.hout, { blocking = false }) }
    end
    return { r.q:launch(r.k, n) }
  end
  local function moved(op) return op == "copy" and 2 * bytes or (op == "both" and 2 * bytes or bytes) end

  -- Runs op on the given rigs at once, reps times after warm-ups: host-clock
  -- span of each repetition (enqueue all, flush all, wait all), the share of
  -- it spent before every enqueue had returned, and each rig's event span;
  -- the last repetition's events for the timeline.
  local function run(list, op)
    local spans, enq, per, last = {}, {}, {}, nil
    for rep = -R.warmup + 1, R.reps do
      local t0 = cl.now()
      local evs = {}
      for i, r in ipairs(list) do evs[i] = start(r, op) end
      local tq = cl.now()
      for _, r in ipairs(list) do r.q:flush(); r.q2:flush() end
      for _, e in ipairs(evs) do cl.wait(e) end
      local t1 = cl.now()
      if rep >= 1 then
        spans[rep] = t1 - t0
        enq[rep] = (tq - t0) / (t1 - t0) * 100
        for i, e in ipairs(evs) do
          local s, f = math.huge, 0
          for _, x in ipairs(e) do s, f = math.min(s, x.start), math.max(f, x["end"]) end
          per[i] = per[i] or {}
          per[i][rep] = f - s
        end
        last = evs
      end
    end
    local meds = {}
    for i, p in ipairs(per) do meds[i] = stats.median(p) end
    return stats.median(spans), meds, last, noise.spread(spans), stats.median(enq)
  end

  -- Checks what each operation left: the device buffer holds src after H2D,
  -- the host array after D2H, db after the copy.
  local function check(r, op)
    local got = cl.array("float", n)
    if op == "H2D" or op == "both" then r.q:read(r.da, got) end
    if op == "D2H" then got:copy(r.hout) end
    if op == "copy" then r.q:read(r.db, got) end
    R:verify(("%s on %s"):format(op, r.device.name), got, src, { exact = true })
  end

  local alone = R:table{ title = ("Each device alone (%s per transfer, pinned host memory)"):format(units.format_size(bytes)),
    id = "alone", columns = { { name = "device", key = true }, { name = "index", key = true },
      { name = "H2D", unit = R.bw_unit, format = "%.1f", compare = true }, { name = "D2H", unit = R.bw_unit, format = "%.1f" },
      { name = "both", unit = R.bw_unit, format = "%.1f" }, { name = "copy", unit = R.bw_unit, format = "%.1f" } } }
  local sum = {} -- of the alones by the host clock, as the all-at-once aggregate is taken
  for _, r in ipairs(rigs) do
    local row = { device = r.device.name, index = r.index }
    for _, op in ipairs(OPS) do
      local span, meds = run({ r }, op)
      if R.corrupt and op == "H2D" then r.q:fill(r.da, 0, { type = "float", size = 4 }) end
      check(r, op)
      row[op] = R:bw(moved(op), meds[1])
      sum[op] = (sum[op] or 0) + R:bw(moved(op), span)
    end
    alone:add(row)
  end
  alone:note("each figure: bytes moved / the median span of the operation's events (" .. R.reps .. " runs); both: an "
    .. "H2D and a D2H at once on two queues, their bytes added; copy: a kernel reading and writing the buffer")
  R:emit(alone)

  local together = R:table{ title = "All at once: every device started from one host thread, flushed together",
    id = "together", columns = { { name = "operation", key = true },
      { name = "aggregate", unit = R.bw_unit, format = "%.1f", compare = true },
      { name = "sum of alone", unit = R.bw_unit, format = "%.1f" },
      { name = "aggregate / sum", unit = "x", format = "%.2f" }, noise.column(),
      { name = "slowest device", unit = R.bw_unit, format = "%.1f" },
      { name = "enqueue", unit = "% of span", format = "%.0f" } } }
  local tl = timeline.new(("multigpu: H2D on %d device%s at once"):format(#rigs, #rigs == 1 and "" or "s"))
  for _, op in ipairs(OPS) do
    local span, meds, last, spread, enqueue = run(rigs, op)
    for _, r in ipairs(rigs) do check(r, op) end
    local slowest = math.huge
    for _, m in ipairs(meds) do slowest = math.min(slowest, R:bw(moved(op), m)) end
    local agg = R:bw(moved(op) * #rigs, span)
    together:add{ operation = op, aggregate = agg, ["sum of alone"] = sum[op], ["aggregate / sum"] = agg / sum[op],
      spread = spread, ["slowest device"] = slowest, enqueue = enqueue }
    if op == "H2D" then
      for i, e in ipairs(last) do
        for _, x in ipairs(e) do tl:add(("%s %s"):format(rigs[i].index, rigs[i].device.name), "write", "H2D", x) end
      end
    end
  end
  together:note("aggregate: bytes moved on every device / the host-clock span from the first enqueue to the last "
    .. "wait's return (median of " .. R.reps .. "); sum of alone: each device's figure taken the same way when it ran "
    .. "alone; slowest device: by its own events; enqueue: the host-clock time until every enqueue of the "
    .. "repetition had returned, in % of its span (median): near 0 when the enqueues return at once and the devices "
    .. "work after the flush, near 100 when an enqueue meant not to block waited for its transfer")
  if #rigs == 1 then
    together:note("one device on this platform: all at once is the same run as alone, and aggregate / sum differs "
      .. "from 1 by its noise only (on a host with several GPUs the aggregate tells whether they moved data at the "
      .. "same time)")
  end
  R:emit(together)
  R:timeline(tl)

  -- The device-to-device matrix, in one context holding every device.
  local ctx = cl.context(devices)
  local qs = {}
  for i, d in ipairs(devices) do qs[i] = ctx:queue(d) end
  local buf = ctx:buffer(src)
  local matrix = R:table{ title = "Device to device: migrating a buffer (rows: source, columns: destination)",
    id = "matrix", columns = { { name = "source", key = true } } }
  for j, r in ipairs(rigs) do
    matrix.columns[#matrix.columns + 1] = { name = r.index, unit = R.bw_unit, format = "%.1f", compare = j == 1 }
  end
  local got = cl.array("float", n)
  for i, ri in ipairs(rigs) do
    local row = { source = ("%s %s"):format(ri.index, ri.device.name) }
    for j, rj in ipairs(rigs) do
      local times = {}
      for rep = -R.warmup + 1, R.reps do
        qs[i]:migrate(buf):wait()            -- the source's copy of the data on device i
        local e = qs[j]:migrate(buf)         -- then to device j
        e:wait()
        if rep >= 1 then times[rep] = e.duration end
      end
      qs[j]:read(buf, got)
      R:verify(("%s -> %s"):format(ri.index, rj.index), got, src, { exact = true })
      if i ~= j then row[rj.index] = R:bw(bytes, math.max(1, stats.median(times))) end
    end
    matrix:add(row)
  end
  matrix:note(("each cell: %s / the median duration of q_dst:migrate(buf) after q_src:migrate(buf) placed it on the "
    .. "source (clEnqueueMigrateMemObjects); the diagonal is empty; checked on the destination"):format(
    units.format_size(bytes)))
  if #rigs == 1 then matrix:note("one device: no pair to measure") end
  R:emit(matrix)
end)
