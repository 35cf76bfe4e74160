-- bench/launch_clua.lua: clua's twin of the plain C program build/bench/launch
-- (bench/launch.c): the same loops through q:launch, the same command line
-- and the same output, so that bench/launch.lua, bench/launch_ir.sh and
-- bench/launch_perf.sh run both sides alike, each in a process of its own.
--
--   clua bench/launch_clua.lua [--n N] [--batches B] [--event] [--held] [--sync finish|wait] [--launcher]
--
-- On cl.device() (CLUA_DEVICE), a queue with profiling on, kernels/copy.cl
-- `empty`: one warm-up batch, then B batches (default 5) of N launches (default
-- 10000), global size 1, no local size, each batch timed by cl.now() around its
-- N launches, then q:finish() (not timed).
--
--   (no option)   q:launch(k, 1, nil, {event = false})   C: no event
--   --event       q:launch(k, 1), its event dropped and collected later
--                 C --event: clEnqueueNDRangeKernel(..., &ev); clReleaseEvent(ev)
--   --held        each batch behind a marker waiting for a user event, completed
--                 once the batch is timed: the device runs none of it meanwhile
--   --sync finish q:launch(k, 1); q:finish(), each of the N (the loop timed)
--   --sync wait   q:launch(k, 1):wait()
--   --launcher    the same launches through a launcher made once, before the
--                 batches: local go = q:launcher(k, 1[, nil, {event = false}]),
--                 then go() (go():wait() with --sync wait)
--
-- Prints the median µs per launch (or round trip) as the C program does
-- (`launch_us`, `launch_event_us`, `sync_finish_us` or `sync_wait_us`), then
-- `cpu_us`, the enqueuing thread's CPU time per launch over the same batches.
local cl = require("cl")

local n, batches, event, held, sync, launcher = 10000, 5, false, false, nil, false
local function usage()
  io.stderr:write("usage: clua bench/launch_clua.lua [--n N] [--batches B] [--event] [--held] [--sync finish|wait]"
    .. " [--launcher]\n")
  os.exit(2)
end
local i = 1
while arg[i] do
  local a, v = arg[i], arg[i + 1]
  local num = v and math.tointeger(tonumber(v))
  if a == "--n" and num and num >= 1 then n, i = num, i + 1
  elseif a == "--batches" and num and num >= 1 then batches, i = num, i + 1
  elseif a == "--event" then event = true
  elseif a == "--held" then held = true
  elseif a == "--launcher" then launcher = true
  elseif a == "--sync" and (v == "finish" or v == "wait") then sync, i = v, i + 1
  else usage() end
  i = i + 1
end
if held and sync then usage() end -- a held round trip would never end

local ctx = cl.context(cl.device())
local q = ctx:queue()
local k = ctx:program_file("copy.cl"):build():kernel("empty")
local noevent = { event = false }
-- --launcher: the launch made ready once (with an event unless it is the
-- launch without one), called as q:launch would be
local go = launcher and q:launcher(k, 1, nil, (event or sync) and {} or noevent)

local per, cpu = {}, {}
for b = 0, batches do
  local hold = held and ctx:user_event()
  if hold then q:marker { hold } end
  local c0, t0 = cl.cputime(), cl.now()
  if go and sync == "finish" then
    for _ = 1, n do
      go()
      q:finish()
    end
  elseif go and sync == "wait" then
    for _ = 1, n do go():wait() end
  elseif go then
    for _ = 1, n do go() end
  elseif sync == "finish" then
    for _ = 1, n do
      q:launch(k, 1)
      q:finish()
    end
  elseif sync == "wait" then
    for _ = 1, n do q:launch(k, 1):wait() end
  elseif event then
    for _ = 1, n do q:launch(k, 1) end
  else
    for _ = 1, n do q:launch(k, 1, nil, noevent) end
  end
  local t1, c1 = cl.now(), cl.cputime()
  if hold then hold:complete() end
  q:finish()
  if b > 0 then per[b], cpu[b] = (t1 - t0) / n / 1e3, (c1 - c0) / n / 1e3 end
end

local median = require("clua.stats").median
local name = sync and "sync_" .. sync .. "_us" or event and "launch_event_us" or "launch_us"
print(("%s %.3f"):format(name, median(per)))
print(("cpu_us %.3f"):format(median(cpu)))
