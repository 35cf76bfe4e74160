--- clua.stats: summary statistics of a list of numbers.
-- Pure Lua; a list is a Lua sequence of numbers (times in ns, say).
-- @module clua.stats
local stats = {}

local function sorted(xs)
  local s = table.move(xs, 1, #xs, 1, {})
  table.sort(s)
  return s
end

--- The smallest value (nil for an empty list).
function stats.min(xs)
  local m = xs[1]
  for i = 2, #xs do if xs[i] < m then m = xs[i] end end
  return m
end

--- The largest value (nil for an empty list).
function stats.max(xs)
  local m = xs[1]
  for i = 2, #xs do if xs[i] > m then m = xs[i] end end
  return m
end

--- The sum (0 for an empty list).
function stats.sum(xs)
  local s = 0
  for i = 1, #xs do s = s + xs[i] end
  return s
end

--- The arithmetic mean (nil for an empty list).
function stats.mean(xs)
  if #xs == 0 then return nil end
  return stats.sum(xs) / #xs
end

--- Sample standard deviation (divides by n - 1); 0 for a single value.
function stats.stddev(xs)
  local n = #xs
  if n == 0 then return nil end
  if n == 1 then return 0.0 end
  local m, ss = stats.mean(xs), 0
  for i = 1, n do ss = ss + (xs[i] - m) ^ 2 end
  return math.sqrt(ss / (n - 1))
end

-- Percentile p in [0, 100], linear interpolation between closest ranks.
local function percentile_sorted(s, p)
  local n = #s
  if n == 0 then return nil end
  local h = (n - 1) * p / 100 + 1
  local lo = math.floor(h)
  if lo >= n then return s[n] end
  return s[lo] + (h - lo) * (s[lo + 1] - s[lo])
end

--- Percentile `p` (0-100) by linear interpolation between the closest ranks
-- (nil for an empty list).
function stats.percentile(xs, p) return percentile_sorted(sorted(xs), p) end
--- The median: the 50th percentile (nil for an empty list).
function stats.median(xs) return percentile_sorted(sorted(xs), 50) end

--- A distribution-free confidence interval for the median: the order
-- statistics `lo = s[k]`, `hi = s[n + 1 - k]` of the sorted values, with the
-- largest k whose coverage, 1 - 2 P(B < k) for B ~ Binomial(n, 1/2), is at
-- least `level` (default 0.95). Too few values for that level give the whole
-- range and the coverage it has (5 values: 0.9375).
-- @tparam {number,...} xs the values (left unsorted)
-- @number[opt=0.95] level the coverage wanted
-- @treturn number lo
-- @treturn number hi
-- @treturn number the interval's coverage
-- @return nil for an empty list
function stats.median_ci(xs, level)
  level = level or 0.95
  local n = #xs
  if n == 0 then return nil end
  local s = sorted(xs)
  -- each term in logs: 0.5^n underflows past 1074 values, C(n, k) overflows
  local logp = n * math.log(0.5)
  local k, tail, logchoose = 1, math.exp(logp), 0 -- tail = P(B <= k - 1); logchoose = log C(n, k - 1)
  while 2 * (k + 1) <= n + 1 do
    logchoose = logchoose + math.log((n - k + 1) / k) -- log C(n, k)
    local wider = tail + math.exp(logchoose + logp) -- P(B <= k)
    if 1 - 2 * wider < level then break end
    k, tail = k + 1, wider
  end
  return s[k], s[n + 1 - k], 1 - 2 * tail
end

--- The smallest positive difference between two of the values: the step of
-- a quantised clock's readings (nil when all are equal, or fewer than two).
function stats.min_step(xs)
  local s, step = sorted(xs), nil
  for i = 2, #s do
    local d = s[i] - s[i - 1]
    if d > 0 and (not step or d < step) then step = d end
  end
  return step
end

--- The least-squares slope of `ys` against `xs` (lists of one length); nil
-- when the xs are all equal.
function stats.slope(xs, ys)
  local mx, my, sxy, sxx = stats.mean(xs), stats.mean(ys), 0, 0
  for i = 1, #xs do
    sxy = sxy + (xs[i] - mx) * (ys[i] - my)
    sxx = sxx + (xs[i] - mx) ^ 2
  end
  return sxx > 0 and sxy / sxx or nil
end

--- All the statistics at once: `{n=, median=, min=, max=, mean=, stddev=}`;
-- only `n = 0` for an empty list.
function stats.summary(xs)
  local n = #xs
  if n == 0 then return { n = 0 } end
  local s = sorted(xs)
  return {
    n = n, median = percentile_sorted(s, 50), min = s[1], max = s[n],
    mean = stats.mean(xs), stddev = stats.stddev(xs),
  }
end

return stats
