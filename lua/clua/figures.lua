--- clua.figures: the figures a measurement yields. One repetition may yield
-- several (stream's five kernels, overlap's phases, each device of an
-- all-at-once run, a device's events beside the host clock): `R:measure`'s
-- `figures` names them, and each is summarised (median, min, max, mean),
-- spread-marked (clua.noise), held against its physical bound (clua.bounds)
-- and cache-marked here, so that a recipe never computes statistics itself.
-- `R:add_row` writes a figure's value, spread and cache mark into a row.
--
--     local res = R:measure{ label = "float", run = function() return { q:launch(kc, n), q:launch(km, n) } end,
--       figures = { { "copy", event = 1, bytes = 8 * n }, { "mul", event = 2, bytes = 8 * n, ops = n } } }
--     R:add_row(t, res.figures.copy, { kernel = "copy" })
--
-- @module clua.figures
local stats, noise, bounds = require "clua.stats", require "clua.noise", require "clua.bounds"
local units, optcheck, timing = require "clua.units", require "clua.options", require "clua.timing"

local figures = {}

--- The recipe methods this module gives (installed by clua.recipe).
figures.methods = {}
local Recipe = figures.methods

--- What a figure of `R:measure`'s `figures` list may say: its name (`name`
-- or the first element); where each repetition's value comes from, one of
-- `event` (the index of its event in the list `run` returned: that event's
-- duration), `clock = "host"` (the host clock's span of the repetition, the
-- wait for its events included) or `value = function(result, rep, span)`
-- (what `run` returned, the repetition's number from 1 and the
-- measurement's time of it, in ns; nil where the repetition has none);
-- `bytes`, `ops` and `type` (its bandwidth, rate and roofline point, as
-- `R:measure`'s), `bound` (default the measurement's), `roofline = false`
-- (no roofline point), and `agree = true`: its values are an event's
-- durations that count only where each agrees with the measurement's own
-- time of the repetition (clua.bounds.agree): the figure then says
-- `agrees`, or `disagree` why not ("0 ns", "short", "long", "no event",
-- "above its bound"); it is no result where it does not agree, so it
-- raises no error then. A `value` may return an event or a list of events:
-- their span (first start to last end) is the value.
figures.OPTIONS = { "name", "event", "clock", "value", "bytes", "ops", "type", "bound", "roofline", "agree" }
local KNOWN = {}
for _, k in ipairs(figures.OPTIONS) do KNOWN[k] = true end

--- The share of the host clock's span an agreeing event covers at least
-- (clua.bounds.AGREE).
figures.AGREE = bounds.AGREE

local Figure = {}
Figure.__index = Figure

--- Whether `x` is a figure (what `R:figure` or `R:measure`'s `figures` made).
-- @param x anything
-- @treturn boolean
function figures.is(x) return getmetatable(x) == Figure end

--- Makes `res` (what `R:measure` returns: `median`, `min`, `max`,
-- `spread`, `bw`, ...) a figure, so that `R:add_row` takes it as a cell.
-- @tab res the measurement
-- @treturn tab res
function figures.mark(res) return setmetatable(res, Figure) end

--- A figure from values: a list of times (ns) summarised, or a summary
-- already made (`median`, `min`, `max`, as a C program prints them), with
-- its spread ((max - min) / median, %) and, given `bytes`, its bandwidth
-- in `divisor` B/s units (from the median), `per_s` (B/s) and, given
-- `ops`, its rate (operations/s).
-- @param x a list of ns, or a table with `median`, `min` and `max`
-- @tab[opt] opts `label`, `bytes`, `ops`, `divisor` (default 10^9)
-- @treturn tab the figure: `median`, `min`, `max`, `mean`, `n`, `spread`,
-- `times`, `bw`, `per_s`, `rate`, `notes` (empty), `label`; a figure of
-- `R:measure` also `name`, `bytes`, `ops`, `clock` and, for a cache
-- figure, `cache`, `cache_note`, `footprint`
-- @usage local f = figures.new({ 1200, 1000, 1100 }, { bytes = 4096 })
-- assert(f.median == 1100 and f.min == 1000 and math.abs(f.spread - 200 / 11) < 1e-9)
function figures.new(x, opts)
  opts = optcheck.check(opts, "figures.new", { "label", "bytes", "ops", "divisor" })
  if type(x) ~= "table" then error("figures.new: a list of times or a summary expected, got " .. type(x), 2) end
  local f = setmetatable({ label = opts.label, notes = {} }, Figure)
  if x.median ~= nil then
    f.median, f.min, f.max, f.mean, f.n = x.median, x.min, x.max, x.mean, x.n
  else
    local list, last = {}, 0
    for k in pairs(x) do if math.type(k) == "integer" and k > last then last = k end end
    for i = 1, last do if type(x[i]) == "number" then list[#list + 1] = x[i] end end
    if #list > 0 then
      local s = stats.summary(list)
      f.median, f.min, f.max, f.mean, f.n = s.median, s.min, s.max, s.mean, s.n
    end
    f.times = x
  end
  f.spread = f.median and noise.spread(f)
  if opts.bytes and f.median and f.median > 0 then
    f.per_s = opts.bytes / f.median * 1e9
    f.bw = units.gbps(opts.bytes, f.median, opts.divisor)
  end
  if opts.ops and f.median and f.median > 0 then f.rate = opts.ops / f.median * 1e9 end
  return f
end

--- A figure from values (`figures.new`) with the recipe's bandwidth unit.
-- @param x a list of ns, or a table with `median`, `min` and `max`
-- @tab[opt] opts `label`, `bytes`, `ops`
-- @treturn tab the figure
-- @usage local f = R:figure({ 900, 1000, 1300 })   -- three launches' ns
-- assert(f.median == 1000 and f.min == 900 and f.spread == 40)
function Recipe:figure(x, opts)
  local o = {}
  for k, v in pairs(opts or {}) do o[k] = v end
  o.divisor = self.divisor
  return figures.new(x, o)
end

--- The bound of a kind of figure on R's device (or `facts`' device), B/s
-- or operations/s, and what it is (clua.bounds.limit): for a bound made of
-- several (an aggregate over devices, or both directions of a link).
-- @param kind "memory", "cache", "pcie", "host", "compute", or a number (B/s)
-- @tab[opt] facts the device's facts (default R.facts)
-- @treturn number the bound
-- @treturn string what it is
-- @usage local both = R:limit("pcie") * 2   -- a write and a read at once
function Recipe:limit(kind, facts) return bounds.limit(facts or self.facts, kind) end

--- The bound of a transfer between two devices, B/s per direction, and what
-- it is (clua.bounds.link): their NVLinks, else the slower PCIe link, else
-- the sanity cap; `via_host` (staged through host memory) takes PCIe.
-- @tab fa the source's facts
-- @tab fb the destination's facts
-- @int[opt] nvlinks NVLinks joining them
-- @bool[opt] via_host
-- @treturn number B/s
-- @treturn string what it is
function Recipe:link_limit(fa, fb, nvlinks, via_host) return bounds.link(fa, fb, nvlinks, via_host) end -- luacheck: ignore self

--- Checks `R:measure`'s `figures` list: each a table with a name and one
-- source of values, no unknown option. Returns the list (or nil).
-- @tab list the figures
-- @treturn tab|nil the list
-- @raise `R:measure: figures[2] (mul): ...`, naming the figure and the fault
function figures.check(list)
  if list == nil then return nil end
  if type(list) ~= "table" then error("R:measure: figures must be a list of figures, got " .. type(list), 3) end
  local seen = {}
  for i, f in ipairs(list) do
    local name = type(f) == "table" and (f.name or f[1])
    local where = ("R:measure: figures[%d] (%s)"):format(i, tostring(name))
    if type(f) ~= "table" then error(("R:measure: figures[%d] must be a table, got %s"):format(i, type(f)), 3) end
    for k in pairs(f) do
      if k ~= 1 and not KNOWN[k] then
        error(("%s: unknown option '%s' (known: %s)"):format(where, tostring(k), table.concat(figures.OPTIONS, ", ")), 3)
      end
    end
    if type(name) ~= "string" or name == "" then error(("R:measure: figures[%d] has no name"):format(i), 3) end
    if seen[name] then error(("%s: a second figure of that name"):format(where), 3) end
    seen[name] = true
    local sources = (f.event ~= nil and 1 or 0) + (f.clock ~= nil and 1 or 0) + (f.value ~= nil and 1 or 0)
    if sources ~= 1 then
      error(("%s: give one of event = N, clock = \"host\" or value = function(result, rep, span)"):format(where), 3)
    end
    if f.event ~= nil and (math.type(f.event) ~= "integer" or f.event < 1) then
      error(("%s: event must be an index from 1 into run's list of events, got %s"):format(where, tostring(f.event)), 3)
    end
    if f.clock ~= nil and f.clock ~= "host" then
      error(("%s: clock must be \"host\", got %s"):format(where, tostring(f.clock)), 3)
    end
    if f.value ~= nil and type(f.value) ~= "function" then
      error(("%s: value must be a function(result, rep, span), got %s"):format(where, type(f.value)), 3)
    end
    for _, k in ipairs({ "bytes", "ops" }) do
      if f[k] ~= nil and (type(f[k]) ~= "number" or f[k] < 0) then
        error(("%s: %s must be a number >= 0, got %s"):format(where, k, tostring(f[k])), 3)
      end
    end
  end
  return list
end

--- Whether a measurement with these figures needs the host clock's span of
-- each repetition too (a figure of `clock = "host"`).
-- @tab list the figures (or nil)
-- @treturn boolean
function figures.need_host(list)
  for _, f in ipairs(list or {}) do if f.clock == "host" then return true end end
  return false
end

-- One figure's value in each repetition: a list indexed by repetition, with
-- holes where a repetition has none.
local function values(f, t, results)
  local out = {}
  for rep = 1, t.reps do
    local v
    if f.event then
      local r = results[rep]
      local e = type(r) == "table" and r[f.event]
      if e == nil then
        error(("figure %s: repetition %d returned no event %d (run returns a list of events)"):format(f.name or f[1],
          rep, f.event), 0)
      end
      v = e.duration
    elseif f.clock then
      v = (t.host_times or t.times)[rep]
    else
      v = f.value(results[rep], rep, t.times[rep])
      if type(v) == "table" or type(v) == "userdata" then v = timing.span(v) end
    end
    out[rep] = v
  end
  return out
end

-- Why `per_ns` (bytes or operations a ns) is above the bound of `kind`, or nil.
local function refused(per_ns, facts, kind)
  local ok, why = bounds.check(per_ns * 1e9, facts, kind)
  return not ok and why or nil
end

--- The figures of a measurement, after its repetitions ran (`R:measure`
-- calls it): each summarised, its spread, its bandwidth and rate, held
-- against its bound by its fastest repetition (an error when above), a
-- cache figure where the measurement is one (its working set is the
-- repetition's), and its roofline point. Sets `res.figures`, by name and in
-- order.
-- @tab R the recipe
-- @tab list the figures (`figures.check`'d)
-- @tab res the measurement (`label`, `t`, `cache`, `cache_note`, `footprint`)
-- @tab results what `run` returned in each timed repetition, by number
-- @tab spec the measurement's spec (`bound`, `type`)
function figures.summarise(R, list, res, results, spec)
  local out = {}
  for i, f in ipairs(list) do
    local name = f.name or f[1]
    local label = res.label .. " " .. name
    local times = values(f, res.t, results)
    local fig = figures.new(times, { label = label, bytes = f.bytes, ops = f.ops, divisor = R.divisor })
    fig.name, fig.bytes, fig.ops = name, f.bytes, f.ops
    fig.clock = f.event and "event" or f.clock or (res.t.mode == "host" and "host" or "event")
    local check = true
    if f.agree then
      local ok, why = bounds.agree(times, res.t.times)
      fig.agrees, fig.disagree, check = ok, not ok and why or nil, ok
    end
    local kind = f.bound
    if kind == nil then kind = spec.bound == nil and "memory" or spec.bound end
    if res.cache and kind == "memory" then
      kind = "cache"
      fig.cache, fig.cache_note, fig.footprint = true, res.cache_note, res.footprint
    end
    -- by its fastest repetition: bytes against the bound, operations against compute's
    local fast = check and fig.min and fig.min > 0 and fig.min
    local over = fast and f.bytes and kind and refused(f.bytes / fast, R.facts, kind)
    if over and f.agree then
      fig.agrees, fig.disagree = false, "above its bound"
    elseif over then
      error(("%s: %s GB/s by its fastest repetition is %s: not a result (a wrong byte count, or a clock that did "
        .. "not see the work)"):format(label, units.format_number(f.bytes / fast), over), 0)
    end
    over = fast and f.ops and refused(f.ops / fast, R.facts, "compute")
    if over then
      error(("%s: %s Gop/s by its fastest repetition is %s: not a result"):format(label,
        units.format_number(f.ops / fast), over), 0)
    end
    if f.ops and f.bytes and f.roofline ~= false and fig.median then
      R:roofline_point(name, { ops = f.ops, bytes = f.bytes, ns = fig.median, type = f.type or spec.type,
        cache = res.cache })
    end
    out[i], out[name] = fig, fig
  end
  res.figures = out
end

return figures
