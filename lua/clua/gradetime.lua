--- clua.gradetime: how `clua grade` times a class, fairly and once. Each
-- submission's own run at the rubric's first size decides its verdict
-- (`--grading check`: the recipe's own variants run once, neither timed nor
-- checked; the student's kernel checked after the whole cycle), further
-- sizes only verify it (`--grading verify`); those runs may run beside other
-- submissions' (clua.pool), and no time of theirs is a sample. Then, once
-- every submission has been checked and nothing else runs, the timing
-- rounds: in each, the recipe's own kernels (the references) are timed in a
-- whole run of the recipe, then every correct submission in its own process
-- (`--grading time`), in an order that turns each round. A submission's time
-- is the median of its timing runs, its speed-up the references' median time
-- over it: every submission is held against the same reference figure,
-- measured in the same grading run, between the submissions' runs, so that
-- two identical kernels rank within noise of each other (clua.gradebook's
-- rank: a difference within the spread is a tie). docs/assignments.md.
-- @module clua.gradetime
local stats = require("clua.stats")

local gradetime = {}

--- Timing rounds by default: each correct submission is timed in this many
-- runs, and the references as many.
gradetime.ROUNDS = 3

--- The mode of a submission's run at a rubric size (its option grading).
-- @int size_index 1 for the first size (checked after the whole cycle:
-- warm-up and repetitions), more for the others (checked after one run)
-- @treturn string "check" or "verify"
function gradetime.mode(size_index)
  return size_index == 1 and "check" or "verify"
end

--- The grader's option rounds checked: a whole number >= 1.
-- @param v the value
-- @treturn[1] int the rounds
-- @treturn[2] nil
-- @treturn[2] string why not
function gradetime.check_rounds(v)
  return require("clua.argcheck").at_least_one("--rounds", v)
end

--- The order of a round: `list` turned by `k - 1` places (round 1 as listed),
-- so that no submission always runs first after the references.
-- @tab list the entries
-- @int k the round
-- @treturn tab a new list
function gradetime.order(list, k)
  local out, n = {}, #list
  for i = 1, n do out[i] = list[(i - 1 + k - 1) % n + 1] end
  return out
end

local function timed(o) return o and o.verdict == "correct" and type(o.time) == "number" and o.time > 0 end

-- What an outcome says of its time: the fields `gradetime.apply` sets.
local TIMING = { "time", "min", "max", "spread", "bandwidth", "runs", "reference", "reference_time", "speedup", "kernels" }

-- The references of the rounds: the median of each round's best kernel for
-- the same job, the name most rounds found best, and each kernel's median.
local function references(runs)
  local best, names, by = {}, {}, {}
  local order = {}
  for _, o in ipairs(runs) do
    best[#best + 1] = o.reference_time
    names[o.reference] = (names[o.reference] or 0) + 1
    for _, k in ipairs(o.kernels or {}) do
      if not by[k.name] then by[k.name] = { name = k.name, times = {}, reference = k.reference }; order[#order + 1] = k.name end
      table.insert(by[k.name].times, k.time)
    end
  end
  local name, count = nil, 0
  for _, o in ipairs(runs) do
    if names[o.reference] > count then name, count = o.reference, names[o.reference] end
  end
  local kernels = {}
  for _, n in ipairs(order) do
    local k = by[n]
    kernels[#kernels + 1] = { name = n, time = stats.median(k.times), reference = k.reference, runs = #k.times }
  end
  return { time = stats.median(best), name = name, kernels = kernels, runs = #runs }
end

--- An outcome's time and speed-up from its runs and the references: the
-- median of the runs' medians; the smallest minimum and the largest maximum
-- of their repetitions; the spread, the noise of that time (in %): the larger
-- of a run's spread (the median of the runs' (max - min) / median) and the
-- spread of the runs' medians; and the speed-up against the references (none
-- without them: a timing run's own variants ran once, and their times are no
-- figure). Whatever the outcome held of a time before (its check run's) is
-- replaced.
-- @tab o the outcome (clua.gradebook.outcome), changed
-- @tab samples the outcomes of its timing runs (at least one)
-- @tab[opt] ref the references (`time`, `name`, `kernels`, `runs`), nil when none were timed
function gradetime.apply(o, samples, ref)
  local meds, spreads, lo, hi = {}, {}, nil, nil
  for _, s in ipairs(samples) do
    meds[#meds + 1] = s.time
    spreads[#spreads + 1] = s.spread or 0
    local mn, mx = s.min or s.time, s.max or s.time
    lo = lo and math.min(lo, mn) or mn
    hi = hi and math.max(hi, mx) or mx
  end
  o.time = stats.median(meds)
  o.min, o.max = lo, hi
  o.spread = math.max(stats.median(spreads), (stats.max(meds) - stats.min(meds)) / o.time * 100)
  local bws = {}
  for _, s in ipairs(samples) do if s.bandwidth then bws[#bws + 1] = s.bandwidth end end
  o.bandwidth = #bws > 0 and stats.median(bws) or nil
  o.runs = #samples
  o.reference, o.reference_time, o.speedup, o.kernels = nil, nil, nil, nil
  o.untimed = nil
  if ref then
    o.reference, o.reference_time, o.kernels = ref.name, ref.time, ref.kernels
    o.speedup = ref.time / o.time
  end
  o.reason = ("%.1f µs (median of %d run%s)%s"):format(o.time / 1e3, #samples, #samples == 1 and "" or "s",
    o.speedup and (", %.2fx the recipe's best"):format(o.speedup) or "")
end

--- Gives a correct outcome no time: whatever it held of one (its check
-- run's) is dropped, `untimed` says why and its reason too (it is not
-- ranked, clua.gradebook.rank, and scores no speed points, clua.rubric.score).
-- @tab o the outcome, changed
-- @string why why it has no time
function gradetime.untimed(o, why)
  for _, k in ipairs(TIMING) do o[k] = nil end
  o.untimed, o.reason = why, "correct, not timed: " .. why
end

--- The timing rounds of one assignment, after every submission's runs that
-- decide its verdict (nothing else runs beside them): for k = 1 .. rounds,
-- a whole run of the recipe (`run(first, nil, tag)`, the first correct
-- submission as its student: its own kernels timed and checked, the
-- references), then every correct submission's `run(e, "time", tag)` in
-- the round's order. Then each correct entry's outcome gets its time from
-- its timing runs (never from its check run) and its speed-up from the
-- references (`gradetime.apply`). A run that fails (a crash, a timeout)
-- gives no sample; a submission with none gets no time
-- (`gradetime.untimed`); when `over()` says the grading's budget is spent,
-- no further run starts.
-- @tab entries the entries ({student=, path=, outcome=}); the correct ones are changed
-- @func run `run(entry, mode, tag)` runs the recipe on the entry's kernel
-- (mode "time", or nil for the whole recipe) and returns its outcome
-- @tab[opt] opts `rounds` (default `gradetime.ROUNDS`), `over` (a function:
-- true when no run may start), `progress` (a function of a line)
-- @treturn tab|nil what was done: `rounds` (planned), `done` (rounds
-- started), `ref` (the references, nil when none was timed), `cut` (true when
-- the budget stopped it); nil when no submission is correct
function gradetime.rounds(entries, run, opts)
  opts = opts or {}
  local rounds = opts.rounds or gradetime.ROUNDS
  local over = opts.over or function() return false end
  local say = opts.progress or function() end
  local correct, samples, tried = {}, {}, {}
  for _, e in ipairs(entries) do
    if e.outcome and e.outcome.verdict == "correct" then
      correct[#correct + 1] = e
      samples[e] = {}
    end
  end
  if #correct == 0 then return nil end
  local refs, done, cut = {}, 0, false
  for k = 1, rounds do
    if over() then cut = true; break end
    done = k
    say(("timing round %d/%d: the recipe's own kernels (the references)"):format(k, rounds))
    local o = run(correct[1], nil, ("-references%d"):format(k))
    if o and o.verdict == "correct" and o.reference_time then refs[#refs + 1] = o end
    for i, e in ipairs(gradetime.order(correct, k)) do
      if over() then cut = true; break end
      say(("timing round %d/%d: %s (%d/%d)"):format(k, rounds, e.student, i, #correct))
      tried[e] = true
      local s = run(e, "time", ("-round%d"):format(k))
      if timed(s) then table.insert(samples[e], s) end
    end
    if cut then break end
  end
  local ref = #refs > 0 and references(refs) or nil
  for _, e in ipairs(correct) do
    if #samples[e] > 0 then gradetime.apply(e.outcome, samples[e], ref)
    elseif not tried[e] then
      gradetime.untimed(e.outcome, "the grading budget (--budget) ended the timing before its first run")
    else
      gradetime.untimed(e.outcome, "none of its timing runs ended with a time (its -roundK logs say why)")
    end
  end
  return { rounds = rounds, done = done, ref = ref, cut = cut }
end

--- The gradebook's note on the timing: how many runs made each time and
-- each reference, or why there is no speed-up.
-- @tab[opt] t what `gradetime.rounds` returned (nil: no correct submission)
-- @treturn string|nil the note
function gradetime.note(t)
  if not t then return nil end
  local s = ("time: the median of each correct submission's timing runs (up to %d, each in its own process, "
    .. "after every check, one a round in a turned order; its check run's time is none of them), interleaved in the "
    .. "same grading run with %d whole run%s of the recipe (its own kernels: the references); spread: the larger "
    .. "of a run's spread (the median of the runs') and the spread of the runs' medians")
    :format(t.rounds, t.done, t.done == 1 and "" or "s")
  if t.ref then
    s = s .. ("; speed-up: the references' best for the same job (%s, the median of %d run%s) / the submission's "
      .. "time"):format(t.ref.name, t.ref.runs, t.ref.runs == 1 and "" or "s")
  else
    s = s .. "; no speed-up: no run of the recipe's own kernels ended with their times"
  end
  if t.cut then s = s .. ("; the grading budget (--budget) ended the timing after round %d of %d"):format(t.done, t.rounds) end
  return s
end

return gradetime
