--- clua.timed: how a measurement is timed (`R:measure`'s `reps`, `warmup`,
-- `target_ms`, `min_reps`, `max_reps`, `budget_ms`, `finish`, `host`, `sync`, and its
-- `queue`): its repetitions under `R:time`, what each returned kept for its
-- figures, and the host clock around the commands and the wait for them
-- where the events cannot be believed (an event of 0 ns; a figure above its
-- bound, clua.checks). What is run is clua.contract's.
-- @module clua.timed
local figures = require("clua.figures")

local timed = {}

--- `R:measure`'s options of how it is timed (`queue` is clua.contract's, and
-- read here too).
timed.OPTIONS = { "reps", "warmup", "target_ms", "min_reps", "max_reps", "finish", "host", "sync", "budget_ms" }

--- The fewest repetitions a `budget_ms` leaves (or R.reps, where fewer).
timed.BUDGET_FLOOR = 5

-- `budget_ms`, as clpeak sizes its runs: the repetitions that fill about
-- budget_ms by a first timed run, at least BUDGET_FLOOR and at most R.reps
-- (never more than without it); --quick, --check-size and --reps keep their
-- own counts.
local function budget(R, spec, topts)
  if not spec.budget_ms then return end
  if spec.target_ms or spec.reps then
    error("R:measure: budget_ms with target_ms or reps: give one of them", 0)
  end
  local ms = spec.budget_ms
  if type(ms) ~= "number" or ms ~= ms or ms <= 0 then -- NaN too
    error(("R:measure: budget_ms must be a positive number of milliseconds, not %s"):format(tostring(ms)), 0)
  end
  if R.quick or R.reps_given then return end
  topts.target_ms, topts.min_reps, topts.max_reps = ms, math.min(timed.BUDGET_FLOOR, R.reps), R.reps
end

local function wait_all(r)
  if type(r) == "userdata" then r:wait()
  elseif type(r) == "table" then for _, e in ipairs(r) do if type(e) == "userdata" then e:wait() end end end
end

--- Times `spec.run` (one repetition: its event, a list of events, or
-- nothing) with `R:time`; by the host clock instead where an event reports
-- 0 ns (the driver does not time the command). A launch the driver refuses,
-- or a wait that times out, raises naming `label`.
-- Returns the timing: `t` (clua.timing's result), `results` (what each
-- timed repetition returned, by number, with `figs`), `notes` (why the host
-- clock timed it, for the row) and `by_host(why)`, which times it again by
-- the host clock, says why in `notes`, and returns the new `t`.
-- @tab R the recipe
-- @tab spec `R:measure`'s options (`run`, `queue` and those of `timed.OPTIONS` are read)
-- @string label the measurement, for progress and messages
-- @tab[opt] figs its figures (clua.figures.check'd): their events are kept
-- @bool[opt] once one run, no warm-up, whatever the options (`--grading`:
-- clua.assign.grading's "once" and "untimed")
-- @treturn tab the timing
-- @usage local buf = R.ctx:buffer(4096)
-- local m = timed.run(R, { run = function() return R.queue:fill(buf, 0, { type = "uchar" }) end }, "fill")
-- assert(m.t.reps == R.reps and m.t.median > 0)
-- local again = m.by_host("a second look")   -- the same repetitions, by the host clock
-- assert(again.mode == "host" and m.notes[1] == "fill: a second look; timed by the host clock around the "
--   .. "commands and the wait for them")
function timed.run(R, spec, label, figs, once)
  local topts = { label = label }
  for _, k in ipairs(timed.OPTIONS) do topts[k] = spec[k] end
  topts.budget_ms = nil
  budget(R, spec, topts)
  if spec.queue then topts.queue = spec.queue end
  if once then topts.once = true end
  if figures.need_host(figs) then topts.host = true end
  -- what each timed repetition returned (the figures' events), kept while
  -- there are figures to take from them
  local m = { results = {}, notes = {} }
  local run = not figs and spec.run or function(i)
    local r = spec.run(i)
    if i >= 1 then m.results[i] = r end
    return r
  end
  local ok, t = pcall(R.time, R, run, topts)
  if not ok then
    local msg = tostring(t)
    error(msg:find(label, 1, true) and msg or (label .. ": " .. msg), 0)
  end
  m.t = t
  function m.by_host(why)
    m.notes[#m.notes + 1] = ("%s: %s; timed by the host clock around the commands and the wait for them")
      :format(label, why)
    local o = {}
    for k, v in pairs(topts) do o[k] = v end
    o.label = label .. " (host clock)"
    m.results = {}
    m.t = R:time(function(i) wait_all(run(i)) end, o)
    return m.t
  end
  if t.mode == "event" and t.min <= 0 then
    m.by_host("an event reports 0 ns: the driver does not time this command")
  end
  return m
end

return timed
