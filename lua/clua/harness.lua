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
-- The methods below are the recipe's (`R:measure`, ...).
-- @module clua.harness
local cl = require "cl"
local units = require "clua.units"
local verify = require "clua.verify"
local noise = require "clua.noise"
local bounds = require "clua.bounds"
local assign = require "clua.assign"
local figures = require "clua.figures"
local optcheck = require "clua.options"

local harness = {}

--- The byte every output is filled with before a measurement (0xA5: a float
-- of -2.9e-16, no small integer): what a kernel does not write keeps it.
-- The guard zones' byte (clua.guard.PATTERN): one poison inside and outside.
harness.POISON = require("clua.guard").PATTERN

--- The poison as a float (four POISON bytes): what an unwritten float holds.
harness.POISON_FLOAT = string.unpack("<f", string.char(harness.POISON):rep(4))

--- The recipe methods this module gives (installed by clua.recipe).
harness.methods = {}
local Recipe = harness.methods

local sizes = {}
local function esize(ty)
  local s = sizes[ty]
  if not s then s = cl.array(ty, 1).size; sizes[ty] = s end
  return s
end

-- What the harness knows of the buffers it made: name, type, elements, and
-- an input's host copy. Weak keys: a buffer let go is forgotten.
local function known(self)
  local k = rawget(self, "known_buffers")
  if not k then k = setmetatable({}, { __mode = "k" }); self.known_buffers = k end
  return k
end

local unchanged_on_device -- (self, q, buf): the input found as written by a kernel on the device (below)

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
  if g and not g.unchanged then g.unchanged = function(sub) return unchanged_on_device(self, g.q, sub) end end
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
  local bytes = n * esize(type)
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

local function poison(q, buf)
  q:fill(buf, harness.POISON, { type = "uchar" })
end

-- The harness's kernels (kernels/harness.cl) and a result word, per context.
local checkers = setmetatable({}, { __mode = "k" })
local function checker(ctx)
  local c = checkers[ctx]
  if not c then
    local prog = ctx:program_file("harness.cl"):build()
    c = { first_not = prog:kernel("first_not"), first_diff = prog:kernel("first_diff"),
      first_strided = prog:kernel("first_strided"), first = ctx:buffer(4), got = cl.array("uint", 1) }
    checkers[ctx] = c
  end
  return c
end

local POISON_WORD = harness.POISON * 0x01010101
local NONE = 0xFFFFFFFF

-- The index the last device check reported.
local function c_first_index(ctx) return checker(ctx).got[0] end

-- Whether a kernel on the device finds a difference in a range: `kernel`
-- with its arguments set, over `words` words. True when there is one.
local function device_finds(q, c, kernel, words)
  q:fill(c.first, NONE, { type = "uint" })
  q:launch(kernel, math.min(words, 65536))
  q:read(c.first, c.got)
  return c.got[0] ~= NONE
end

-- The guard's check of an input (clua.guard's `unchanged`): true when a
-- kernel on the device finds it as its pristine copy; false when it differs
-- or has no such copy (the guard then reads it back and names what changed).
unchanged_on_device = function(self, q, buf)
  local i = known(self)[buf]
  if not (i and i.pristine) then return false end
  local c = checker(i.ctx)
  c.first_diff:args(buf, i.pristine, cl.uint(i.data.size // 4), c.first)
  return not device_finds(q, c, c.first_diff, i.data.size // 4)
end

-- The unowned elements [from, to) of an output still poisoned, else raises
-- naming the first element written and the part the kernel owns.
local function check_unowned(q, buf, info, from, to, lo, hi, label)
  if to <= from then return end
  local es = esize(info.type)
  local off, bytes = from * es, (to - from) * es
  if info.ctx and off % 4 == 0 and bytes % 4 == 0 and off + bytes < 2^34 then
    local c = checker(info.ctx)
    c.first_not:args(buf, cl.uint(off // 4), cl.uint(bytes // 4), cl.uint(POISON_WORD), c.first)
    if not device_finds(q, c, c.first_not, bytes // 4) then return end
  end
  local got = cl.array("uchar", (to - from) * es)
  q:read(buf, got, { offset = from * es })
  local want = cl.array("uchar", #got):fill(harness.POISON)
  local ok, _, _, first, nbad = got:compare(want, 0)
  -- released at once: the collector does not see their size, and a sweep
  -- of large buffers would hold gigabytes of them
  got:release(); want:release()
  if not ok then
    error(("%s: %s[%d] written outside the part the kernel owns (%s[%d .. %d) of %d elements; "
      .. "%d bytes changed outside it)"):format(label, info.name, from + first // es, info.name, lo, hi,
      info.n, nbad), 0)
  end
end

local function check_input(q, buf, info, label)
  if info.pristine then
    local c = checker(info.ctx)
    c.first_diff:args(buf, info.pristine, cl.uint(info.data.size // 4), c.first)
    if not device_finds(q, c, c.first_diff, info.data.size // 4) then return end
  end
  local now = cl.array(info.type, info.n)
  q:read(buf, now)
  local ok, _, _, at, nbad = now:compare(info.data, 0)
  local was = ok and "" or tostring(now[at])
  now:release()
  if not ok then
    error(("%s: %s: an input changed: %d of %d elements, the first %s[%d] (%s, was %s)"):format(label,
      info.name, nbad, info.n, info.name, at, was, tostring(info.data[at])), 0)
  end
end

local MEASURE = { "label", "run", "outputs", "reads", "bytes", "ops", "type", "bound", "footprint",
  "reps", "warmup", "target_ms", "min_reps", "max_reps", "queue", "finish", "host", "sync", "roofline",
  "figures" }
local OUTPUT = { "owns", "expect", "check", "tol", "exact", "poison", "name", "device", "queue" }
for _, k in ipairs(OUTPUT) do OUTPUT[k] = true end

-- The elements a declared expectation holds: a cl.array's or a list's
-- length, nil for a function of the index.
local function expected_length(e)
  if type(e) == "table" then return #e end
  if type(e) == "userdata" then
    local ok, n = pcall(function() return #e end)
    if ok and math.type(n) == "integer" then return n end
  end
end

-- An output's declared writes against its buffer (made by R:output:
-- `info`): `owns` two integers 0 <= lo <= hi <= the buffer's elements;
-- `expect` as many elements as the part owned. Raises, from `who` about
-- `what`, naming the buffer, its size and the range.
local function check_declared(who, what, i, o, info)
  local name = o.name or info.name or "out"
  local size = ("%d %s elements (%s)"):format(info.n, info.type, units.format_size(info.n * esize(info.type)))
  local lo, hi = 0, info.n
  if o.owns ~= nil then
    local r = o.owns
    lo, hi = type(r) == "table" and r[1], type(r) == "table" and r[2]
    if math.type(lo) ~= "integer" or math.type(hi) ~= "integer" or lo < 0 or hi < lo then
      error(("%s %s: outputs[%d] (%s): owns must be {lo, hi}, two integers with 0 <= lo <= hi, got %s"):format(who,
        what, i, name, type(r) == "table" and ("{%s, %s}"):format(tostring(lo), tostring(hi)) or tostring(r)), 0)
    end
    if hi > info.n then
      error(("%s %s: outputs[%d]: the kernel owns %s[%d .. %d), past the end of the buffer %s of %s: make the "
        .. "buffer hold %d elements (R:output) or the range what it holds; the kernel was not launched"):format(who,
        what, i, name, lo, hi, name, size, hi), 0)
    end
  end
  local ne = expected_length(o.expect)
  if ne and ne ~= hi - lo then
    error(("%s %s: outputs[%d]: the expected result has %d elements, the part the kernel owns %s[%d .. %d) %d "
      .. "(the buffer %s holds %s)%s; the kernel was not launched"):format(who, what, i, ne, name, lo, hi, hi - lo,
      name, size, ne > info.n - lo and ": a kernel writing them all would write past its end" or ""), 0)
  end
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
  local reg = known(self)
  for i, o in ipairs(outputs or {}) do
    local info = type(o) == "table" and reg[o[1]]
    if info and info.type then check_declared(who or "R:measure", what or "?", i, o, info) end
  end
end

local function wait_all(r)
  if type(r) == "userdata" then r:wait()
  elseif type(r) == "table" then for _, e in ipairs(r) do if type(e) == "userdata" then e:wait() end end end
end

--- Runs one variant through the whole cycle and returns its figures.
-- @tab spec the variant's contract and timing:
--
-- * `label` the row's name (messages, progress, the roofline);
-- * `run(i)` one repetition: returns its event, a list of events, or nothing
--   (then it is timed by the host clock around it and a finish);
-- * `outputs` a list of `{buffer, owns = {lo, hi}, expect = ..., tol =,
--   exact =, check = function(got) ... end, poison = false, queue =}`: the buffer
--   (made by `R:output`, or `name =` given), the elements it owns (default
--   all), what they must hold (a cl.array, list or function of the index,
--   compared by `R:verify`), or `check(got)` that raises on a wrong result
--   and may return an error figure (kept as `res.err`); `poison = false` for
--   a buffer the kernel reads too (a recurrence), which is then not poisoned
--   and has no unowned part; `device = function(first, buf, lo, hi)` an
--   exact check on the device of the owned part, which sets the kernel's
--   arguments (`first`, a uint buffer, takes the smallest wrong index, by
--   atomic_min) and returns the kernel and its work-items: when it finds
--   nothing the owned part is not read back (`err` 0); when it finds a
--   difference the host check (`expect` or `check`) names it. Under
--   CLUA_CORRUPT the wrong element is put in the buffer, so that the
--   device check must find it; the buffer must not be write_only (a kernel
--   reads it). `R:device_strided` makes one; `queue` the
--   queue of the buffer's device where it is not the measurement's (a
--   measurement over several devices);
-- * `reads` the inputs (made by `R:input`) that must be unchanged;
-- * `bytes`, `ops` one repetition's traffic and operations (`type` "float"
--   by default: the roofline point); `bound` what `bytes` is held against:
--   "memory" (default), "pcie", "host", a B/s figure, or false;
--   `footprint` the bytes the repetition touches (default the buffers'
--   sizes), which marks a cache figure when the device's caches hold them;
-- * timing options of `R:time` (`reps`, `warmup`, `target_ms`, `queue`,
--   `finish`, `host`, `sync`);
-- * `figures` the figures one repetition yields besides the measurement's
--   own, a list of `{name, event = N | clock = "host" | value = f, bytes =,
--   ops =, bound =}` (clua.figures): each summarised, spread-marked, bounded
--   and cache-marked, in `res.figures` by name and in order.
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
  local label = spec.label or "?"
  local q = type(spec.queue) == "userdata" and spec.queue or self.queue
  local reg = known(self)
  local outs = spec.outputs or {}
  -- --grading (clua grade's runs): "once", "untimed" or "unchecked" (clua.assign)
  local way = assign.grading(self, label)
  local checked = way ~= "once" and way ~= "unchecked"
  for i, o in ipairs(outs) do
    for k in pairs(o) do
      if type(k) ~= "number" and not OUTPUT[k] then
        error(("R:measure: outputs[%d]: unknown option '%s' (known: %s)"):format(i, tostring(k),
          table.concat(OUTPUT, ", ")), 2)
      end
    end
    if not o[1] then error(("R:measure: outputs[%d] has no buffer"):format(i), 2) end
    local info = reg[o[1]]
    if o.device and info and info.write_only then
      error(("R:measure: outputs[%d] (%s): the device check reads it in a kernel, and it was made write_only "
        .. "(R:output's flags), which no kernel may read: leave write_only out"):format(i, o.name or info.name), 2)
    end
  end
  self:check_outputs(outs, "R:measure", label)
  local figs = figures.check(spec.figures)
  for _, o in ipairs(outs) do
    if o.poison ~= false and checked then poison(o.queue or q, o[1]) end
    if o.queue then o.queue:finish() end
  end
  q:finish()

  local topts = { label = label }
  for _, k in ipairs({ "reps", "warmup", "target_ms", "min_reps", "max_reps", "finish", "host", "sync" }) do
    topts[k] = spec[k]
  end
  if spec.queue then topts.queue = spec.queue end
  if way == "once" or way == "untimed" then topts.once = true end
  if figures.need_host(figs) then topts.host = true end
  -- what each timed repetition returned (the figures' events), kept while
  -- there are figures to take from them
  local results = {}
  local run = not figs and spec.run or function(i)
    local r = spec.run(i)
    if i >= 1 then results[i] = r end
    return r
  end
  -- a launch the driver refuses, or a wait that times out, names the variant
  -- (the student's kernel, in assignment mode)
  local timed, t = pcall(self.time, self, run, topts)
  if not timed then
    local msg = tostring(t)
    error(msg:find(label, 1, true) and msg or (label .. ": " .. msg), 0)
  end
  local res = { label = label, notes = {}, bytes = spec.bytes, ops = spec.ops }

  local function by_host(why)
    res.notes[#res.notes + 1] = ("%s: %s; timed by the host clock around the commands and the wait for them")
      :format(label, why)
    local o = {}
    for k, v in pairs(topts) do o[k] = v end
    o.label = label .. " (host clock)"
    results = {}
    return self:time(function(i) wait_all(run(i)) end, o)
  end
  if t.mode == "event" and t.min <= 0 then
    t = by_host("an event reports 0 ns: the driver does not time this command")
  end

  -- Assignment mode's guard zones first: a write past an allocation is the
  -- cause of whatever else the results show.
  if checked then self:check_student(label) end

  -- The results: owned part verified, unowned part still poisoned.
  for _, o in ipairs(checked and outs or {}) do
    local buf, oq = o[1], o.queue or q
    local info = reg[buf] or {}
    info = { name = o.name or info.name or "out", type = info.type, n = info.n, data = info.data }
    if not info.type then error(("R:measure %s: output %s was not made by R:output"):format(label, info.name), 0) end
    local lo, hi = 0, info.n
    if o.owns then lo, hi = o.owns[1], o.owns[2] end
    local es = esize(info.type)
    local what = ("%s: %s[%d .. %d)"):format(label, info.name, lo, hi)
    -- Checked on the device first (an exact contract): no read back unless
    -- the kernel finds a difference, which the host path below then names.
    local on_device, found, injected = o.device and hi > lo, nil, nil
    if on_device then
      local c = checker(self.ctx)
      if self.corrupt and not rawget(self, "corrupted") then
        -- CLUA_CORRUPT's wrong element goes into the buffer itself, so that
        -- the device check must find it (its test) before the host names it
        local mid = lo + (hi - lo) // 2
        local one = cl.array(info.type, 1)
        oq:read(buf, one, { offset = mid * es })
        self:inject(one, 0)
        oq:write(buf, one, { offset = mid * es })
        oq:finish()
        injected = mid
      end
      local kernel, items = o.device(c.first, buf, lo, hi)
      found = device_finds(oq, c, kernel, items)
      if injected and not found then
        error(("%s: the device check missed the wrong element put at %s[%d] (CLUA_CORRUPT)"):format(what,
          info.name, injected), 0)
      end
    end
    local got = cl.array(info.type, (on_device and not found) and 0 or hi - lo)
    if hi > lo and #got > 0 then oq:read(buf, got, { offset = lo * es }) end
    if on_device and not found then
      res.err = res.err or 0
    elseif o.check then
      self:inject(got)
      res.err = o.check(got, what)
    elseif o.expect ~= nil then
      local v = self:verify(what, got, o.expect, { tol = o.tol, exact = o.exact })
      res.err = res.err or v.max_rel
    end
    if found then
      error(("%s: the device check found %s[%d .. %d) wrong at its element %d, which the host check passed")
        :format(label, info.name, lo, hi, c_first_index(self.ctx)), 0)
    end
    if o.poison ~= false then
      check_unowned(oq, buf, info, 0, lo, lo, hi, label)
      check_unowned(oq, buf, info, hi, info.n, lo, hi, label)
    end
  end
  for _, b in ipairs(checked and spec.reads or {}) do
    local info = reg[b]
    if info and info.data then check_input(q, b, info, label) end
  end

  -- The figure against what the hardware can do.
  local facts = self.facts
  local kind = way ~= "once" and (spec.bound == nil and "memory" or spec.bound)
  if spec.bytes and kind then
    local foot = spec.footprint
    if not foot then
      foot = 0
      for _, o in ipairs(outs) do local i = reg[o[1]]; if i then foot = foot + i.n * esize(i.type) end end
      for _, b in ipairs(spec.reads or {}) do local i = reg[b]; if i then foot = foot + i.n * esize(i.type) end end
    end
    local cache, from = bounds.cache_bytes(facts)
    if kind == "memory" and foot > 0 and foot <= cache then
      res.cache = true
      res.cache_note = ("c: a cache figure: the working set (%s or less) fits %s (%s), so the row measures "
        .. "the cache, not the memory"):format(units.format_size(foot), from, units.format_size(cache))
      res.footprint = foot
      kind = "cache"
    end
    local ok, why = bounds.check(spec.bytes / t.median * 1e9, facts, kind)
    if not ok and t.mode == "event" then
      t = by_host(("by its events %s GB/s, %s"):format(units.format_number(spec.bytes / t.median),
        why))
      ok, why = bounds.check(spec.bytes / t.median * 1e9, facts, kind)
    end
    if not ok then
      error(("%s: %s GB/s by the host clock is %s: not a result (a wrong byte count, or a command "
        .. "that did not run)"):format(label, units.format_number(spec.bytes / t.median), why), 0)
    end
  end
  if spec.ops and way ~= "once" then
    local ok, why = bounds.check(spec.ops / t.median * 1e9, facts, "compute")
    if not ok then error(("%s: %s Gop/s is %s: not a result"):format(label,
      units.format_number(spec.ops / t.median), why), 0) end
    if spec.roofline ~= false and spec.bytes then
      self:roofline_point(label, { ops = spec.ops, bytes = spec.bytes, ns = t.median, type = spec.type,
        cache = res.cache })
    end
  end

  res.t, res.clock = t, t.mode
  res.median, res.min, res.max = t.median, t.min, t.max
  res.spread = noise.spread(t)
  if spec.bytes then
    res.per_s = spec.bytes / t.median * 1e9
    res.bw = units.gbps(spec.bytes, t.median, self.divisor)
  end
  if spec.ops then res.rate = spec.ops / t.median * 1e9 end
  if figs then figures.summarise(self, figs, res, results, spec) end
  return figures.mark(res)
end

--- A `device` check (see `R:measure`) for an output of 4-byte elements
-- whose owned part [lo, hi) must hold, bit for bit, `src`'s elements at the
-- same places where (i - lo) is a multiple of `s`, and the poison between
-- them (kernels/harness.cl's first_strided).
-- @tparam cl.buffer src the input (made by `R:input`) the values come from
-- @int[opt=1] s the stride, in elements
-- @treturn function the `device` option
function Recipe:device_strided(src, s)
  s = s or 1
  return function(first, buf, lo, hi)
    local k = checker(self.ctx).first_strided
    k:args(buf, src, cl.uint(lo), cl.uint(hi - lo), cl.uint(s), cl.uint(POISON_WORD), first)
    return k, hi - lo
  end
end

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
