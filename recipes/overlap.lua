-- overlap: copy/compute overlap with several command queues.
-- NVIDIA OpenCL Best Practices Guide, 3.1.3 (the oclCopyComputeOverlap sample):
-- write A and B to the device, compute C = sqrt(A² + B²), read C back, from
-- pinned host memory; once on one queue, then split into chunks spread over
-- several queues so that one chunk's transfers overlap another's kernel.
local cl = require("cl")
local recipe = require("clua.recipe")
local timeline = require("clua.timeline")
local units = require("clua.units")

local R = recipe.new{
  name = "overlap",
  description = [[Copy/compute overlap: the hypotenuse pipeline on 1 queue, 2 queues and N queues x M chunks.]],
  seed = "NVIDIA OpenCL Best Practices Guide 3.1.3, oclCopyComputeOverlap",
  quick_size = "1MiB", check_size = "48KiB", size_share = 8,
  options = function(p)
    p:int("--iterations", "Arithmetic iterations of the kernel (default: balanced against the transfers).")
    p:option("--copy-engines", "Copy engines assumed by the model (default: 2 on an NVIDIA GPU that reports "
      .. "overlap, 1 on other GPUs, 0 on CPUs).") :argname("N"):convert(require("clua.argcheck").whole)
    p:int("--max-queues", "Largest number of queues tried.", "4")
    p:int("--max-chunks", "Largest number of chunks tried.", "16")
  end,
}

local LOCAL = 256

-- The pipeline model: the time of M chunks over N in-order queues with perfect overlap, from the serial
-- run's phase times (ns) and the copy engines. Each chunk is write A, write B, kernel, read C on queue
-- (chunk mod N); a command starts once its queue's previous command and its engine are free (greedy:
-- earliest start first, then the command enqueued first, as an engine serves its queues). Engines: 2,
-- writes and reads have an engine each; 1, they share one; 0, nothing runs concurrently (a CPU device).
local function ideal(w, k, r, nq, m, engines)
  local function engine(kind)
    return engines == 0 and "all" or kind == "kernel" and "compute" or engines >= 2 and kind or "copy"
  end
  local queues, seq = {}, 0
  for c = 0, m - 1 do
    local q = queues[c % nq + 1] or {}
    queues[c % nq + 1] = q
    for _, cmd in ipairs({ { "write", w / 2 / m }, { "write", w / 2 / m }, { "kernel", k / m }, { "read", r / m } }) do
      seq = seq + 1
      q[#q + 1] = { engine(cmd[1]), cmd[2], seq }
    end
  end
  local qfree, efree, next_cmd, finish = {}, {}, {}, 0
  for i = 1, #queues do qfree[i], next_cmd[i] = 0, 1 end
  for _ = 1, 4 * m do
    local best, best_start, best_seq
    for i, q in ipairs(queues) do
      local cmd = q[next_cmd[i]]
      local start = cmd and math.max(qfree[i], efree[cmd[1]] or 0)
      if cmd and (not best_start or start < best_start or (start == best_start and cmd[3] < best_seq)) then
        best, best_start, best_seq = i, start, cmd[3]
      end
    end
    local cmd = queues[best][next_cmd[best]]
    local done = best_start + cmd[2]
    qfree[best], efree[cmd[1]], next_cmd[best] = done, done, next_cmd[best] + 1
    finish = math.max(finish, done)
  end
  return finish
end

R:main(function(R, dev, info)
  local bytes = math.min(math.tointeger(R.size or (info.type == "GPU" and 64 or 8) * 2^20), info.max_mem_alloc_size,
    info.global_mem_size // 8)
  local grain = LOCAL * 48 -- every chunk count tried divides n into whole work-groups
  local n = bytes // 4 // grain * grain
  if n == 0 then error(("--size %d is too small: at least %d bytes"):format(bytes, grain * 4)) end
  bytes = n * 4
  local maxq, ctx = math.max(1, R.args.max_queues), R.ctx

  -- Host memory: pinned (alloc_host_ptr buffers, mapped once) and pageable.
  local function pinned(flags) -- the view keeps its buffer
    return (R.queue:map(ctx:buffer(bytes, flags .. " alloc_host_ptr"), { type = "float" }))
  end
  local host = { pinned = { A = pinned("read_only"), B = pinned("read_only"), C = pinned("write_only") },
    pageable = { A = cl.array("float", n), B = cl.array("float", n), C = cl.array("float", n) } }
  for _, h in pairs(host) do h.A:random(1, 0.5, 2); h.B:random(2, 0.5, 2) end

  -- The CPU reference, once, from chunks of A and B taken as Lua lists (table speed); A and B on the device too.
  local ref, A, B = cl.array("float", n), host.pageable.A, host.pageable.B
  for first = 0, n - 1, 65536 do
    local a, b = A:totable(first, math.min(65536, n - first)), B:totable(first, math.min(65536, n - first))
    for i = 1, #a do ref[first + i - 1] = math.sqrt(a[i] * a[i] + b[i] * b[i]) end
  end
  local sameA, sameB = R:device_strided(R:input("A's values", A), 1), R:device_strided(R:input("B's values", B), 1)

  -- The device buffers are the pipeline's outputs (R:output: poisoned before
  -- each configuration, so that a chunk not written or not computed shows).
  local dA, dB, dC = R:output("A", "float", n, "read_only"), R:output("B", "float", n, "read_only"),
    R:output("C", "float", n, "write_only")
  local k = R:kernel("overlap.cl", "hypotenuse")
  local queues = { R.queue }
  for i = 2, maxq do queues[i] = R:new_queue() end

  -- One run of the pipeline: every command enqueued behind a user event, which is completed once all are
  -- in, so enqueueing stays out of the timed span. Returns the events ({write, write, kernel, read} per
  -- chunk) and the host time from the gate's release to the last queue's finish.
  local function run(h, nq, m, iterations)
    k:args(dA, dB, dC, iterations)
    local gate = ctx:user_event()
    local per = n // m
    local events = {}
    for c = 0, m - 1 do
      local q, first = queues[c % nq + 1], c * per
      local off, wait = first * 4, c < nq and { gate } or nil
      events[#events + 1] = q:write(dA, h.A:slice(first, per), { offset = off, blocking = false, wait = wait })
      events[#events + 1] = q:write(dB, h.B:slice(first, per), { offset = off, blocking = false })
      events[#events + 1] = q:launch(k, per, LOCAL, { offset = { first } })
      events[#events + 1] = q:read(dC, h.C:slice(first, per), { offset = off, blocking = false })
    end
    for i = 1, nq do queues[i]:flush() end
    local t0 = cl.now()
    gate:complete()
    for i = 1, nq do queues[i]:finish() end
    return events, cl.now() - t0
  end

  -- Times a configuration through the harness: A and B on the device must hold the inputs (checked
  -- there), C on the host (poisoned here; the last run's read of C, poisoned first on the device) the
  -- reference; the writes of A and B, one direction, are held against PCIe. Its figures: each phase, its
  -- commands' events summed over the run's chunks, and the host clock from the gate's release;
  -- `events`, its last run's (the timeline's).
  local function phase(first, last)
    return function(evs)
      local ns = 0
      for i = 1, #evs, 4 do for j = first, last do ns = ns + evs[i + j].duration end end
      return ns
    end
  end
  local function measure(kind, nq, m, iterations, label)
    local h = host[kind]
    h.C:fill(-1)
    local host_ns, last = {}, nil
    local res = R:measure{ label = label, bytes = 2 * bytes, bound = "pcie",
      outputs = { { dA, expect = h.A, exact = true, device = sameA }, { dB, expect = h.B, exact = true, device = sameB },
        { dC } }, budget_ms = 100,
      figures = { { "write", value = phase(0, 1), bytes = 2 * bytes, bound = "pcie" },
        { "kernel", value = phase(2, 2), bytes = 3 * bytes, bound = "memory" },
        { "read", value = phase(3, 3), bytes = bytes, bound = "pcie" },
        { "host", value = function(_, rep) return host_ns[rep] end } },
      run = function(i)
        local evs, hns = run(h, nq, m, iterations)
        if i >= 1 then host_ns[i], last = hns, evs end
        return evs
      end }
    R:verify(("C (%s memory, %d queues x %d chunks)"):format(kind, nq, m), h.C, ref, { tol = 1e-5 })
    res.events = last
    collectgarbage() -- the read-backs: host memory the Lua collector does not see
    return res
  end

  -- Balance the kernel against the transfers, as the SDK sample does: the
  -- kernel's time ~ the time to write both inputs.
  local iterations, balance_note = R.args.iterations
  if not iterations then
    local t0, t1 = measure("pinned", 1, 1, 0, "balance 0").figures, measure("pinned", 1, 1, 64, "balance 64").figures
    local per_iter, target = (t1.kernel.median - t0.kernel.median) / 64, t1.write.median
    iterations = math.min(per_iter > 0 and math.floor(math.max(0, (target - t0.kernel.median) / per_iter) + 0.5) or 0,
      100000)
    balance_note = ("kernel balanced against the writes: %d iterations (kernel %s at 0, %s per iteration; writes %s)")
      :format(iterations, units.format_time(t0.kernel.median), units.format_time(per_iter), units.format_time(target))
  else
    balance_note = ("kernel iterations: %d (from --iterations)"):format(iterations)
  end

  local engines = R.args.copy_engines or (info.type ~= "GPU" and 0)
    or (info.gpu_overlap and (info.vendor or ""):match("NVIDIA") and 2) or 1

  -- Every configuration, pinned memory: 1 queue, the guide's 2 queues on
  -- halves, then N queues x M chunks, M a power-of-two multiple of N.
  local results = {}
  for nq = 1, maxq do
    for m = nq, nq == 1 and 1 or math.max(maxq, R.args.max_chunks) do
      if m % nq == 0 and (m // nq) & (m // nq - 1) == 0 then
        results[#results + 1] = { nq = nq, m = m, r = measure("pinned", nq, m, iterations, ("%d x %d"):format(nq, m)) }
      end
    end
  end
  local serial, best, two = results[1].r, results[1], results[2]
  local ph = serial.figures
  local pw, pk, pr = ph.write.median, ph.kernel.median, ph.read.median
  for _, r in ipairs(results) do if r.r.median < best.r.median then best = r end end

  -- The same with pageable memory: 1 queue, the guide's 2 x 2, and the best pinned configuration.
  local pageable, seen = {}, {}
  for _, c in ipairs({ results[1], two, best }) do
    local name = ("%d x %d"):format(c.nq, c.m)
    if not seen[name] then
      seen[name] = true
      pageable[#pageable + 1] = { nq = c.nq, m = c.m, pinned = c.r.median,
        r = measure("pageable", c.nq, c.m, iterations, "pageable " .. name) }
    end
  end

  -- The timeline of the best configuration: its last verified run.
  local tl = timeline.new(("overlap: %d queues x %d chunks, pinned memory"):format(best.nq, best.m))
  local evs = best.r.events
  for i = 1, #evs, 4 do
    local c = (i - 1) // 4
    for j, cmd in ipairs({ { "write", "A" }, { "write", "B" }, { "kernel", "K" }, { "read", "C" } }) do
      tl:add(("queue %d"):format(c % best.nq + 1), cmd[1], cmd[2] .. c, evs[i + j - 1])
    end
  end

  -- Everything verified: the figures.
  local ms = function(v) return ("%.3f"):format(v / 1e6) end
  local phases = R:table{ title = ("Phases of the serial pipeline (%s per array, pinned memory)"):format(units.format_size(bytes)),
    id = "phases", columns = { { name = "phase", key = true }, { name = "time", unit = "ms", format = ms, ns = true },
      R:spread_column(), R:bw_column("bandwidth", { theoretical = false }) } }
  for _, p in ipairs({ { "write A and B", ph.write }, { "kernel", ph.kernel }, { "read C", ph.read } }) do
    R:add_row(phases, p[2], { phase = p[1] })
  end
  phases:note("time: the phase's events summed over the serial run's chunks, median of the repetitions")
  phases:note(balance_note)
  phases:note(("model: %d copy engine%s (%s)"):format(engines, engines == 1 and "" or "s",
    R.args.copy_engines and "--copy-engines" or "from the device type"))
  R:emit(phases)

  local function columns(...) -- a configuration's, then `...`
    return { { name = "queues", key = true }, { name = "chunks", key = true }, R:time_columns("ms"),
      { name = "saved", unit = "%", format = "%.1f" }, ... }
  end
  local t = R:table{ title = "Copy/compute overlap, pinned host memory", id = "overlap", columns = columns(
    { name = "ideal", unit = "ms", format = ms, ns = true }, { name = "ideal saved", unit = "%", format = "%.1f" },
    { name = "efficiency", unit = "%", format = "%.0f" }, { name = "host time", unit = "ms", format = ms, ns = true },
    R:spread_column("host spread")) }
  for _, r in ipairs(results) do
    local id = ideal(pw, pk, pr, r.nq, r.m, engines)
    local saved = 100 * (1 - r.r.median / serial.median)
    local ideal_saved = 100 * (1 - id / (pw + pk + pr))
    R:add_row(t, r.r, { queues = r.nq, chunks = r.m, saved = saved, ideal = id, ["ideal saved"] = ideal_saved,
      efficiency = ideal_saved > 0.5 and 100 * saved / ideal_saved or nil,
      ["host time"] = r.r.figures.host.median, ["host spread"] = r.r.figures.host.spread })
  end
  t:note("time: first start to last end of the run's events (median of the repetitions)")
  t:note("host time: from releasing the gate (a user event) to the last queue's finish")
  t:note("ideal: perfect overlap of the serial run's phases over these queues and copy engines (a schedule of "
    .. "in-order queues); efficiency = saved / ideal saved")
  local best_saved = 100 * (1 - best.r.median / serial.median)
  local best_noise = math.max(best.r.spread or 0, serial.spread or 0)
  t:note(("best: %d queues x %d chunks, %.1f%% saved%s"):format(best.nq, best.m, best_saved,
    best_saved <= best_noise and (" — no more than the spread of its runs or the serial run's (%.0f%%): "
      .. "noise, not a finding"):format(best_noise) or ""))
  if engines == 0 then
    t:note("this device has no copy engine (a CPU: a transfer is a memcpy on the cores that run the kernels), "
      .. "so the model's ideal saving is 0%: a 'saved' figure here is the driver running several queues' "
      .. "commands on more cores at once, or noise, never copy/compute overlap")
  end
  R:emit(t)

  local pt = R:table{ title = "The same with pageable host memory", id = "pageable",
    columns = columns({ name = "pinned time", unit = "ms", format = ms, ns = true }) }
  for _, r in ipairs(pageable) do
    R:add_row(pt, r.r, { queues = r.nq, chunks = r.m, saved = 100 * (1 - r.r.median / pageable[1].r.median),
      ["pinned time"] = r.pinned })
  end
  R:emit(pt)
  R:timeline(tl)
end)
