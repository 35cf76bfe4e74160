--- clua.chase: the pointer chase of the memory studies (recipes/memory.lua's
-- latency and TLB tables), on kernels/memory.cl's `chase_build` and `chase`.
-- A working set of `ws` bytes is cut into `n` slots (slot = ws / n); each
-- slot holds one uint index, at a random 128-byte line of it; the indices
-- make one cycle through every slot in a seeded random order. One work-item
-- follows the cycle, each load depending on the last, for as many steps as
-- fill about `target_ns` a launch (a probe decides), continuing where the
-- last launch stopped. Each point runs through the harness (`R:measure`,
-- `footprint` the working set: a cache figure where the caches hold it) and
-- is verified against the host's walk of the same cycle.
--
--     local ch = chase.new(R, { LINE = chase.LINE // 4 })
--     local p = ch:point(64 * 1024, 512, "chase over 64 KiB")
--     print(p.ns, p.cycles)   -- ns a dependent load, and clock cycles
-- @module clua.chase
local cl = require("cl")

local chase = {}

--- Bytes of a line: one index per line at least (`LINE` of the kernels'
-- defines is this in uints).
chase.LINE = 128
--- The seed of every cycle's order (with the slot count).
chase.SEED = 20261123

local LINE_UINTS = chase.LINE // 4

--- The cycle over `n` slots: slot 0 first, then the others in an order
-- seeded by `seed` and `n` (math.randomseed); `next[slot]` is the slot after
-- it, so that following it from 0 visits every slot once before coming back.
-- @int n the slots (at least 1)
-- @int[opt=chase.SEED] seed
-- @treturn cl.array a uint array of n elements
function chase.cycle(n, seed)
  local order = {}
  for i = 1, n do order[i] = i - 1 end
  math.randomseed(seed or chase.SEED, n)
  for i = n, 3, -1 do
    local j = math.random(2, i)
    order[i], order[j] = order[j], order[i]
  end
  local nxt = cl.array("uint", n)
  for k = 1, n do nxt[order[k]] = order[k % n + 1] end
  return nxt
end

--- Where slot `i`'s index lives, in uints from the start (as
-- kernels/memory.cl's head()): at a line of the slot chosen by a hash of i.
-- @int i the slot
-- @int slot the slot's size in uints
-- @int lines the lines of a slot
-- @treturn int
function chase.head(i, slot, lines)
  return i * slot + (((i * 2654435761) & 0xffffffff) >> 8) % lines * LINE_UINTS
end

local Chase = {}
Chase.__index = Chase

--- A chase on R's device, its kernels built from kernels/memory.cl with
-- `defines` (`LINE` = chase.LINE // 4, and whatever else the recipe's
-- program of that file takes). Each launch takes 4096 (with --quick, else
-- 16384) to 2^20 steps, as many as fill about 1 ms (with --quick, else 5 ms)
-- by a probe of 4096 steps (with --check-size, 256 steps and a probe of
-- 256, for the simulator); cycles are at the device's maximum clock, where
-- it tells one.
-- @tab R the recipe
-- @tab defines the program's defines
-- @treturn tab the chase: `:point`, `:cycles`, `:notes`
function chase.new(R, defines)
  local mhz = R.device.info.max_clock_mhz or 0
  return setmetatable({ R = R, clock = mhz > 0 and mhz or nil, cycles_of = {},
    target_ns = (R.quick and 1 or 5) * 1e6, min_steps = R.check_size and 1 << 8 or R.quick and 1 << 12 or 1 << 14,
    max_steps = 1 << 20, probe_steps = R.check_size and 1 << 8 or 1 << 12,
    build = R:kernel("memory.cl", "chase_build", defines), kernel = R:kernel("memory.cl", "chase", defines),
    -- the chase's state, {index reached, steps taken}: read and written by
    -- every launch (a recurrence), so not poisoned
    state = R:output("state", "uint", 2) }, Chase)
end

--- One point: `n` slots over `ws` bytes, measured (`label` names it) and
-- verified.
-- @int ws the working set, in bytes
-- @int n the slots (ws / n a multiple of the line)
-- @string label the measurement's name
-- @treturn tab `ws`, `stride` (a slot's bytes), `slots`, `steps`, `ns` (a
-- load's latency), `cycles` (nil without a clock), `res` (R:measure's) and
-- `point` (`{x = ws, y = ns, times =}`, for clua.levels)
function Chase:point(ws, n, label)
  local R, q, build, k, dstate = self.R, self.R.queue, self.build, self.kernel, self.state
  local slot = ws // n // 4
  local lines = slot // LINE_UINTS
  self.cycles_of[n] = self.cycles_of[n] or chase.cycle(n)
  local nxt = self.cycles_of[n]
  local p = R.ctx:buffer(ws)
  local dnext = R.ctx:buffer(nxt, "read_only")
  build:args(p, dnext, cl.uint(n), cl.uint(slot), cl.uint(lines))
  q:launch(build, (n + 63) // 64 * 64)
  q:fill(dstate, 0, { type = "uint" }) -- at slot 0's index (head(0) is 0), no steps taken
  -- a probe decides the steps: about target_ns a launch
  k:args(p, cl.uint(self.probe_steps), dstate)
  local probe = q:launch(k, 1, 1).duration
  local steps = math.max(self.min_steps, math.min(self.max_steps,
    math.floor(self.target_ns / math.max(probe / self.probe_steps, 1e-3))))
  k:args(p, cl.uint(steps), dstate)
  local launches = 0
  -- verified: the host walks the same cycle for as many steps as the
  -- launches took (modulo its length: it is one cycle through every slot)
  local res = R:measure{ label = label, bytes = 4 * steps, footprint = ws,
    run = function() launches = launches + 1; return q:launch(k, 1, 1) end,
    outputs = { { dstate, poison = false, check = function(got)
      local total, j = self.probe_steps + launches * steps, 0
      for _ = 1, total % n do j = nxt[j] end
      R:verify(label .. ": the index reached and the steps taken", got, { chase.head(j, slot, lines), total },
        { exact = true })
    end } } }
  p:release(); dnext:release()
  local ns = res.median / steps
  return { ws = ws, stride = slot * 4, slots = n, steps = steps, ns = ns, cycles = self.clock and ns * self.clock / 1e3,
    res = res, point = { x = ws, y = ns, times = res.t.times } }
end

--- " (N cycles)" for a latency of `ns` at the chase's clock, "" without one.
-- @number ns
-- @treturn string
function Chase:cycles(ns)
  return self.clock and (" (%.0f cycles)"):format(ns * self.clock / 1e3) or ""
end

--- Adds the method's notes to table `t`: the cycle, the steps a launch,
-- the latency's definition, the clock of the cycles and the verification
-- (`verified`, if given, said after it).
-- @tparam clua.report t the table
-- @string[opt] verified more of the verification's note
function Chase:notes(t, verified)
  t:note(("the cycle: one uint index per slot, at a random 128-byte line of the slot, slots visited in a seeded "
    .. "random order; one work-item, each launch %d to %d steps (a probe of %d decides: about %g ms), continuing "
    .. "where the last stopped; latency = median event time (%d runs) / steps"):format(self.min_steps, self.max_steps,
      self.probe_steps, self.target_ns / 1e6, self.R.reps))
  t:note("cycles: at the device's maximum clock, " .. (self.clock and (self.clock .. " MHz") or "unknown")
    .. " (the clock under load may differ)")
  t:note("verified: after every working set, the index reached and the steps taken against the host's walk of "
    .. "the same cycle" .. (verified or ""))
end

return chase
