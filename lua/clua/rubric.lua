--- clua.rubric: how a gradebook turns a verdict into points. A rubric is a
-- small Lua file an instructor writes, returning a table (docs/assignments.md):
--
--     return {
--       build = 1,                                   -- it builds
--       sizes = { { size = "1MiB", points = 3 },     -- correct at each size: one run each
--                 { size = "999996", points = 2 } }, -- (the first is the timed one)
--       speed = { against = "reference",             -- speed-up over the recipe's fastest kernel,
--                 { at_least = 0.5, points = 1 },    -- the highest threshold met counts
--                 { at_least = 0.9, points = 2 } },  -- (against = "time": at_most = "2ms")
--       penalties = { out_of_bounds = 2, timeout = 1, late_per_day = 1, late_max = 3 },
--     }
--
-- `correct = N` stands for one size (the recipe's own, from its options).
-- The penalty `out_of_bounds` is also taken from a kernel that changed its input.
-- A score is never below 0; each score comes with the lines that made it.
-- @module clua.rubric
local units = require("clua.units")

local rubric = {}

--- The rubric used without --rubric: 1 for building, 3 for correct, 1 for
-- a speed-up of at least 0.5 over the recipe's fastest kernel, 2 for 0.9;
-- 1 off for an out-of-bounds write, 1 off a day late, at most 3.
rubric.DEFAULT = { build = 1, correct = 3,
  speed = { against = "reference", { at_least = 0.5, points = 1 }, { at_least = 0.9, points = 2 } },
  penalties = { out_of_bounds = 1, timeout = 0, late_per_day = 1, late_max = 3 } }

local KEYS = { build = true, correct = true, sizes = true, speed = true, penalties = true, name = true }
local PEN = { out_of_bounds = true, timeout = true, late_per_day = true, late_max = true, late = true }

local function num(v, where)
  if type(v) ~= "number" or v < 0 then error(("rubric: %s must be a number >= 0, got %s"):format(where, tostring(v)), 0) end
  return v
end

--- Checks a rubric table and fills its defaults; raises naming the key at
-- fault. Returns a new table: `build`, `sizes` (a list of {size=, points=};
-- size nil for the recipe's own), `speed` (sorted thresholds), `penalties`.
function rubric.check(r, where)
  where = where or "rubric"
  if type(r) ~= "table" then error(where .. ": a rubric is a table", 0) end
  for k in pairs(r) do
    if not KEYS[k] then error(("%s: unknown key '%s' (known: build, correct, sizes, speed, penalties)"):format(where, tostring(k)), 0) end
  end
  local out = { build = num(r.build or 0, "build"), sizes = {}, penalties = {} }
  if r.sizes and r.correct then error(where .. ": give correct or sizes, not both", 0) end
  if r.sizes then
    for i, s in ipairs(r.sizes) do
      if type(s) ~= "table" or s.size == nil then error(("%s: sizes[%d] needs size = and points ="):format(where, i), 0) end
      local b = units.parse_size(s.size)
      if not b then error(("%s: sizes[%d]: bad size '%s'"):format(where, i, tostring(s.size)), 0) end
      out.sizes[i] = { size = tostring(s.size), points = num(s.points or 0, ("sizes[%d].points"):format(i)) }
    end
    if #out.sizes == 0 then error(where .. ": sizes is empty", 0) end
  else
    out.sizes[1] = { points = num(r.correct or 0, "correct") }
  end
  if r.speed then
    local sp = { against = r.speed.against or "reference" }
    if sp.against ~= "reference" and sp.against ~= "time" then
      error(where .. ": speed.against is \"reference\" or \"time\"", 0)
    end
    for i, th in ipairs(r.speed) do
      local t = { points = num(th.points or 0, ("speed[%d].points"):format(i)) }
      if sp.against == "reference" then t.at_least = num(th.at_least, ("speed[%d].at_least"):format(i))
      else
        local ns = type(th.at_most) == "number" and th.at_most or nil
        if not ns then
          local v, u = tostring(th.at_most):match("^%s*([%d.eE+-]+)%s*(%a*)%s*$")
          local mul = ({ ns = 1, us = 1e3, ["µs"] = 1e3, ms = 1e6, s = 1e9 })[u ~= "" and u or "ns"]
          ns = tonumber(v) and mul and tonumber(v) * mul
        end
        if not ns then error(("%s: speed[%d].at_most: a time (\"2ms\", \"350us\") expected"):format(where, i), 0) end
        t.at_most = ns
      end
      sp[#sp + 1] = t
    end
    table.sort(sp, function(a, b) return a.points > b.points end)
    out.speed = sp
  end
  for k, v in pairs(r.penalties or {}) do
    if not PEN[k] then error(("%s: penalties: unknown key '%s' (known: out_of_bounds, timeout, late_per_day, late_max)"):format(where, k), 0) end
    out.penalties[k] = num(v, "penalties." .. k)
  end
  if out.penalties.late then out.penalties.late_per_day = out.penalties.late_per_day or out.penalties.late end
  local max = out.build
  for _, s in ipairs(out.sizes) do max = max + s.points end
  if out.speed and out.speed[1] then max = max + out.speed[1].points end
  out.max = max
  return out
end

--- Loads a rubric file (a Lua file returning the table), checked.
function rubric.load(path)
  local chunk, err = loadfile(path, "t", {})
  if not chunk then error("rubric " .. path .. ": " .. err, 0) end
  local ok, r = pcall(chunk)
  if not ok then error("rubric " .. path .. ": " .. tostring(r), 0) end
  return rubric.check(r, "rubric " .. path)
end

local function pts(v) return (("%.2f"):format(v):gsub("%.?0+$", "")) end

--- One line of a score, as the gradebook and the feedback print it: "builds:
-- 1 of 1", "correct at --size 1MiB: 0 of 3 (wrong at out[255])",
-- "penalty, late: 2 off (2 days after the deadline)". No line starts with
-- `+`, `-`, `=` or `@`, which a spreadsheet reads as a formula.
-- @tab item `name`, `score`, `max`, `why` (an item of `rubric.score`)
-- @treturn string the line
function rubric.line(item)
  local why = item.why and item.why ~= "" and (" (" .. item.why .. ")") or ""
  if item.penalty then return ("penalty, %s: %s off%s"):format(item.name, pts(-item.score), why) end
  if item.floor then return ("total: 0, never below 0 (%s before)"):format(pts(item.before)) end
  return ("%s: %s of %s%s"):format(item.name, pts(item.score), pts(item.max), why)
end

--- The score of one graded submission.
-- @tab r a checked rubric
-- @tab g what the grader knows: `built`, `correct` (a list of booleans, one
-- per rubric size; nil where it was not checked), `why` (a list, one per
-- size: what happened where it was not correct, e.g. "wrong at out[255]"),
-- `build_why` (why it did not build), `oob`, `oob_why` (the penalty's words for it; default: writes
-- outside its part of an output), `changed_input`, `timed_out`,
-- `too_fast`, `speedup` (over the recipe's fastest kernel), `time` (ns),
-- `untimed` (why a correct submission has no time: no speed points),
-- `late_days` (0 when on time)
-- @treturn number the score
-- @treturn number the maximum
-- @treturn {string,...} the lines that made it ("builds: 1 of 1",
-- "penalty, late: 2 off (2 days after the deadline)": `rubric.line`)
-- @treturn {table,...} the same as items: `name`, `score`, `max`, `why`,
-- `passed` (full marks; for a penalty: not applied), `penalty` (true for one)
function rubric.score(r, g)
  local s, items = 0, {}
  local function add(name, p, max, why)
    s = s + p
    items[#items + 1] = { name = name, score = p, max = max, why = why, passed = p >= max }
  end
  local function penalty(name, p, why)
    s = s - p
    items[#items + 1] = { name = name, score = -p, max = 0, why = why, passed = false, penalty = true }
  end
  local why = g.why or {}
  if g.built then add("builds", r.build, r.build)
  else add("builds", 0, r.build, g.build_why or "did not build") end
  local all = true
  for i, sz in ipairs(r.sizes) do
    local ok = g.correct and g.correct[i]
    all = all and ok
    local name = "correct" .. (sz.size and (" at --size " .. sz.size) or "")
    if ok then add(name, sz.points, sz.points)
    elseif g.correct and g.correct[i] == false then add(name, 0, sz.points, why[i] or "wrong")
    else add(name, 0, sz.points, why[i] or (g.built and "not checked" or "not checked: it did not build")) end
  end
  if r.speed and r.speed[1] then
    local top = r.speed[1].points
    if g.too_fast then add("speed", 0, top, "not scored: faster than the device can go, flagged for the instructor")
    elseif not all then add("speed", 0, top, "not scored: not correct at every size")
    elseif g.untimed then add("speed", 0, top, "not scored: not timed: " .. g.untimed)
    else
      local got
      for _, th in ipairs(r.speed) do
        if r.speed.against == "reference" and g.speedup and g.speedup >= th.at_least then
          got = th
          add("speed", th.points, top, ("%.2fx the recipe's fastest kernel, at least %s"):format(g.speedup, pts(th.at_least)))
          break
        elseif r.speed.against == "time" and g.time and g.time <= th.at_most then
          got = th
          add("speed", th.points, top, ("%.1f µs, at most %.1f µs"):format(g.time / 1e3, th.at_most / 1e3))
          break
        end
      end
      if not got then
        add("speed", 0, top, r.speed.against == "reference" and ("%s the recipe's fastest kernel, below every threshold")
          :format(g.speedup and ("%.2fx"):format(g.speedup) or "no speed-up over")
          or (g.time and ("%.1f µs, slower than every threshold"):format(g.time / 1e3) or "slower than every threshold"))
      end
    end
  end
  local p = r.penalties
  if g.oob and (p.out_of_bounds or 0) > 0 then penalty("out of bounds", p.out_of_bounds, g.oob_why or "writes outside its part of an output") end
  if g.changed_input and (p.out_of_bounds or 0) > 0 then penalty("changed its input", p.out_of_bounds, "writes into an input") end
  if g.timed_out and (p.timeout or 0) > 0 then penalty("timed out", p.timeout) end
  if (g.late_days or 0) > 0 and (p.late_per_day or 0) > 0 then
    local off = g.late_days * p.late_per_day
    if p.late_max then off = math.min(off, p.late_max) end
    penalty("late", off, ("%d day%s after the deadline"):format(g.late_days, g.late_days == 1 and "" or "s"))
  end
  if s < 0 then items[#items + 1] = { floor = true, before = s, score = -s, max = 0, name = "total" }; s = 0 end
  local lines = {}
  for i, it in ipairs(items) do lines[i] = rubric.line(it) end
  return s, r.max, lines, items
end

return rubric
