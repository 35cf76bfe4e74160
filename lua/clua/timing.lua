--- clua.timing: run a step with warm-up and repeats, by profiling events or by
-- the host clock. The timed loop only calls the step (and, for host timing,
-- waits); events are read after the loop.
-- @module clua.timing
local stats = require("clua.stats")
local options = require("clua.options")

local timing = {}

local function is_list(r) return type(r) == "table" and r[1] ~= nil end

--- Nanoseconds covered by one event, or by a list of events (first start to
-- last end). Reading a profiling time waits for the event to complete.
function timing.span(r)
  if not is_list(r) then return r["end"] - r.start end
  local first, last = r[1].start, r[1]["end"]
  for i = 2, #r do
    local s, e = r[i].start, r[i]["end"]
    if s < first then first = s end
    if e > last then last = e end
  end
  return last - first
end

local function wait_for(r)
  if type(r) == "userdata" then r:wait(); return end
  for i = 1, #r do
    if type(r[i]) == "userdata" then r[i]:wait() end
  end
end

local function cl_now()
  local ok, cl = pcall(require, "cl")
  if ok then return cl.now end
  return function() error("clua.timing: no cl module for the host clock; give opts.clock", 3) end
end

timing.OPTIONS = { "warmup", "reps", "target_ms", "min_reps", "max_reps", "queue", "finish", "host", "sync", "clock",
  "progress" }

--- Runs `step(i)` and times it.
--   opts.reps       timed repetitions (default 10), or
--   opts.target_ms  calibrate: after warm-up, one probe run decides how many
--                   repetitions fill about target_ms (bounded by min_reps, default 3,
--                   and max_reps, default 1000)
--   opts.warmup     untimed runs first (default 2)
--   opts.queue      queue (or list of queues) to finish after a step that returns
--                   nothing (host timing); or opts.finish, a function
--   opts.host       true: also time each repetition by the host clock, waiting for
--                   its events (or finishing the queue) inside the timed interval
--   opts.sync       true: wait for each repetition's events before the next
--   opts.clock      a function returning ns (default cl.now)
--   opts.progress   a function called with (i, reps) after each timed repetition
--                   is run (or enqueued)
-- A step returns an event, a list of events, or nothing (then it is timed by
-- the host clock around step + finish).
-- Returns {mode="event"|"host", times={ns...}, reps=, warmup=, median=, min=, max=,
--   mean=, stddev=, summary=, host_times=, host= (summary), probe_ns=, target_ms=}.
function timing.run(step, opts)
  opts = options.check(opts, "timing.run", timing.OPTIONS)
  local warmup = opts.warmup or 2
  local finish = opts.finish
  if not finish and opts.queue then
    local qs = opts.queue
    if is_list(qs) then
      finish = function() for i = 1, #qs do qs[i]:finish() end end
    else
      finish = function() qs:finish() end
    end
  end
  local function settle(r)
    if r ~= nil then wait_for(r)
    elseif finish then finish()
    else error("timing.run: the step returned no event; give opts.queue or opts.finish", 2) end
  end
  local clock = opts.clock or cl_now()
  local tick = opts.progress or function() end

  local last
  for i = 1, warmup do last = step(-i); settle(last) end

  -- One synchronised, timed run: the probe, and the decision of the mode.
  local function once(i)
    local t0 = clock()
    local r = step(i)
    settle(r)
    local host = clock() - t0
    return r == nil and host or timing.span(r), r ~= nil
  end

  local reps, probe_ns, by_event = opts.reps or 10, nil, nil
  if opts.target_ms then
    probe_ns, by_event = once(0)
    reps = math.ceil(opts.target_ms * 1e6 / math.max(probe_ns, 1))
    reps = math.max(opts.min_reps or 3, math.min(opts.max_reps or 1000, reps))
  elseif warmup > 0 then
    by_event = last ~= nil
  end

  local times, host_times, results = {}, nil, {}
  if by_event == nil then
    -- No warm-up and no probe: the first timed run decides the mode.
    local t0 = clock()
    results[1] = step(1)
    by_event = results[1] ~= nil
    if by_event then
      if opts.host or opts.sync then settle(results[1]) end
    else
      settle(nil)
    end
    times[1] = clock() - t0
  end
  local first = #times + 1

  if not by_event then
    for i = first, reps do
      local t0 = clock()
      step(i)
      finish()
      times[i] = clock() - t0
      tick(i, reps)
    end
  elseif opts.host then
    host_times = {}
    if first == 2 then host_times[1] = times[1] end
    for i = first, reps do
      local t0 = clock()
      local r = step(i)
      wait_for(r)
      host_times[i] = clock() - t0
      results[i] = r
      tick(i, reps)
    end
  elseif opts.sync then
    for i = first, reps do
      local r = step(i)
      wait_for(r)
      results[i] = r
      tick(i, reps)
    end
  else
    for i = first, reps do results[i] = step(i); tick(i, reps) end
  end

  if by_event then
    for i = 1, reps do times[i] = timing.span(results[i]) end
  end

  local s = stats.summary(times)
  return {
    mode = by_event and "event" or "host", times = times, reps = reps, warmup = warmup,
    summary = s, n = s.n, median = s.median, min = s.min, max = s.max, mean = s.mean,
    stddev = s.stddev, host_times = host_times, host = host_times and stats.summary(host_times),
    probe_ns = probe_ns, target_ms = opts.target_ms,
  }
end

--- Host-clock time of one call of fn (ns), and fn's results.
function timing.host(fn, clock)
  clock = clock or cl_now()
  local t0 = clock()
  local r = table.pack(fn())
  return clock() - t0, table.unpack(r, 1, r.n)
end

return timing
