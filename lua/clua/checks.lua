--- clua.checks: what a measurement checks after its repetitions
-- (`R:measure`'s outputs' `expect`, `check`, `tol`, `exact` and `device`;
-- `bytes`, `ops`, `type`, `bound`, `footprint`, `roofline`): the part of
-- each output a kernel owns verified (on the device first where it can be,
-- CLUA_CORRUPT's wrong element included), the rest still poisoned, every
-- input unchanged (kernels/harness.cl finds a difference at the device's
-- bandwidth; a read back only names it), and the figure held against its
-- physical bound (clua.bounds), a cache figure marked as one. What is run
-- is clua.contract's; how it is timed, clua.timed's.
-- @module clua.checks
local cl = require("cl")
local units = require("clua.units")
local bounds = require("clua.bounds")
local contract = require("clua.contract")

local checks = {}
local esize = contract.element_size

--- `R:measure`'s options of what is checked, besides its outputs'.
checks.OPTIONS = { "bytes", "ops", "type", "bound", "footprint", "roofline" }

--- The options of an output (`R:measure`'s `outputs`) that say how it is checked.
checks.OUTPUT = { "expect", "check", "tol", "exact", "device" }

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

local POISON_WORD = contract.POISON * 0x01010101
local NONE = 0xFFFFFFFF

-- Whether a kernel on the device finds a difference in a range: `kernel`
-- with its arguments set, over `words` words. True when there is one.
local function device_finds(q, c, kernel, words)
  q:fill(c.first, NONE, { type = "uint" })
  q:launch(kernel, math.min(words, 65536))
  q:read(c.first, c.got)
  return c.got[0] ~= NONE
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
  local want = cl.array("uchar", #got):fill(contract.POISON)
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

--- The guard's check of an input (clua.guard's `unchanged`, in assignment
-- mode): whether a kernel on the device finds it as its pristine copy
-- (`R:input` keeps one). False when it differs or has no such copy: the
-- guard then reads it back and names what changed.
-- @tab R the recipe
-- @tparam cl.queue q the queue to check on
-- @tparam cl.buffer buf the input (made by `R:input`)
-- @treturn boolean
-- @usage local a = R:input("a", cl.array("float", 64):fill(1))
-- assert(checks.unchanged_on_device(R, R.queue, a))
-- R.queue:fill(a, 2, { type = "float" }); R.queue:finish()
-- assert(not checks.unchanged_on_device(R, R.queue, a))
function checks.unchanged_on_device(R, q, buf)
  local i = contract.known(R)[buf]
  if not (i and i.pristine) then return false end
  local c = checker(i.ctx)
  c.first_diff:args(buf, i.pristine, cl.uint(i.data.size // 4), c.first)
  return not device_finds(q, c, c.first_diff, i.data.size // 4)
end

-- One output's owned part verified: on the device first where it has a
-- `device` check (no read back unless it finds a difference, which the host
-- check then names), else read back and checked by `check` or `expect`.
local function check_owned(R, o, info, lo, hi, label, oq, res)
  local buf, es = o[1], esize(info.type)
  local what = ("%s: %s[%d .. %d)"):format(label, info.name, lo, hi)
  local on_device, found, injected = o.device and hi > lo, nil, nil
  if on_device then
    local c = checker(R.ctx)
    if R.corrupt and not rawget(R, "corrupted") then
      -- CLUA_CORRUPT's wrong element goes into the buffer itself, so that
      -- the device check must find it (its test) before the host names it
      local mid = lo + (hi - lo) // 2
      local one = cl.array(info.type, 1)
      oq:read(buf, one, { offset = mid * es })
      R:inject(one, 0)
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
  -- read back only what a host check reads (an output with none, as the
  -- other buffer of a ping-pong, has only its unowned part checked)
  local host = (o.check or o.expect ~= nil) and not (on_device and not found)
  local got = cl.array(info.type, host and hi - lo or 0)
  if hi > lo and #got > 0 then oq:read(buf, got, { offset = lo * es }) end
  if on_device and not found then
    res.err = res.err or 0
  elseif o.check then
    R:inject(got)
    res.err = o.check(got, what)
  elseif o.expect ~= nil then
    local v = R:verify(what, got, o.expect, { tol = o.tol, exact = o.exact })
    res.err = res.err or v.max_rel
  end
  if found then
    error(("%s: the device check found %s[%d .. %d) wrong at its element %d, which the host check passed")
      :format(label, info.name, lo, hi, checker(R.ctx).got[0]), 0)
  end
end

--- A measurement's results, after its repetitions: the part of each output
-- a kernel owns verified (its error figure, what `check` returned or the
-- largest relative error, in `res.err`), the rest of it still poisoned,
-- and every input in `reads` unchanged.
-- @tab R the recipe
-- @tab c the contract (clua.contract.check)
-- @tab res the measurement's result, which gets `err`
-- @raise a wrong result, a write outside the part owned, or a changed input,
-- naming the buffer and the element
-- @usage local out = R:output("out", "float", 256)
-- local ones = { out, owns = { 0, 128 }, expect = function() return 1 end }
-- local c = contract.check(R, { label = "ones", outputs = { ones } }, checks.OUTPUT)
-- contract.poison(c)
-- R.queue:fill(out, 1, { type = "float", size = 512 }); R.queue:finish()   -- what the kernel would write
-- local res = {}
-- checks.results(R, c, res)
-- assert(res.err == 0)
function checks.results(R, c, res)
  local reg, label = contract.known(R), c.label
  for _, o in ipairs(c.outputs) do
    local buf, oq = o[1], o.queue or c.queue
    local info = reg[buf] or {}
    info = { name = o.name or info.name or "out", type = info.type, n = info.n, data = info.data }
    if not info.type then error(("R:measure %s: output %s was not made by R:output"):format(label, info.name), 0) end
    local lo, hi = 0, info.n
    if o.owns then lo, hi = o.owns[1], o.owns[2] end
    check_owned(R, o, info, lo, hi, label, oq, res)
    if o.poison ~= false then
      check_unowned(oq, buf, info, 0, lo, lo, hi, label)
      check_unowned(oq, buf, info, hi, info.n, lo, hi, label)
    end
  end
  for _, b in ipairs(c.reads) do
    local info = reg[b]
    if info and info.data then check_input(c.queue, b, info, label) end
  end
end

-- The bytes a measurement touches: its `footprint`, else its buffers' sizes.
local function footprint(R, spec, c)
  if spec.footprint then return spec.footprint end
  local reg, foot = contract.known(R), 0
  for _, o in ipairs(c.outputs) do local i = reg[o[1]]; if i then foot = foot + i.n * esize(i.type) end end
  for _, b in ipairs(c.reads) do local i = reg[b]; if i then foot = foot + i.n * esize(i.type) end end
  return foot
end

--- A measurement's figure against what the hardware can do: `bytes` a
-- repetition against its `bound` ("memory" by default, "pcie", "host", a
-- B/s figure, or false), a cache figure marked (`res.cache`,
-- `res.cache_note`, `res.footprint`) where the working set fits the
-- device's cache; `ops` against the compute bound, and its roofline point.
-- A figure above its bound by its events is timed again by the host clock
-- (`m.by_host`); above it by the host clock too, it is an error.
-- @tab R the recipe
-- @tab spec `R:measure`'s options (those of `checks.OPTIONS` are read)
-- @tab c the contract (clua.contract.check)
-- @tab res the measurement's result (`label`), which gets the cache marks
-- @tab m its timing (clua.timed.run): `t`, `by_host`
-- @raise a figure above its bound by the host clock
-- @usage local c = contract.check(R, { label = "copy" })
-- local res = { label = "copy" }
-- checks.bounds(R, { bytes = 1e6, bound = 1e12 }, c, res, { t = { median = 1e6, mode = "host" } })   -- 1 GB/s
-- local ok, why = pcall(checks.bounds, R, { bytes = 1e6, bound = 1e12 }, c, res, { t = { median = 1, mode = "host" } })
-- assert(not ok and why:find("by the host clock is above the bound given, 1000 GB/s", 1, true))
function checks.bounds(R, spec, c, res, m)
  local facts, label = R.facts, c.label
  local kind = spec.bound == nil and "memory" or spec.bound
  if spec.bytes and kind then
    local foot = footprint(R, spec, c)
    local cache, from = bounds.cache_bytes(facts)
    if kind == "memory" and foot > 0 and foot <= cache then
      res.cache = true
      res.cache_note = ("c: a cache figure: the working set (%s or less) fits %s (%s), so the row measures "
        .. "the cache, not the memory"):format(units.format_size(foot), from, units.format_size(cache))
      res.footprint = foot
      kind = "cache"
    end
    local ok, why = bounds.check(spec.bytes / m.t.median * 1e9, facts, kind)
    if not ok and m.t.mode == "event" then
      m.by_host(("by its events %s GB/s, %s"):format(units.format_number(spec.bytes / m.t.median), why))
      ok, why = bounds.check(spec.bytes / m.t.median * 1e9, facts, kind)
    end
    if not ok then
      error(("%s: %s GB/s by the host clock is %s: not a result (a wrong byte count, or a command "
        .. "that did not run)"):format(label, units.format_number(spec.bytes / m.t.median), why), 0)
    end
  end
  if spec.ops then
    local ok, why = bounds.check(spec.ops / m.t.median * 1e9, facts, "compute")
    if not ok then error(("%s: %s Gop/s is %s: not a result"):format(label,
      units.format_number(spec.ops / m.t.median), why), 0) end
    if spec.roofline ~= false and spec.bytes then
      R:roofline_point(label, { ops = spec.ops, bytes = spec.bytes, ns = m.t.median, type = spec.type,
        cache = res.cache })
    end
  end
end

--- A `device` check (see `R:measure`) for an output of 4-byte elements
-- whose owned part [lo, hi) must hold, bit for bit, `src`'s elements at the
-- same places where (i - lo) is a multiple of `s`, and the poison between
-- them (kernels/harness.cl's first_strided); `R:device_strided` is it.
-- @tab R the recipe
-- @tparam cl.buffer src the input (made by `R:input`) the values come from
-- @int[opt=1] s the stride, in elements
-- @treturn function the `device` option
-- @usage local check = checks.strided(R, R:input("in", cl.array("float", 64)), 2)
-- assert(type(check) == "function")
function checks.strided(R, src, s)
  s = s or 1
  return function(first, buf, lo, hi)
    local k = checker(R.ctx).first_strided
    k:args(buf, src, cl.uint(lo), cl.uint(hi - lo), cl.uint(s), cl.uint(POISON_WORD), first)
    return k, hi - lo
  end
end

return checks
