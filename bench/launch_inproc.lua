-- bench/launch_inproc.lua: is what q:launch costs beyond plain C the Lua
-- layer, or clua's process? One clua process holds q:launch against the C
-- program's own loop (bench/common.c launch_enqueue_us) run inside it through
-- build/bench/launch_inproc.so, and both against the C program and clua's
-- twin (bench/launch_clua.lua) in processes of their own.
--
--   build/clua bench/launch_inproc.lua [--rounds R] [--n N] [--batches B] [--running]
--
-- Empty-kernel launches without an event (kernels/copy.cl `empty`, global 1),
-- µs per launch, median of B batches (default 5) of N (default 10000) after a
-- warm-up batch, each batch on a held queue (behind a marker waiting for a
-- user event: the enqueue's own cost; --running: the device runs the batch as
-- it is enqueued). One round measures, one after the other:
--
--   q:launch            clua's q:launch(k, 1, nil, {event = false}) loop
--   C, in clua          the C loop in this process, on OpenCL objects of its own
--   C, clua's q and k   the same loop on clua's queue and kernel
--   Lua loop of C.one   a Lua loop calling a C function that enqueues: the Lua
--                       call without clua's checks
--   C program           build/bench/launch [--held], a process of its own
--   clua, own process   bench/launch_clua.lua [--held], a process of its own
--
-- R rounds (default 7) alternate them; the medians, and each column's median
-- of its rounds' ratios to "C, in clua" and to "C program", are printed last.
-- Needs `make -f bench/Makefile` (build/bench/launch and launch_inproc.so).
local cl = require("cl")
local stats = require("clua.stats")
local proc = require("clua.proc")
local noise = require("clua.noise")

local rounds, n, batches, held = 7, 10000, 5, true
local i = 1
while arg[i] do
  local a, v = arg[i], arg[i + 1]
  local num = v and math.tointeger(tonumber(v))
  if a == "--rounds" and num and num >= 1 then rounds, i = num, i + 1
  elseif a == "--n" and num and num >= 1 then n, i = num, i + 1
  elseif a == "--batches" and num and num >= 1 and num <= 64 then batches, i = num, i + 1
  elseif a == "--running" then held = false
  else
    io.stderr:write("usage: clua bench/launch_inproc.lua [--rounds R] [--n N] [--batches B (1-64)] [--running]\n")
    os.exit(2)
  end
  i = i + 1
end

local here = arg[0]:match("^(.*)/[^/]*$") or "."
local built = here .. "/../build/bench"
local open_module = package.loadlib(built .. "/launch_inproc.so", "luaopen_launch_inproc")
if not open_module then
  io.stderr:write(("bench/launch_inproc.lua: no %s/launch_inproc.so: build it with `make -f bench/Makefile`\n"):format(built))
  os.exit(1)
end
local C = open_module()

local dev = cl.device()
local where = require("clua.device").index(dev)
C.setup(where, here .. "/../kernels")
local ctx = cl.context(dev)
local q = ctx:queue()
local k = ctx:program_file("copy.cl"):build():kernel("empty")
local noevent = { event = false }

-- Times B batches of `body` after a warm-up one, each behind `hold` when held.
local function batches_of(body, hold, unhold, finish)
  local per = {}
  for b = 0, batches do
    local h = held and hold()
    local t0 = cl.now()
    body()
    local t1 = cl.now()
    if h then unhold(h) end
    finish()
    if b > 0 then per[b] = (t1 - t0) / n / 1e3 end
  end
  return stats.median(per)
end

local function clua_hold()
  local h = ctx:user_event()
  q:marker { h }
  return h
end
local function clua_unhold(h) h:complete() end
local function clua_finish() q:finish() end

local function lua_launch()
  return batches_of(function()
    for _ = 1, n do q:launch(k, 1, nil, noevent) end
  end, clua_hold, clua_unhold, clua_finish)
end
local one = C.one
local function lua_one()
  return batches_of(function()
    for _ = 1, n do one() end
  end, C.hold, C.unhold, C.finish)
end
local function c_inproc() return (C.loop(n, batches, held)) end
local function c_on_clua() return (C.loop(n, batches, held, q, k)) end
local function process(cmd)
  local f = io.popen(("%s --n %d --batches %d%s 2>&1"):format(cmd, n, batches, held and " --held" or ""))
  local out = f:read("a")
  local ok = f:close()
  local v = tonumber(out:match("launch_us ([%d.]+)"))
  if not ok or not v then
    io.stderr:write(("bench/launch_inproc.lua: %s failed:\n%s"):format(cmd, out))
    os.exit(1)
  end
  return v
end
local function c_program() return process(("%s --device %s"):format(proc.quote(built .. "/launch"), where)) end
local function clua_program()
  return process(("%s %s"):format(proc.quote(proc.interpreter()), proc.quote(here .. "/launch_clua.lua")))
end

local cols = {
  { "q:launch", lua_launch }, { "C, in clua", c_inproc }, { "C, clua's q and k", c_on_clua },
  { "Lua loop of C.one", lua_one }, { "C program", c_program }, { "clua, own process", clua_program },
}
local names, v = {}, {}
for j, c in ipairs(cols) do names[j], v[j] = c[1], {} end
local width = #cols
local head = "%-7s" .. ("%19s"):rep(width)
local row = "%-7s" .. ("%19.3f"):rep(width)

print(("empty-kernel launches without an event, %s queue: µs per launch, median of %d batches of %d after a warm-up batch")
  :format(held and "held" or "running", batches, n))
print(("device: %s (%s, %s)"):format(dev.name, dev.platform, where))
local load0 = noise.loadavg() or "unknown"
print()
print(head:format("round", table.unpack(names)))
for r = 1, rounds do
  local line = {}
  for j, c in ipairs(cols) do
    v[j][r] = c[2]()
    line[j] = v[j][r]
  end
  print(row:format(r, table.unpack(line)))
end
local med = {}
for j = 1, width do med[j] = stats.median(v[j]) end
print(row:format("median", table.unpack(med)))
print()
print("each column's median of its rounds' ratios")
local function ratios(to)
  local out = {}
  for j = 1, width do
    local rr = {}
    for r = 1, rounds do rr[r] = v[j][r] / v[to][r] end
    out[j] = stats.median(rr)
  end
  return out
end
print(row:format("/C in", table.unpack(ratios(2))))
print(row:format("/C prog", table.unpack(ratios(5))))
print()
print(("load average (1, 5, 15 min): %s at the start, %s at the end"):format(load0, noise.loadavg() or "unknown"))
