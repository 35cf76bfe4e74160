--- clua.noise: how far a figure's repetitions spread, and a flag on the rows
-- whose spread is too wide for the figure to be a finding.
--
-- The spread of a timed figure is (max - min) / median of its repetitions,
-- in %. A row above `noise.THRESHOLD` (10 %) is flagged in its table (the
-- cell reads "23.4 !") and `R:emit` adds a note saying which rows are noise:
-- on a busy machine, or a device without the feature measured (a CPU has no
-- copy engine to overlap with), a difference of a few tens of percent between
-- two rows may be nothing but that noise.
-- @module clua.noise
local stats = require("clua.stats")

local noise = {}

--- Rows whose spread exceeds this many percent are flagged.
noise.THRESHOLD = 10

--- The spread of a timing: (max - min) / median in %, or nil.
-- @param tm a clua.timing result (`min`, `median`, `max`) or a list of times
-- @treturn number|nil
function noise.spread(tm)
  local lo, mid, hi
  if type(tm) ~= "table" then return nil end
  if tm.median then
    lo, mid, hi = tm.min, tm.median, tm.max
  elseif #tm > 0 then
    lo, mid, hi = stats.min(tm), stats.median(tm), stats.max(tm)
  end
  if not (lo and mid and hi) or mid <= 0 then return nil end
  return (hi - lo) / mid * 100
end

--- True when a spread (in %) is above the threshold.
function noise.noisy(spread) return type(spread) == "number" and spread > noise.THRESHOLD end

--- A report column for a row's spread, in %; values above the threshold read
-- "23.4 !". `name` defaults to "spread".
function noise.column(name)
  return {
    name = name or "spread", unit = "%", spread = true,
    format = function(v)
      return ("%.1f%s"):format(v, noise.noisy(v) and " !" or "")
    end,
  }
end

--- The note for a table whose spread columns flag rows, or nil when none does.
-- A row counts once, flagged when any of its spread columns is above the
-- threshold (a table may have one for each side it compares, as
-- recipes/launch.lua has for clua's repetitions and the C program's).
-- @tparam clua.report t
-- @treturn string|nil
function noise.note(t)
  local cols = {}
  for _, c in ipairs(t.columns) do
    if c.spread then cols[#cols + 1] = c end
  end
  local flagged, total = 0, 0
  for _, row in ipairs(t.rows) do
    local any, noisy = false, false
    for _, c in ipairs(cols) do
      local v = c.value and c.value(row) or row[c.name]
      if type(v) == "number" then
        any = true
        noisy = noisy or noise.noisy(v)
      end
    end
    if any then total = total + 1 end
    if noisy then flagged = flagged + 1 end
  end
  if flagged == 0 then return nil end
  return ("! %d of %d rows: their repetitions spread more than %d%% ((max - min) / median): noise, "
    .. "not a finding; more --reps, or an idle machine, may tell"):format(flagged, total, noise.THRESHOLD)
end

--- The machine's load average, as the kernel gives it (`/proc/loadavg`): the
-- number of threads running or waiting for a CPU, averaged over 1, 5 and 15
-- minutes. A benchmark prints it beside its figures, because other work on
-- the machine moves them more than most of what they compare.
-- @string[opt="/proc/loadavg"] path the file to read
-- @treturn string|nil the three averages, `"0.52 0.31 0.20"`; nil where the
-- file cannot be read or holds no such line (not Linux)
function noise.loadavg(path)
  local f = io.open(path or "/proc/loadavg")
  if not f then return nil end
  local line = f:read("l")
  f:close()
  local a, b, c = (line or ""):match("^(%d+%.%d+) (%d+%.%d+) (%d+%.%d+)")
  return a and ("%s %s %s"):format(a, b, c) or nil
end

return noise
