-- bench/launch.lua: the host-side cost of one empty-kernel enqueue from clua,
-- beside the plain C program build/bench/launch on the same device, same run.
--
--   build/clua bench/launch.lua [--n N] [--batches B] [--rounds R] [--c PATH]
--                               [--tables enqueue,held,sync] [--launcher]
--   make bench-launch
--
-- Each figure comes from a process of its own, run the same way on both
-- sides: the C program build/bench/launch and its clua twin
-- bench/launch_clua.lua (same options, same loops, same output), so neither
-- side measures on a driver already worn by the other's runs (on PoCL,
-- enqueues after 200000 others in the same process cost 1.4× as much).
--
-- clua: N = 10000 `q:launch(k, 1)` of kernels/copy.cl `empty` (global 1, local
-- nil) timed with cl.now(), then q:finish(); one warm-up batch, then the median
-- of B = 5 batches, in µs per enqueue. q:launch always asks OpenCL for an event
-- (released when collected), so the C figure to hold it against is
-- `launch --event`, which asks for one and releases it at each launch; plain
-- `launch` (no event) is shown too, beside `q:launch(k, 1, nil, {event = false})`,
-- which asks for no event either. The device is cl.device() (CLUA_DEVICE),
-- passed to the C program as P:D.
--
-- One round is clua, C --event, clua without an event and C, one after the
-- other; R rounds (default 7) alternate them so that a noisy machine (PoCL on a small CPU) hits all
-- alike, and each pair swaps its order from round to round (odd rounds clua
-- first, even rounds C first: the `first` column): a process started right
-- after the other side's may find the machine in a state that one (the
-- driver's teardown of the process before, the GPU's clocks), and with a
-- fixed order that would fall on one side only. The summary gives the median
-- ratio of each order's rounds beside the whole's. Each round's figures are printed, then the median over rounds
-- and the ratio clua / C of those medians, and beside it the median of the
-- rounds' own ratios with its 95% confidence interval (order statistics: 6
-- to 8 rounds give [lowest, highest], 9 give [2nd, 8th], 13 [3rd, 11th]; 5 or
-- fewer cannot give 95%). The goal (1.05× on a GPU, 1.25× on a CPU device)
-- reads "met" only when the whole interval is below it, "not met" when it is
-- all above, else "not settled".
--
-- Then the same four on a held queue (--held on both sides): each batch is
-- enqueued behind a marker waiting for a user event, completed once the
-- batch is timed, so the device runs none of it meanwhile. On a CPU device
-- the driver's threads otherwise run the kernels on the cores the enqueuing
-- thread needs, and single rounds' ratios spread from 0.6× to 1.9× (PoCL on
-- 2 cores); held, the enqueuing thread has the CPU to itself and the
-- figures are the enqueue's own cost, steady to a few percent.
--
-- Then round trips, where clua's waits (interruptible by ^C) are held
-- against C's: N/10 times `q:launch(k, 1)` and `q:finish()`, against C's
-- clEnqueueNDRangeKernel + clFinish + clReleaseEvent (`--sync finish`);
-- and `q:launch(k, 1):wait()` against clEnqueueNDRangeKernel +
-- clWaitForEvents + clReleaseEvent (`--sync wait`); the loop timed, µs per
-- round trip, R alternating rounds.
--
-- --tables picks some of the three tables (enqueue, held, sync; default all
-- three), to spend more rounds on one: on the H100 a held enqueue moves by
-- ±10% from one new process to the next, the same program's (docs/notes/launch.md),
-- so an interval of a few percent around a ratio takes 40 rounds or more.
--
-- --launcher makes clua's launches go() of a q:launcher made once before the
-- twin's batches (bench/launch_clua.lua --launcher), the same tables and C
-- figures beside them.
local cl = require("cl")
local stats = require("clua.stats")
local proc = require("clua.proc")
local noise = require("clua.noise")

local n, batches, rounds = 10000, 5, 7
local TABLES = { "enqueue", "held", "sync" }
local tables = { enqueue = true, held = true, sync = true }
local function usage()
  io.stderr:write("usage: clua bench/launch.lua [--n N] [--batches B] [--rounds R] [--c PATH] [--tables enqueue,held,sync]"
    .. " [--launcher]\n")
  os.exit(2)
end
local here = (arg and arg[0] or "bench/launch.lua"):match("^(.*)/[^/]*$") or "."
local cprog = here .. "/../build/bench/launch"
local launcher = false
local i = 1
while arg and arg[i] do
  local a, v = arg[i], arg[i + 1]
  local num = v and math.tointeger(tonumber(v))
  if a == "--launcher" then launcher, i = true, i - 1 -- a flag: no value to step over
  elseif a == "--n" and num then n = num
  elseif a == "--batches" and num then batches = num
  elseif a == "--rounds" and num then rounds = num
  elseif a == "--c" and v then cprog = v
  elseif a == "--tables" and v then
    tables = {}
    for name in (v .. ","):gmatch("([^,]*),") do
      local known = false
      for _, t in ipairs(TABLES) do known = known or t == name end
      if not known then
        io.stderr:write(("bench/launch.lua: --tables: no table '%s' (enqueue, held, sync)\n"):format(name))
        os.exit(2)
      end
      tables[name] = true
    end
  else
    usage()
  end
  i = i + 2
end
if n < 1 or batches < 1 or rounds < 1 then
  io.stderr:write("bench/launch.lua: --n, --batches and --rounds take positive integers\n")
  os.exit(2)
end

-- The device, and its P:D indices for the C program.
local dev = cl.device()
local where = require("clua.device").index(dev)

local cluaprog = here .. "/launch_clua.lua"
local interpreter = proc.interpreter()

-- One measurement, a process of its own: the C program or its clua twin with
-- these options; returns its printed median and its CPU-time median.
local function measure(side, extra, m)
  local head = side == "C" and ("%s --device %s"):format(proc.quote(cprog), where)
    or ("%s %s"):format(proc.quote(interpreter), proc.quote(cluaprog))
  local cmd = ("%s --n %d --batches %d %s 2>&1"):format(head, m or n, batches, extra)
  local f = io.popen(cmd)
  local out = f:read("a")
  local ok = f:close()
  local v = tonumber(out:match("^%a+_%a*_?us ([%d.]+)") or out:match("\n%a+_%a*_?us ([%d.]+)"))
  local c = tonumber(out:match("cpu_us ([%d.]+)"))
  if not ok or not v or not c then
    io.stderr:write(("bench/launch.lua: %s failed%s:\n%s"):format(cmd,
      side == "C" and " (build it with `make -f bench/Makefile`)" or "", out))
    os.exit(1)
  end
  return v, c
end
local function run_clua(extra, m) return measure("clua", launcher and extra .. " --launcher" or extra, m) end
-- A row's label: q:launch's calls, or with --launcher the go() that replaces them.
local function row_label(s)
  if not launcher then return s end
  return (s:gsub("q:launch%(k, 1, nil, {event = false}%)", "go(), {event = false}"):gsub("q:launch%(k, 1%)", "go()"))
end
local function run_c(extra, m) return measure("C", extra, m) end

print(("empty-kernel enqueue cost, host clock: µs per enqueue, median of %d batches of %d after a warm-up batch"):format(batches, n))
print(("device: %s (%s, %s)"):format(dev.name, dev.platform, where))
if launcher then
  print("clua's launches: go() of a q:launcher(k, 1[, nil, {event = false}]) made once before the batches")
end
-- On a CPU device the driver's threads run the kernels on the host's own
-- cores, beside the enqueuing thread: with PoCL's default (a thread a core)
-- a running enqueue's figure includes how the scheduler shares them, and on
-- a 2-core machine its rounds spread from 0.9 to 2x (docs/notes/launch.md).
if dev.info.type == "CPU" then
  local set, cu = os.getenv("POCL_MAX_PTHREAD_COUNT"), dev.info.compute_units
  print(("note: a CPU device: its %d compute thread%s run%s the kernels on the host's cores beside the enqueuing "
    .. "thread, so the running enqueues (not the held ones) time the scheduler's sharing of them too; %s"):format(
    cu, cu == 1 and "" or "s", cu == 1 and "s" or "",
    set and ("POCL_MAX_PTHREAD_COUNT=%s here, on both sides"):format(set)
      or "with PoCL, POCL_MAX_PTHREAD_COUNT below the host's cores leaves that thread a core"))
end
local load0 = noise.loadavg() or "unknown"
print(("load average (1, 5, 15 min): %s"):format(load0))
print()
-- Which side runs first in round r: clua in odd rounds, C in even ones.
local function first(r) return r % 2 == 1 and "clua" or "C" end

-- Prints a table of `rounds` rows, each measuring the four functions of `fns`
-- in turn (clua, C; clua, C, each pair swapped in even rounds) with the two
-- clua/C ratios and which side went first, then the medians; returns the
-- four medians, then a list of the four medians of the second figure each
-- function returns (the calling thread's CPU time), if any, then the figures.
local function rounds_table(head_fmt, heads, row_fmt, fns)
  local cols = { "round", table.unpack(heads) }
  cols[#cols + 1] = "first"
  print((head_fmt .. " %6s"):format(table.unpack(cols)))
  local v, c = { {}, {}, {}, {} }, { {}, {}, {}, {} }
  for r = 1, rounds do
    local order = first(r) == "clua" and { 1, 2, 3, 4 } or { 2, 1, 4, 3 }
    for _, j in ipairs(order) do v[j][r], c[j][r] = fns[j]() end
    print((row_fmt .. " %6s"):format(r, v[1][r], v[2][r], v[1][r] / v[2][r], v[3][r], v[4][r], v[3][r] / v[4][r],
      first(r)))
  end
  local m, mc = {}, {}
  for j = 1, 4 do
    m[j] = stats.median(v[j])
    mc[j] = #c[j] == rounds and stats.median(c[j]) or nil
  end
  print(row_fmt:format("median", m[1], m[2], m[1] / m[2], m[3], m[4], m[3] / m[4]))
  return m[1], m[2], m[3], m[4], mc, v
end

-- The goal for the ratio clua / C: 1.05 on a GPU, 1.25 on a CPU device (PoCL,
-- whose whole enqueue is about 1 µs).
local GOAL = dev.info.type == "CPU" and 1.25 or 1.05

-- One summary line: the medians, their ratio, then how sure the rounds make
-- it: the 95% confidence interval of the median of the rounds' own ratios
-- (order statistics, clua.stats.median_ci) and what it says of the goal. A
-- goal is met only when the whole interval is below it. Then the median
-- ratio of the rounds that ran clua first and of those that ran C first: far
-- apart, they say the order moves the figures (and the rounds' median, over
-- both orders alike, is the one to read).
local function summary(label, clua, vs, c, rc, rs)
  label = row_label(label)
  local ratios, by = {}, { clua = {}, C = {} }
  for r = 1, #rc do
    ratios[r] = rc[r] / rs[r]
    table.insert(by[first(r)], ratios[r])
  end
  local lo, hi, cover = stats.median_ci(ratios)
  local verdict = cover < 0.95 and ("too few rounds for a 95%% interval (%d; 6 or more)"):format(#ratios)
    or hi <= GOAL and "met" or lo > GOAL and "not met" or "not settled by these rounds"
  local function med(xs) return #xs > 0 and ("%.2f×"):format(stats.median(xs)) or "-" end
  print(("%-42s %7.3f µs   vs %-19s %7.3f µs: %.2f×   rounds' ratios: median %.2f×, %.0f%% CI %.2f–%.2f×; "
    .. "goal ≤ %.2f×: %s; clua first %s, C first %s"):format(label, clua, vs, c, clua / c, stats.median(ratios),
    cover * 100, lo, hi, GOAL, verdict, med(by.clua), med(by.C)))
end

if tables.enqueue then
  local mcl, mce, mcn, mcp, cpu, v = rounds_table("%-7s %10s %11s %15s %16s %10s %12s",
    { "clua", "C --event", "clua/C --event", "clua, no event", "C", "clua/C" },
    "%-7s %10.3f %11.3f %14.2f× %16.3f %10.3f %11.2f×",
    { function() return run_clua("--event") end, function() return run_c("--event") end,
      function() return run_clua("") end, function() return run_c("") end })
  print()
  summary("clua q:launch(k, 1)", mcl, "C --event", mce, v[1], v[2])
  summary("clua q:launch(k, 1, nil, {event = false})", mcn, "C", mcp, v[3], v[4])
  -- The same batches by the CPU time of the enqueuing thread: what each launch
  -- costs the host, without the time that thread lost to the driver's own
  -- threads (on a CPU device they share its cores) or waited.
  print()
  print("the same batches by the enqueuing thread's CPU time (cl.cputime, CLOCK_THREAD_CPUTIME_ID): µs per enqueue, "
    .. "median of rounds")
  print(("%-42s %7.3f µs   vs C --event %7.3f µs: %.2f×"):format(row_label("clua q:launch(k, 1)"), cpu[1], cpu[2],
    cpu[1] / cpu[2]))
  print(("%-42s %7.3f µs   vs C         %7.3f µs: %.2f×"):format(row_label("clua q:launch(k, 1, nil, {event = false})"),
    cpu[3], cpu[4], cpu[3] / cpu[4]))
  print()
end

if tables.held then
  print(("the same on a held queue (nothing runs while a batch is enqueued): µs per enqueue, median of %d batches of %d "
    .. "after a warm-up batch"):format(batches, n))
  local hcl, hce, hcn, hcp, _, hv = rounds_table("%-7s %10s %11s %15s %16s %10s %12s",
    { "clua", "C --event", "clua/C --event", "clua, no event", "C", "clua/C" },
    "%-7s %10.3f %11.3f %14.2f× %16.3f %10.3f %11.2f×",
    { function() return run_clua("--event --held") end, function() return run_c("--event --held") end,
      function() return run_clua("--held") end, function() return run_c("--held") end })
  print()
  summary("held: clua q:launch(k, 1)", hcl, "C --event", hce, hv[1], hv[2])
  summary("held: q:launch(k, 1, nil, {event = false})", hcn, "C", hcp, hv[3], hv[4])
  print()
end

if tables.sync then
  local m = math.max(1, n // 10)
  print(("round trips: µs per launch + wait, median of %d batches of %d after a warm-up batch"):format(batches, m))
  local msf, mcf, msw, mcw, _, vs = rounds_table("%-7s %14s %10s %8s %14s %10s %8s",
    { "launch+finish", "C", "clua/C", "launch+wait", "C", "clua/C" },
    "%-7s %14.3f %10.3f %7.2f× %14.3f %10.3f %7.2f×",
    { function() return run_clua("--sync finish", m) end, function() return run_c("--sync finish", m) end,
      function() return run_clua("--sync wait", m) end, function() return run_c("--sync wait", m) end })
  print()
  summary("clua q:launch(k, 1); q:finish()", msf, "C (clFinish)", mcf, vs[1], vs[2])
  summary("clua q:launch(k, 1):wait()", msw, "C (clWaitForEvents)", mcw, vs[3], vs[4])
  print()
end
print(("load average (1, 5, 15 min): %s at the start, %s at the end"):format(load0, noise.loadavg() or "unknown"))
