--- clua.levels: the levels of a sweep, such as the latency of a pointer chase
-- by working set: runs of points (plateaus) whose values differ from their
-- neighbours' beyond noise, the points between two plateaus (transitions),
-- and the capacity of a cache from the working sets it holds in part.
--
-- Two values differ when their ratio is beyond both the smallest step between
-- levels (`step`, default 1.15) and their noise: each point's noise is the
-- relative half-width of the confidence interval of its repetitions' median
-- (clua.stats.median_ci; with 5 repetitions, their range), at least `floor`
-- (default 1 %); a level's noise is the larger of its points' median noise
-- and the scatter of its points (1.4826 x their median absolute deviation, in
-- logs). So a plateau that drifts by a few % (a cache partly holding the set)
-- stays one level, a flat curve whose repetitions spread widely stays one
-- level, and a step of 25 % between two steady plateaus is a level of its own,
-- where a fixed knee (1.5x) would miss it.
-- @module clua.levels
local stats = require("clua.stats")

local levels = {}

--- The smallest ratio between two levels' values, by default.
levels.STEP = 1.15
--- The smallest relative noise of a point, by default.
levels.FLOOR = 0.01

local log = math.log

-- A point's relative noise: its interval's half-width / its value.
local function point_noise(p, floor)
  local lo, hi, mid = p.lo, p.hi, p.y
  if p.times and #p.times > 0 then
    lo, hi = stats.median_ci(p.times)
    mid = stats.median(p.times)
  end
  local e = 0
  if lo and hi and mid and mid > 0 then e = (hi - lo) / 2 / mid end
  return math.max(floor, e)
end

-- A level made of points first..last of pts: its median, noise and range.
local function make(pts, first, last)
  local logs, noises, ys = {}, {}, {}
  for k = first, last do
    logs[#logs + 1], noises[#noises + 1], ys[#ys + 1] = pts[k].v, pts[k].e, pts[k].y
  end
  local m = stats.median(logs)
  local scatter = 0
  if #logs >= 3 then
    local dev = {}
    for i, v in ipairs(logs) do dev[i] = math.abs(v - m) end
    scatter = 1.4826 * stats.median(dev)
  end
  return { first = first, last = last, from = pts[first].x, to = pts[last].x, value = stats.median(ys),
    lo = stats.min(ys), hi = stats.max(ys), points = last - first + 1, v = m,
    noise = math.max(stats.median(noises), scatter), rep_noise = stats.median(noises) }
end

local function apart(va, ea, vb, eb, step)
  return math.abs(va - vb) > math.max(log(step), ea + eb)
end

--- The levels of a sweep.
-- A scan in order of x starts a new level at a point whose value is apart
-- from the current level's median (beyond `step` and beyond both noises); a
-- level of one point whose value lies between its neighbours' is a
-- transition, not a level; then neighbouring levels that are not apart are
-- merged (with the transitions between them), until every two are apart.
-- @tparam {table,...} points in order of x: `{x=, y=}` with, for the noise,
-- `times` (the repetitions, in any unit: only their relative spread counts)
-- or `lo` and `hi` (an interval around y, in y's unit); y > 0
-- @tab[opt] opts `step` (the smallest ratio between two levels, > 1; default
-- levels.STEP), `floor` (the smallest relative noise of a point; default
-- levels.FLOOR)
-- @treturn {table,...} the levels, in order: `{from=, to=, value=, lo=, hi=,
-- points=, first=, last=, noise=, rep_noise=}` (x of the first and last
-- point, the median value, the smallest and largest value, the count of
-- points, their indices in `points`, the relative noise, and the median of its
-- points' noise alone)
-- @treturn {table,...} the transitions: `{x=, y=, index=, after=}`, after =
-- the index of the level before it
function levels.find(points, opts)
  opts = opts or {}
  local step, floor = opts.step or levels.STEP, opts.floor or levels.FLOOR
  assert(step > 1, "levels.find: step must be > 1")
  local pts = {}
  for i, p in ipairs(points) do
    assert(type(p.y) == "number" and p.y > 0, "levels.find: point " .. i .. " needs a value y > 0")
    pts[i] = { x = p.x, y = p.y, v = log(p.y), e = point_noise(p, floor) }
  end
  if #pts == 0 then return {}, {} end
  -- the scan
  local runs, first = {}, 1
  for k = 2, #pts do
    local cur = make(pts, first, k - 1)
    if apart(cur.v, cur.noise, pts[k].v, pts[k].e, step) then
      runs[#runs + 1] = { first, k - 1 }
      first = k
    end
  end
  runs[#runs + 1] = { first, #pts }
  -- transitions: one point between two levels, its value between theirs
  local keep, trans = {}, {}
  for i, r in ipairs(runs) do
    local prev, nxt = runs[i - 1], runs[i + 1]
    local between = false
    if r[1] == r[2] and prev and nxt then
      local a, b = make(pts, prev[1], prev[2]).v, make(pts, nxt[1], nxt[2]).v
      local v = pts[r[1]].v
      between = (v - a) * (b - v) > 0
    end
    if between then trans[r[1]] = true else keep[#keep + 1] = r end
  end
  -- merge the neighbours that are not apart
  local merged = true
  while merged and #keep > 1 do
    merged = false
    local best, bi = math.huge, nil
    for i = 1, #keep - 1 do
      local a, b = make(pts, keep[i][1], keep[i][2]), make(pts, keep[i + 1][1], keep[i + 1][2])
      if not apart(a.v, a.noise, b.v, b.noise, step) then
        local d = math.abs(a.v - b.v)
        if d < best then best, bi = d, i end
      end
    end
    if bi then
      for k = keep[bi][2] + 1, keep[bi + 1][1] - 1 do trans[k] = nil end
      keep[bi] = { keep[bi][1], keep[bi + 1][2] }
      table.remove(keep, bi + 1)
      merged = true
    end
  end
  local out, tr = {}, {}
  for i, r in ipairs(keep) do
    local l = make(pts, r[1], r[2])
    l.v = nil
    out[i] = l
  end
  for k = 1, #pts do
    if trans[k] then
      local after = 0
      for i, l in ipairs(out) do if l.last < k then after = i end end
      tr[#tr + 1] = { x = pts[k].x, y = pts[k].y, index = k, after = after }
    end
  end
  return out, tr
end

-- A cache's capacity from one working set that it holds in part (see
-- levels.capacity).
local function capacity_at(ws, y, hit, miss)
  local h = (miss - y) / (miss - hit)
  return -ws * (1 - h) / log(h)
end

--- A cache's capacity, from the working sets it holds in part: a chase over
-- `ws` whose latency y lies between the cache level's latency (`hit`, its
-- median) and the next level's (`miss`) hits with the fraction h = (miss -
-- y) / (miss - hit); with random replacement a line survives the ws (1 - h)
-- misses of one round of the cycle with probability (1 - 1/C) a miss, so h =
-- exp(-ws (1 - h) / C) and C = -ws (1 - h) / ln h. (With LRU a cyclic chase
-- would miss every line past the capacity; a gradual rise says the
-- replacement is not LRU.) Every point past half the cache level's last x
-- (its last octave), before the next level's first, whose value is apart from both levels' values by more than the noise of
-- their repetitions and its own (not the step, not the levels' scatter)
-- gives an estimate; the capacity is their median.
-- @tab hit the cache's level (of levels.find)
-- @tab miss the next level
-- @tparam {table,...} points every point measured, `{x=, y=, times= | lo=, hi=}`, any order (x in bytes)
-- @tab[opt] opts `floor` as levels.find's
-- @treturn number|nil the capacity (in x's unit), nil when no point lies between
-- @treturn {number,...} the x of the points used
function levels.capacity(hit, miss, points, opts)
  local floor = (opts or {}).floor or levels.FLOOR
  local a, b = hit.value, miss.value
  local est, used = {}, {}
  local sorted = table.move(points, 1, #points, 1, {})
  table.sort(sorted, function(p, q) return p.x < q.x end)
  for _, p in ipairs(sorted) do
    local e = point_noise(p, floor)
    local y = log(p.y)
    if p.x > math.max(hit.from, hit.to / 2) and p.x < miss.from and y - log(a) > hit.rep_noise + e and log(b) - y > miss.rep_noise + e then
      est[#est + 1], used[#used + 1] = capacity_at(p.x, p.y, a, b), p.x
    end
  end
  return stats.median(est), used
end

return levels
