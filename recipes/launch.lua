-- launch: the cost of a kernel launch, measured the ways clpeak does, beside
-- a plain C program on the same device in the same run.
-- clpeak's "kernel launch latency": dispatch (event QUEUED -> START) and round
-- trip (host clock around enqueue + clFinish), one empty kernel at a time;
-- and the host-side cost of one clEnqueueNDRangeKernel in a long stream of
-- empty kernels (kernels/copy.cl `empty`, global 1, the driver's local size),
-- the figure bench/launch.c measures in C. The C program runs as a subprocess
-- when it is built next to clua (build/bench/launch under clua's root).
local cl = require("cl")
local devicemod = require("clua.device")
local proc = require("clua.proc")
local recipe = require("clua.recipe")
local units = require("clua.units")

local R = recipe.new{
  name = "launch",
  description = [[Kernel launch cost: host-side enqueue in a stream of empty kernels, dispatch (QUEUED -> START)
    and round trip (enqueue + clFinish), beside the plain C program build/bench/launch.]],
  seed = "clpeak \"kernel launch latency\"; bench/launch.c (plain C OpenCL); guide 2.1.1 (enqueue calls return early)",
  reps = 5,
  options = function(p)
    p:int("--n", "Empty kernels enqueued per batch (default 10000, 1000 with --quick); --reps batches.")
    p:int("--launches", "Single launches timed for dispatch and round trip (default 100, 20 with --quick).")
    p:flag("--baseline", "Also run build/bench/baseline (tiny sizes) for the C dispatch and round trip.")
    p:flag("--no-c", "Do not run the C programs.")
  end,
}

-- The C program's figure (µs) in ns, with the min and max of its batches
-- from the note it writes to stderr ("...: min 0.575, max 1.794 us").
local function c_figure(us, note)
  local lo, hi = (note or ""):match("min ([%d.]+), max ([%d.]+) us")
  return R:figure{ median = us * 1e3, min = lo and tonumber(lo) * 1e3, max = hi and tonumber(hi) * 1e3 }
end

R:main(function(R, dev)
  local q, batches, empty = R.queue, R.reps, R:kernel("copy.cl", "empty")
  local nlaunch = R.args.n or (R.quick and 1000 or 10000)
  local launches = R.args.launches or (R.quick and 20 or 100)
  local warm = R.quick and R.warmup or math.max(R.warmup, 10)

  -- 1. Host side: N enqueues timed by the host clock, the queue finished after
  -- (outside the interval); one warm-up batch, then --reps batches.
  -- Batches with an event per launch (what q:launch returns), without
  -- ({event = false}), and without through go() of a q:launcher (the launch
  -- checked once, docs/notes/launch.md) alternate, so drift in the machine hits
  -- them alike.
  local per, per_ne, per_go = {}, {}, {}
  local no_event = { event = false }
  local go = q:launcher(empty, 1, nil, no_event)
  for b = 0, batches do
    q:finish()
    local t0 = cl.now()
    for _ = 1, nlaunch do q:launch(empty, 1) end
    local t1 = cl.now()
    q:finish()
    local t2 = cl.now()
    for _ = 1, nlaunch do q:launch(empty, 1, nil, no_event) end
    local t3 = cl.now()
    q:finish()
    local t4 = cl.now()
    for _ = 1, nlaunch do go() end
    local t5 = cl.now()
    q:finish()
    if b > 0 then per[b], per_ne[b], per_go[b] = (t1 - t0) / nlaunch, (t3 - t2) / nlaunch, (t5 - t4) / nlaunch end
  end

  -- The queue ran them all: a copy kernel enqueued behind the stream on the
  -- same in-order queue, its output poisoned first and checked after, its
  -- input unchanged (R:measure: not a figure, the check).
  local m = 1024
  local input = cl.array("float", m):random(7, -1, 1)
  local din, dout = R:input("in", input), R:output("out", "float", m)
  local copy = R:kernel("copy.cl", "copy"):args(dout, din)
  R:measure{ label = "copy kernel behind the stream of empty kernels", reps = 1, warmup = 0, bound = false,
    reads = { din }, outputs = { { dout, expect = input, exact = true } }, run = function()
      for _ = 1, 100 do q:launch(empty, 1) end
      return q:launch(copy, m)
    end }

  -- 2. One launch at a time: dispatch (QUEUED -> START) from the event, round
  -- trip by the host clock around enqueue + clFinish.
  local disp, trip, qsub, sub, exec, ordered = {}, {}, {}, {}, {}, {}
  for i = 1 - warm, launches do
    local t0 = cl.now()
    local e = q:launch(empty, 1)
    q:finish()
    local t1 = cl.now()
    if i >= 1 then
      local qd, sb, st, en = e.queued, e.submit, e.start, e["end"]
      disp[i], trip[i], qsub[i], sub[i], exec[i] = st - qd, t1 - t0, sb - qd, st - sb, en - st
      ordered[i] = (qd <= sb and sb <= st and st <= en) and 1 or 0
    end
  end
  R:verify("profiling timestamps in order (QUEUED <= SUBMIT <= START <= END)", ordered, function() return 1 end,
    { exact = true })

  -- 3. The plain C programs, on the same device; c_cell is what the C cell
  -- says when there is no figure.
  local idx, bench = devicemod.index(dev), (cl.root or ".") .. "/build/bench/"
  local c_enqueue, c_event, c_dispatch, c_trip, c_note, c_cell
  if R.args.no_c then
    c_note, c_cell = "C: not run (--no-c)", "not run"
  else
    local args = ("--device %s --n %d --batches %d"):format(idx, nlaunch, batches)
    local out, err = proc.run(bench .. "launch", args)
    if out then
      local v = tonumber(out:match("launch_us%s+([%d.]+)")) or error("build/bench/launch printed no figure: " .. out)
      c_enqueue, c_note = c_figure(v, err), "C: build/bench/launch " .. args
      -- launch --event asks for an event and releases it at each enqueue, as
      -- q:launch does (a build/bench/launch without --event exits 2: no figure)
      local eout, enote = proc.run(bench .. "launch", args .. " --event")
      local ev = eout and tonumber(eout:match("launch_event_us%s+([%d.]+)"))
      if ev then c_event, c_note = c_figure(ev, enote), c_note .. " [--event]" end
    else
      c_note, c_cell = "C: build/bench/launch " .. err, err == "not built" and err or "failed"
    end
    if R.args.baseline then
      local bout, berr = proc.run(bench .. "baseline", ("--device %s --size 4K --overlap-size 8K --reps 3 "
        .. "--launch-n %d"):format(idx, nlaunch))
      local function row(label)
        local med, lo, hi = bout:match(label:gsub("%p", "%%%0") .. "%s+([%d.]+)%s+([%d.]+)%s+([%d.]+)")
        return med and R:figure{ median = med * 1e3, min = lo * 1e3, max = hi * 1e3 }
      end
      if bout then
        c_dispatch, c_trip = row("empty kernel, dispatch"), row("empty kernel, round trip")
        c_note = c_note .. "; dispatch and round trip: build/bench/baseline (100 launches after 10 warm-ups)"
      else
        c_note = c_note .. "; build/bench/baseline " .. berr
      end
    end
  end

  -- Everything verified: the figures.
  local function ftime(v) return type(v) == "number" and units.format_time(v) or tostring(v) end
  local function tcol(name, compare) return { name = name, format = ftime, ns = true, compare = compare } end
  local t = R:table{
    title = "Kernel launch cost (empty kernel, global size 1)",
    id = "launch",
    columns = { { name = "figure", key = true }, tcol("clua", true), tcol("min"), tcol("max"), tcol("C"),
      { name = "clua / C", unit = "x", format = "%.2f" }, tcol("C, events"),
      { name = "clua / C, events", unit = "x", format = "%.2f" }, R:spread_column("C spread") },
  }
  local function add(name, times, c, ce) -- clua's figure (min, max: R:add_row's) beside C's
    local f = R:figure(times)
    R:add_row(t, f, { figure = name, clua = f.median,
      C = c and c.median or (name:match("^enqueue") and c_cell) or nil, ["clua / C"] = c and f.median / c.median or nil,
      ["C, events"] = ce and ce.median, ["clua / C, events"] = ce and f.median / ce.median,
      ["C spread"] = (c or ce) and (c or ce).spread })
  end
  local in_row = (" (per launch, %d in a row)"):format(nlaunch)
  add("enqueue, host side, an event each" .. in_row, per, nil, c_event)
  add("enqueue, host side, no event" .. in_row, per_ne, c_enqueue)
  add("enqueue, host side, no event, go() of a q:launcher" .. in_row, per_go, c_enqueue)
  add("dispatch: QUEUED -> START", disp, c_dispatch)
  add("  QUEUED -> SUBMIT", qsub)
  add("  SUBMIT -> START", sub)
  add("execution: START -> END", exec)
  add("round trip: enqueue + clFinish (host clock)", trip, c_trip)
  t:note(("enqueue: host clock around %d clEnqueueNDRangeKernel calls, / %d; median of %d batches after "
    .. "1 warm-up; min/max over the batches"):format(nlaunch, nlaunch, batches))
  t:note("an event each: q:launch(k, 1), whose event is released when collected, beside C asking for one and "
    .. "releasing it at each launch (build/bench/launch --event); no event: q:launch(k, 1, nil, {event = false}) "
    .. "beside C passing NULL (build/bench/launch); go(): the same launch made ready once by "
    .. "q:launcher(k, 1, nil, {event = false})")
  t:note(("dispatch, round trip: %d launches one at a time after %d warm-ups (clpeak's two ways)")
    :format(launches, warm))
  if c_note then t:note(c_note) end
  t:note("C spread: (max - min) / median of the C program's batches (or launches) the row compares with; a ratio "
    .. "is a finding only where both sides' spreads are within the threshold")
  R:emit(t)
end)
