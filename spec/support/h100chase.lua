-- The H100's pointer chase (docs/recipes/memory.md, issue 38), for the
-- specs of clua.levels and clua.memstudy: 20 ns up to 128 KiB, 91 ns at 256
-- KiB, 143 ns from 512 KiB to 8 MiB, 238-266 ns from 16 to 64 MiB, 313-318
-- ns from 128 MiB to 4 GiB. `curve(list, s)`: a sweep as levels.find's
-- points, each with five repetitions spread by +-s around its value.
local KiB, MiB = 1024, 1024 * 1024

local M = {}

--- {working set, ns} a point.
M.LATENCY = {
  { 1 * KiB, 20.1 }, { 2 * KiB, 20.0 }, { 4 * KiB, 20.2 }, { 8 * KiB, 20.1 }, { 16 * KiB, 20.0 },
  { 32 * KiB, 20.1 }, { 64 * KiB, 20.2 }, { 128 * KiB, 20.3 }, { 256 * KiB, 91.0 }, { 512 * KiB, 143.2 },
  { 1 * MiB, 143.0 }, { 2 * MiB, 142.8 }, { 4 * MiB, 143.5 }, { 8 * MiB, 144.0 }, { 16 * MiB, 238.0 },
  { 32 * MiB, 251.0 }, { 64 * MiB, 266.0 }, { 128 * MiB, 313.0 }, { 256 * MiB, 315.0 }, { 512 * MiB, 316.0 },
  { 1024 * MiB, 317.0 }, { 2048 * MiB, 318.0 }, { 4096 * MiB, 318.0 },
}

--- Five repetitions spread by +-s around y.
function M.reps(y, s)
  return { y * (1 - s), y * (1 - s / 2), y, y * (1 + s / 2), y * (1 + s) }
end

--- The sweep `list` ({x, y} a point) as levels.find's points, repetitions spread by +-s.
function M.curve(list, s)
  local pts = {}
  for i, p in ipairs(list) do pts[i] = { x = p[1], y = p[2], times = M.reps(p[2] * 1e4, s) } end
  return pts
end

return M
