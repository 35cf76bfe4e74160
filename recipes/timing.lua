-- timing: the same copies timed three ways, and the resolution of the timers.
-- NVIDIA OpenCL Best Practices Guide 2.1: 2.1.1 "Using CPU Timers" (enqueue
-- calls return before the work is done: synchronise with clFinish before
-- reading the clock), 2.1.2 "Using OpenCL GPU Timers" (Listing 2.1, END -
-- START of a profiling event; "the resolution of the GPU timer is
-- approximately half a microsecond"); lecture "Timers API" (cudaEventRecord /
-- cudaEventElapsedTime, the CUDA form of the same). A host-to-device write, a
-- device-to-host read and a copy kernel, each timed by the host clock around
-- a blocking call, by the host clock around a non-blocking call with no
-- finish (wrong on purpose: it times the enqueue), and by events.
local cl = require("cl")
local recipe = require("clua.recipe")
local stats = require("clua.stats")
local units = require("clua.units")
local noise = require("clua.noise")
local harness = require("clua.harness")

local R = recipe.new{
  name = "timing",
  description = [[One copy timed by host clock (blocking, non-blocking without a finish) and by events; the
    timers' resolution.]],
  seed = "NVIDIA OpenCL Best Practices Guide 2.1 (2.1.1, 2.1.2, Listing 2.1); lecture \"Timers API\"",
  quick_size = "1MiB", check_size = "16KiB", size_share = 8,
  options = function(p)
    p:int("--probes", "Tiny commands timed for the resolution (default 200, 40 with --quick, 8 with --check-size).")
  end,
}

R:main(function(R, dev, info)
  local q, ctx = R.queue, R.ctx
  local bytes = math.min(math.tointeger(R.size or (info.type == "GPU" and 64 or 16) * 2^20), info.max_mem_alloc_size,
    info.global_mem_size // 8) // 4 * 4
  if bytes < 4 then error("--size must be at least 4 bytes") end
  local n = bytes // 4
  local probes = R.args.probes or (R.check_size and 8 or R.quick and 40 or 200)

  -- Pinned host memory (alloc_host_ptr buffers, mapped once), so that a
  -- non-blocking transfer really returns before the copy is done.
  local function pinned() return (q:map(ctx:buffer(bytes, "alloc_host_ptr"), { type = "float" })) end -- keeps its buffer
  local src, dst = pinned():random(1, -1, 1), pinned()
  -- The device: what the write and the kernel fill (R:output: poisoned, then
  -- checked), and what the read and the kernel take (R:input: checked unchanged).
  local dA, dB = R:output("written", "float", n), R:output("copied", "float", n)
  local din = R:input("in", src)
  local copy = R:kernel("copy.cl", "copy"):args(dB, din)

  -- The three operations: how to run one (blocking or not), where it writes
  -- (`dst` a device buffer, `host_dst` a host array) and its physical bound.
  local ops = {
    { name = "write H2D", bytes = bytes, dst = dA, bound = "pcie",
      run = function(blocking) return q:write(dA, src, { blocking = blocking }) end },
    { name = "read D2H", bytes = bytes, host_dst = dst, reads = { din }, bound = "pcie",
      run = function(blocking) return q:read(din, dst, { blocking = blocking }) end },
    { name = "copy kernel", bytes = 2 * bytes, kernel = true, dst = dB, reads = { din }, bound = "memory",
      run = function() return q:launch(copy, n) end },
  }

  -- The methods. The host clock runs around the call and the clFinish after it
  -- (R:measure's host timing); inside that interval the time until the call
  -- returned is kept too, which is (b), the host clock around the call alone,
  -- the queue finished before and after but outside the interval, as a program
  -- that forgets clFinish does: the next method's figure.
  local methods = {
    { name = "host clock, blocking call", transfer = true, blocking = true },
    { name = "host clock, enqueue + clFinish", kernel = true },
    { name = "host clock, non-blocking + clFinish", transfer = true },
    { name = "host clock, non-blocking, no clFinish", transfer = true, kernel = true, wrong = true },
    { name = "events: END - START", transfer = true, kernel = true, events = true },
  }

  -- Every operation by every method that applies, each through the harness:
  -- the output poisoned, timed, read back and verified, the input unchanged,
  -- the figure held against its bound (a host destination is poisoned here
  -- and verified right after).
  local rows = {}
  for _, op in ipairs(ops) do
    local returned
    for _, m in ipairs(methods) do
      if (op.kernel and m.kernel) or (not op.kernel and m.transfer) then
        local r
        if m.wrong then
          r = stats.summary(returned)
          r.notes, r.spread = {}, noise.spread(r)
        else
          local label = ("%s (%s)"):format(op.name, m.name)
          returned = {}
          if op.host_dst then op.host_dst:fill(-7) end
          r = R:measure{ label = label, bytes = op.bytes, bound = op.bound, reads = op.reads,
            outputs = op.dst and { { op.dst, expect = src, exact = true } } or nil,
            run = m.events and function() return op.run(false) end or function(i)
              local t0 = cl.now()
              op.run(m.blocking or false)
              if i >= 1 then returned[#returned + 1] = cl.now() - t0 end
            end }
          if op.host_dst then R:verify(label, op.host_dst, src, { exact = true }) end
          collectgarbage() -- the read-backs: host memory the Lua collector does not see
          if m.events then op.events = r end
        end
        rows[#rows + 1] = { op = op, method = m, r = r }
      end
    end
  end

  -- The resolution: tiny commands, timed by events, one at a time. These are
  -- no R:measure: a 0 ns duration is a finding here, not a command to time
  -- again by the host clock. An empty kernel and a 4-byte write, `probes`
  -- times each; their outputs poisoned first (the harness's byte) and verified.
  local poison = function(buf) q:fill(buf, harness.POISON, { type = "uchar" }) end
  local empty = R:kernel("copy.cl", "empty")
  local tiny, tinybuf = cl.array("uint", 1):fill(0x2A2A2A2A), R:output("4-byte write", "uint", 1)
  poison(tinybuf)
  local function series(run)
    for _ = 1, R.warmup do run():wait() end
    local evs = {}
    for i = 1, probes do evs[i] = run(); evs[i]:wait() end
    return evs
  end
  local empty_evs = series(function() return q:launch(empty, 1) end)
  local write_evs = series(function() return q:write(tinybuf, tiny, { blocking = false }) end)
  local tiny_back = cl.array("uint", 1)
  q:read(tinybuf, tiny_back)
  R:verify("4-byte write", tiny_back, tiny)

  -- The spin kernel with a growing trip count: calibrated so that the series
  -- spans a few microseconds (or a few stated resolutions) of spinning, over
  -- the kernel's fixed cost (µs on a GPU): the cost of an iteration is the
  -- difference between N and 2N iterations (the shortest of three runs
  -- each), N doubled until 2N lasts clearly longer.
  local spin, spin_out, seed = R:kernel("timing.cl", "spin"), R:output("spin", "uint", probes), 12345
  local function launch_spin(slot, iters) return q:launch(spin:args(spin_out, slot, seed, iters), 1) end
  local function spin_ns(iters)
    local best = math.huge
    for _ = 1, 3 do
      local e = launch_spin(0, iters)
      e:wait()
      best = math.min(best, e.duration)
    end
    return best
  end
  local probe_iters = R.check_size and 64 or R.quick and 1024 or 16384
  for _ = 1, R.warmup do launch_spin(0, probe_iters):wait() end
  local per_iter
  repeat
    local one, two = spin_ns(probe_iters), spin_ns(2 * probe_iters)
    if two - one > 0.1 * one then per_iter = (two - one) / probe_iters end
    probe_iters = 2 * probe_iters
  until per_iter or probe_iters > 1 << 21
  per_iter = per_iter or math.max(spin_ns(probe_iters), 1) / probe_iters
  local span_ns = math.max(4000, 8 * (info.timer_resolution_ns or 0))
  local max_iters = math.max(probes, math.min(1 << 22, math.floor(span_ns / per_iter)))
  local spin_iters, spin_evs = {}, {}
  poison(spin_out)
  for i = 1, probes do
    spin_iters[i] = (i - 1) * max_iters // (probes - 1 > 0 and probes - 1 or 1)
    spin_evs[i] = launch_spin(i - 1, spin_iters[i])
    spin_evs[i]:wait()
  end
  local spin_got = cl.array("uint", probes)
  q:read(spin_out, spin_got)
  -- the CPU reference: the recurrence replayed once (uint arithmetic, mod
  -- 2^32), read off at every launch's count (spin_iters grows)
  local spin_ref, x, done = cl.array("uint", probes), seed, 0
  for i = 1, probes do
    for _ = done + 1, spin_iters[i] do x = (x * 1664525 + 1013904223) & 0xFFFFFFFF end
    done = spin_iters[i]
    spin_ref[i - 1] = x
  end
  R:verify("spin kernel", spin_got, spin_ref)

  -- The host clock: smallest step between successive readings, cost of one.
  local host_n = R.quick and 20000 or 200000
  local host_step, t_start = math.huge, cl.now()
  local prev = t_start
  for _ = 1, host_n do
    local now = cl.now()
    if now > prev and now - prev < host_step then host_step = now - prev end
    prev = now
  end
  local host_cost = (prev - t_start) / host_n

  -- What the events resolve.
  local stamps, tick = {}, 0
  for _, list in ipairs({ empty_evs, write_evs, spin_evs }) do
    for _, e in ipairs(list) do stamps[#stamps + 1], stamps[#stamps + 2] = e.start, e["end"] end
  end
  local first = stats.min(stamps)
  for _, s in ipairs(stamps) do -- the greatest common divisor of the differences
    local b = s - first
    while b ~= 0 do tick, b = b, tick % b end
  end
  local function durations(evs) -- the durations, their summary, how many lasted 0 ns, the shortest that did not
    local d, nonzero = {}, {}
    for i, e in ipairs(evs) do
      d[i] = e.duration
      if d[i] > 0 then nonzero[#nonzero + 1] = d[i] end
    end
    return d, stats.summary(d), #d - #nonzero, stats.min(nonzero)
  end
  local _, empty_s, empty_zero, empty_min = durations(empty_evs)
  local _, write_s, write_zero, write_min = durations(write_evs)
  local spin_d, spin_s = durations(spin_evs)
  local slope = stats.slope(spin_iters, spin_d)

  -- Everything verified: the figures.
  local ftime = units.format_time
  local t = R:table{ title = ("The same copy timed three ways (%s, pinned host memory)"):format(units.format_size(bytes)),
    id = "timing", columns = { { name = "operation", key = true }, { name = "method", key = true },
      { name = "time", format = ftime, ns = true, compare = true }, { name = "min", format = ftime, ns = true },
      { name = "max", format = ftime, ns = true }, R:bw_column("bandwidth", { theoretical = false, compare = false }),
      { name = "vs events", unit = "x", format = "%.2f" }, { name = "valid" } } }
  for _, row in ipairs(rows) do
    local r = row.r
    R:add_row(t, r, { operation = row.op.name, method = row.method.name, bandwidth = R:bw(row.op.bytes, r.median),
      ["vs events"] = row.op.events and r.median / row.op.events.median,
      valid = row.method.wrong and "NO: times the enqueue only" or "yes" })
  end
  t:note("time: median of the repetitions; bandwidth from the median; copy kernel bytes = read + written")
  t:note("host clock: cl.now() (CLOCK_MONOTONIC); blocking call / + clFinish: the interval ends when the work is done")
  t:note("non-blocking, no clFinish: the clock stops when the enqueue returns, before the copy is done "
    .. "(the queue is finished before and after, outside the interval; the same repetitions as the row above): "
    .. "WRONG on purpose, guide 2.1.1")
  t:note("events: CL_PROFILING_COMMAND_END - CL_PROFILING_COMMAND_START (Listing 2.1), back-to-back enqueues")
  R:emit(t)

  local res = R:table{ title = "Timer resolution", id = "resolution", columns = { { name = "quantity", key = true },
    { name = "value", unit = "ns", compare = true,
      format = function(v) return math.abs(v) >= 100 and ("%.0f"):format(v) or ("%.3g"):format(v) end },
    R:spread_column(), { name = "how" } } }
  for _, r in ipairs({ -- quantity, value, how, spread
    { "stated profiling timer resolution", info.timer_resolution_ns, "CL_DEVICE_PROFILING_TIMER_RESOLUTION" },
    { "event clock tick", tick, ("GCD of the differences of %d START/END timestamps"):format(#stamps) },
    { "smallest step between spin durations", stats.min_step(spin_d),
      ("%d spin launches, 0..%d iterations, durations %s..%s"):format(probes, max_iters, units.format_time(spin_s.min),
        units.format_time(spin_s.max)) },
    (slope or 0) > 0 and { "spin kernel, per iteration", slope, "least-squares slope" }
      or { "spin kernel, per iteration", nil, ("least-squares slope %s: not positive, the durations did not "
        .. "grow with the iterations"):format(slope and ("%.3g"):format(slope) or "none") },
    { "empty kernel, smallest non-zero duration", empty_min, ("%d launches, %d of zero duration"):format(probes, empty_zero) },
    { "empty kernel, median duration", empty_s.median, "END - START", noise.spread(empty_s) },
    { "4-byte write, smallest non-zero duration", write_min, ("%d writes, %d of zero duration"):format(probes, write_zero) },
    { "4-byte write, median duration", write_s.median, "END - START", noise.spread(write_s) },
    { "host clock, smallest step", host_step < math.huge and host_step or nil,
      ("%d successive cl.now() readings"):format(host_n) },
    { "host clock, cost of one reading", host_cost, "cl.now() from Lua" } }) do
    res:add{ quantity = r[1], value = r[2], how = r[3], spread = r[4] }
  end
  res:note("seed (guide 2.1.2): \"the resolution of the GPU timer is approximately half a microsecond\"")
  res:note("the smallest interval the events resolve: the larger of the clock tick and the smallest step "
    .. "between distinct spin durations")
  res:note("spread: of the median durations, (max - min) / median of the probes")
  R:emit(res)
end)
