-- bench/launch_loop.lua: the clua side of bench/launch_ir.sh and
-- bench/launch_perf.sh, which count or sample it whole:
--
--   clua bench/launch_loop.lua event|noevent N
--
-- 2 x N launches of `empty` (kernels/copy.cl, global 1), each batch then
-- q:finish(), as build/bench/launch does (a warm-up batch of N, one batch of
-- N); with an event each (`q:launch(k, 1)`) or none (`{event = false}`).
local cl = require "cl"
local mode, n = arg[1], math.tointeger(tonumber(arg[2] or ""))
if (mode ~= "event" and mode ~= "noevent") or not n or n < 1 then
  io.stderr:write("usage: clua bench/launch_loop.lua event|noevent N\n")
  os.exit(2)
end
local ctx = cl.context(cl.device())
local q = ctx:queue()
local k = ctx:program_file("copy.cl"):build():kernel("empty")
local opts = { event = false }
for _ = 1, 2 do
  if mode == "event" then
    for _ = 1, n do q:launch(k, 1) end
  else
    for _ = 1, n do q:launch(k, 1, nil, opts) end
  end
  q:finish()
end
