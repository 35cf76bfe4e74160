--- clua.harness: the measurement cycle every recipe runs, in one place (as
-- BabelStream's main.cpp owns init, run, check and report while each
-- implementation only supplies kernels). A recipe declares what a variant
-- reads, which part of each output it owns and what that part must hold; the
-- harness then runs:
--
--   poison every output (the part the kernel does not own as well) ->
--   warm-up -> timed repetitions (events; the host clock where an event
--   reports 0 ns) -> assignment mode's guard zones intact -> read back ->
--   CLUA_CORRUPT's one wrong element -> verify the owned part -> the
--   unowned part still poisoned, every input unchanged (both found by a
--   kernel on the device, kernels/harness.cl, at the device's bandwidth; a
--   read back only to name what differs) -> the figure held
--   against its physical bound (clua.bounds; timed again by the host clock,
--   or the run ends, when it is above) -> spread, noise and cache marks.
--
--     local din = R:input("in", host)                 -- checked unchanged
--     local dout = R:output("out", "float", n)        -- poisoned, read back
--     local res = R:measure{ label = "copy", run = function() return q:launch(k, n) end,
--       reads = { din }, outputs = { { dout, expect = host } }, bytes = 2 * 4 * n }
--     R:add_row(t, res, { variant = "copy" })
--
-- R:measure runs the cycle from its parts: what is run (clua.contract),
-- how it is timed (clua.timed), what is checked (clua.checks). The methods
-- below are the recipe's (`R:measure`, ...).
-- @module clua.harness
local units = require("clua.units")
local verify = require("clua.verify")
local noise = require("clua.noise")
local assign = require("clua.assign")
local figures = require("clua.figures")
local optcheck = require("clua.options")
local contract = require("clua.contract")
local checks = require("clua.checks")
local timed = require("clua.timed")

local harness = {}

--- The byte every output is filled with before a measurement (0xA5: a float
-- of -2.9e-16, no small integer): what a kernel does not write keeps it.
-- The guard zones' byte (clua.guard.PATTERN): one poison inside and outside.
harness.POISON = contract.POISON

--- The poison as a float (four POISON bytes): what an unwritten float holds.
harness.POISON_FLOAT = string.unpack("<f", string.char(harness.POISON):rep(4))

--- The recipe methods this module gives (installed by clua.recipe).
harness.methods = {}
local Recipe = harness.methods

local known = contract.known

--- An input buffer: `data` (a cl.array) copied to the device. A measurement
-- that lists it in `reads` checks afterwards that it still holds `data`. In
-- assignment mode it is guarded (clua.guard).
-- @string name its name in messages ("in", "a")
-- @tparam cl.array data the values (kept: do not change them while it is used)
-- @string[opt="read_only"] flags as for ctx:buffer
-- @treturn cl.buffer
function Recipe:input(name, data, flags)
  flags = flags or "read_only"
  local g = assign.guard(self)
  local buf = g and g:buffer(name, data, { input = true, flags = flags }) or self.ctx:buffer(data, flags)
  local info = { name = name, type = data.type, n = #data, data = data, ctx = self.ctx }
  -- a pristine copy on the device, which a kernel compares with the input
  -- after each measurement; none for an input too large to hold twice
  if data.size % 4 == 0 and data.size < 2^34 and data.size <= (self.device.info.global_mem_size or 0) // 8 then
    info.pristine = self.ctx:buffer(data, "read_only")
  end
  known(self)[buf] = info
  if g and not g.unchanged then g.unchanged = function(sub) return checks.unchanged_on_device(self, g.q, sub) end end
  return buf
end

--- An output buffer of `n` elements of `type`. A measurement that lists it in
-- `outputs` poisons it first and then checks it. In assignment mode it is
-- guarded (clua.guard).
-- @string name its name in messages ("out")
-- @string type the element type ("float", "uint", ...)
-- @int n elements
-- @string[opt] flags as for ctx:buffer
-- @treturn cl.buffer
function Recipe:output(name, type, n, flags)
  local bytes = n * contract.element_size(type)
  local g = assign.guard(self)
  local buf = g and g:buffer(name, bytes, { flags = flags }) or self.ctx:buffer(bytes, flags)
  -- write_only: no kernel may read it, the harness's device checks neither
  known(self)[buf] = { name = name, type = type, n = n, ctx = self.ctx,
    write_only = flags and (" " .. flags .. " "):find("%swrite_only%s") ~= nil }
  return buf
end

--- Verifies a result against its reference (clua.verify.arrays), raising on
-- a difference; the first verification of a run under CLUA_CORRUPT first
-- changes one element of `got` (the middle one), so that it must fail.
-- @string name what is checked, for the message
-- @param got a cl.array or a list
-- @param expected a cl.array, a list or a function of the 0-based index
-- @tab[opt] opts `tol`, `exact`
function Recipe:verify(name, got, expected, opts)
  self:inject(got)
  return verify.arrays(name, got, expected, opts)
end

--- verify.scalar with CLUA_CORRUPT's injection, as `R:verify`.
-- @string name what is checked
-- @number got the result
-- @number expected the reference
-- @number[opt] tol relative tolerance (default exact)
-- @treturn number the relative error
function Recipe:verify_scalar(name, got, expected, tol)
  if self.corrupt and not rawget(self, "corrupted") then
    self.corrupted = true
    got = got + math.max(1, math.abs(got))
  end
  return verify.scalar(name, got, expected, tol)
end

--- Under CLUA_CORRUPT, once a run: changes one element of `a` (a cl.array or
-- a Lua list; element `i`, 0-based, default the middle one). The harness calls
-- it before every verification; a recipe never needs to.
-- @treturn boolean true when it changed something
function Recipe:inject(a, i)
  if not self.corrupt or rawget(self, "corrupted") then return false end
  local n = #a
  if n == 0 then return false end
  i = i or n // 2
  local k = type(a) == "table" and i + 1 or i
  local v = a[k]
  if math.type(v) == "integer" then a[k] = v == 0 and 1 or 0
  else a[k] = v + math.max(1, math.abs(v)) end
  self.corrupted = true
  return true
end

--- Checks what outputs declare a kernel writes against their buffers, before
-- anything runs (`R:measure` does, and `R:try_launch` with `outputs`): a
-- kernel that writes past a buffer's end may end the process inside the
-- driver instead of failing a check. Each output made by `R:output` must own
-- a range {lo, hi} with 0 <= lo <= hi <= its elements, and an `expect` list
-- or cl.array must hold hi - lo elements.
-- @tab outputs as `R:measure`'s `outputs`
-- @string[opt="R:measure"] who the call, for messages
-- @string[opt="?"] what the measurement or kernel, for messages
-- @raise naming the buffer, its size and the range:
-- `R:measure copy: outputs[1]: the kernel owns out[0 .. 2048), past the end of the buffer out of 1024 float
-- elements (4 KiB): ...`
function Recipe:check_outputs(outputs, who, what)
  contract.check_outputs(self, outputs, who or "R:measure", what or "?")
end

-- R:measure's options: what is run, how it is timed, what is checked.
local MEASURE = {}
for _, m in ipairs({ contract, timed, checks }) do table.move(m.OPTIONS, 1, #m.OPTIONS, #MEASURE + 1, MEASURE) end

--- Runs one variant through the whole cycle and returns its figures.
-- @tab spec the variant's options, by concern:
--
-- * what is run (clua.contract): `label` the row's name (messages,
--   progress, the roofline); `run(i)` one repetition: returns its event, a
--   list of events, or nothing (then it is timed by the host clock around it
--   and a finish); `queue` where its commands go (default R.queue);
--   `outputs` a list of `{buffer, owns = {lo, hi}, poison = false, name =,
--   queue =, ...}`: the buffer (made by `R:output`, or `name =` given), the
--   elements it owns (default all), `poison = false` for a buffer the kernel
--   reads too (a recurrence), which is then not poisoned and has no unowned
--   part, `queue` the queue of the buffer's device where it is not the
--   measurement's (a measurement over several devices); `reads` the inputs
--   (made by `R:input`) that must be unchanged; `figures` the figures one
--   repetition yields besides the measurement's own, a list of `{name,
--   event = N | clock = "host" | value = f, bytes =, ops =, bound =}`
--   (clua.figures): each summarised, spread-marked, bounded and
--   cache-marked, in `res.figures` by name and in order;
-- * what is checked (clua.checks): an output's `expect` (a cl.array, list
--   or function of the index, compared by `R:verify` within `tol` or
--   `exact`), or `check(got)` that raises on a wrong result and may return
--   an error figure (kept as `res.err`), and `device = function(first, buf,
--   lo, hi)` an exact check on the device of the owned part, which sets the
--   kernel's arguments (`first`, a uint buffer, takes the smallest wrong
--   index, by atomic_min) and returns the kernel and its work-items: when it
--   finds nothing the owned part is not read back (`err` 0); when it finds
--   a difference the host check (`expect` or `check`) names it. Under
--   CLUA_CORRUPT the wrong element is put in the buffer, so that the device
--   check must find it; the buffer must not be write_only (a kernel reads
--   it). `R:device_strided` makes one. `bytes`, `ops` one
--   repetition's traffic and operations (`type` "float" by default: the
--   roofline point; `roofline = false` for none); `bound` what `bytes` is
--   held against: "memory" (default), "pcie", "host", a B/s figure, or
--   false; `footprint` the bytes the repetition touches (default the
--   buffers' sizes), which marks a cache figure when the device's caches
--   hold them;
-- * how it is timed (clua.timed): `R:time`'s `reps`, `warmup`,
--   `target_ms`, `min_reps`, `max_reps`, `finish`, `host`, `sync`; `budget_ms`,
--   the repetitions that fill about that time by a first timed run, between
--   5 and R.reps (clpeak's way; --quick and --reps keep their counts).
-- @treturn tab `label`, `t` (the clua.timing result), `median`, `min`,
-- `max` (ns), `spread` (%), `clock` ("event" or "host"), `bw` (in R.bw_unit),
-- `per_s` (B/s), `rate` (operations/s), `err` (what `check` returned),
-- `cache` (true for a cache figure), `notes` (what the row must say),
-- `figures` (with `spec.figures`): a figure (clua.figures), `R:add_row`'s
-- to take as a row or a cell
-- @raise a verification failure, an ownership or input violation, or a
-- figure above its bound by the host clock too
function Recipe:measure(spec)
  optcheck.check(spec, "R:measure", MEASURE)
  local c = contract.check(self, spec, checks.OUTPUT)
  local figs = figures.check(spec.figures)
  -- --grading (clua grade's runs): "once", "untimed" or "unchecked" (clua.assign)
  local way = assign.grading(self, c.label)
  local checked = way ~= "once" and way ~= "unchecked"
  contract.poison(c, checked)
  local m = timed.run(self, spec, c.label, figs, way == "once" or way == "untimed")
  local res = { label = c.label, notes = m.notes, bytes = spec.bytes, ops = spec.ops }
  if checked then
    -- Assignment mode's guard zones first: a write past an allocation is the
    -- cause of whatever else the results show.
    self:check_student(c.label)
    checks.results(self, c, res)
  end
  if way ~= "once" then checks.bounds(self, spec, c, res, m) end

  local t = m.t
  res.t, res.clock = t, t.mode
  res.median, res.min, res.max = t.median, t.min, t.max
  res.spread = noise.spread(t)
  if spec.bytes then
    res.per_s = spec.bytes / t.median * 1e9
    res.bw = units.gbps(spec.bytes, t.median, self.divisor)
  end
  if spec.ops then res.rate = spec.ops / t.median * 1e9 end
  if figs then figures.summarise(self, figs, res, m.results, spec) end
  return figures.mark(res)
end

--- A `device` check (see `R:measure`) for an output of 4-byte elements
-- whose owned part [lo, hi) must hold, bit for bit, `src`'s elements at the
-- same places where (i - lo) is a multiple of `s`, and the poison between
-- them (kernels/harness.cl's first_strided).
-- @tparam cl.buffer src the input (made by `R:input`) the values come from
-- @int[opt=1] s the stride, in elements
-- @treturn function the `device` option
function Recipe:device_strided(src, s) return checks.strided(self, src, s) end

--- Runs `f()` with R's device, context, queue and facts those of `rig`
-- (`{device=, ctx=, q=, facts=}`: another device, or a device in another
-- context), so that `R:input`, `R:output` and `R:measure` (its bounds
-- included) work there; R's own are back afterwards, also when f raises.
-- Returns what f returns.
-- @tab rig the device, context, queue and facts to measure on
-- @func f what to run there
-- @usage local res = R:on({ device = d2, ctx = ctx2, q = q2, facts = facts2 }, function()
--   return R:measure{ label = "copy on device 2", ... } end)
function Recipe:on(rig, f)
  local keys = { "device", "ctx", "queue", "facts" }
  local keep = { rawget(self, "device"), rawget(self, "ctx"), rawget(self, "queue"), rawget(self, "facts") }
  local new = { rig.device, rig.ctx, rig.q, rig.facts }
  for i, k in ipairs(keys) do rawset(self, k, new[i]) end
  local res = table.pack(pcall(f))
  for i, k in ipairs(keys) do rawset(self, k, keep[i]) end
  if not res[1] then error(res[2], 0) end
  return table.unpack(res, 2, res.n)
end

return harness
