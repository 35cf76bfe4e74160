-- bench/gpu_load.lua: keep one device busy with arithmetic for a while, so
-- that a cluster card (recipes/report.lua --cluster) has a loaded GPU to flag.
--
--   clua bench/gpu_load.lua [--device D] [--seconds S]
--
-- Launches a kernel of dependent multiply-adds on every compute unit
-- (64 work-groups of 256 per unit, 16384 steps each), back to back with at
-- most two in flight, until S seconds (default 60) have passed by the
-- host clock; then prints the launches, the seconds and the busy share
-- (the launches' events over the span). Its result is checked: r stays x
-- through r = r * 0.5 + x * 0.5, so every element must hold its input.
local cl = require("cl")

local device, seconds = nil, 60
local i = 1
while arg[i] do
  local a, v = arg[i], arg[i + 1]
  if a == "--device" and v then device, i = v, i + 1
  elseif a == "--seconds" and tonumber(v) and tonumber(v) > 0 then seconds, i = tonumber(v), i + 1
  else
    io.stderr:write("usage: clua bench/gpu_load.lua [--device D] [--seconds S]\n")
    os.exit(2)
  end
  i = i + 1
end

local dev = cl.device(device)
local ctx = cl.context(dev)
local q = ctx:queue()
local k = ctx:program([[
__kernel void load(__global float *x, uint steps)
{
    size_t i = get_global_id(0);
    float v = x[i], r = v;
    for (uint s = 0; s < steps; s++) r = fma(r, 0.5f, v * 0.5f);
    x[i] = r;
}]], "gpu_load.cl"):build():kernel("load")

local L = 256
local n = dev.info.compute_units * 64 * L
local x = cl.array("float", n):random(1, -1, 1)
local dx = ctx:buffer(x)
k:args(dx, cl.uint(16384))

local t0, launches, busy, pending = cl.now(), 0, 0, {}
local span = seconds * 1e9
while cl.now() - t0 < span do
  pending[#pending + 1] = q:launch(k, n, L)
  q:flush()
  launches = launches + 1
  if #pending == 2 then
    local e = table.remove(pending, 1)
    e:wait()
    busy = busy + e.duration
  end
end
for _, e in ipairs(pending) do e:wait(); busy = busy + e.duration end
local elapsed = cl.now() - t0

local y = cl.array("float", n)
q:read(dx, y)
for j = 0, n - 1 do
  if y[j] ~= x[j] then
    io.stderr:write(("gpu_load: element %d holds %.9g, not %.9g\n"):format(j, y[j], x[j]))
    os.exit(1)
  end
end
print(("gpu_load: %s, %d launches in %.1f s, busy %.0f %% of it (events)"):format(dev.info.name, launches,
  elapsed / 1e9, busy / elapsed * 100))
