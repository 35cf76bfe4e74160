-- clua.pool: tasks side by side, at most N commands at a time. Each command here appends its start and end (the shell's
-- clock, ns) to a log; the spec reads which ran beside which.
local pool = require("clua.pool")
local files = require("clua.files")

local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

-- A command that logs "NAME start T" and "NAME end T" around a sleep.
local function cmd(log, name, seconds)
  return ("echo %s start $(date +%%s%%N) >>%s; sleep %s; echo %s end $(date +%%s%%N) >>%s"):format(name, q(log),
    seconds, name, q(log))
end

-- The spans of the log: name -> {start, end}.
local function spans(log)
  local out = {}
  for name, what, t in (files.read(log) or ""):gmatch("(%S+) (%a+) (%d+)") do
    out[name] = out[name] or {}
    out[name][what] = tonumber(t)
  end
  return out
end

local function overlap(a, b) return a.start < b["end"] and b.start < a["end"] end

describe("clua.pool", function()
  local dir
  before_each(function()
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. q(dir)))
  end)
  after_each(function() os.execute("rm -rf " .. q(dir)) end)

  it("runs at most N commands at a time, each task's own in its order", function()
    local log, order = dir .. "/log", {}
    local tasks = {}
    for i = 1, 4 do
      tasks[i] = function(slot)
        assert.is_true(slot >= 1 and slot <= 2)
        local s = pool.exec(cmd(log, "t" .. i .. "a", 0.3))
        assert.is_true(s >= 0.25, tostring(s))
        pool.exec(cmd(log, "t" .. i .. "b", 0.1))
        order[#order + 1] = i
      end
    end
    pool.run(tasks, 2, dir)
    local sp = spans(log)
    assert.are.equal(4, #order)
    for i = 1, 4 do
      assert.is_true(sp["t" .. i .. "a"]["end"] <= sp["t" .. i .. "b"].start, "task " .. i .. "'s commands in order")
    end
    -- never more than two at once: at each start, count what runs
    for n, a in pairs(sp) do
      local beside = 0
      for m, b in pairs(sp) do if m ~= n and b.start <= a.start and a.start < b["end"] then beside = beside + 1 end end
      assert.is_true(beside <= 1, n .. " started beside " .. beside)
    end
    assert.is_true(overlap(sp.t1a, sp.t2a), "the first two ran side by side")
    assert.is_nil(files.read(dir .. "/pool.fifo"))
  end)

  it("runs the tasks one after the other with one job, and outside a pool as os.execute", function()
    local log, seen = dir .. "/log", {}
    local tasks = {}
    for i = 1, 3 do tasks[i] = function(slot) seen[#seen + 1] = slot; pool.exec(cmd(log, "s" .. i, 0)) end end
    pool.run(tasks, 1, dir)
    assert.are.same({ 1, 1, 1 }, seen)
    local text = files.read(log)
    assert.truthy(text:find("s1 start.*s1 end.*s2 start.*s2 end.*s3 start.*s3 end"), text)
    assert.is_true(pool.exec("true") >= 0)
  end)

  it("raises a task's error once the commands already running have ended, and starts no other", function()
    local log = dir .. "/log"
    local ok, err = pcall(pool.run, {
      function() pool.exec(cmd(log, "slow", 0.3)) end,
      function() pool.exec(cmd(log, "quick", 0)); error("task two failed", 0) end,
      function() pool.exec(cmd(log, "never", 0)) end }, 2, dir)
    assert.is_false(ok)
    assert.are.equal("task two failed", err)
    local sp = spans(log)
    assert.is_truthy(sp.slow and sp.slow["end"], "the running command ended")
    assert.is_nil(sp.never, "no command started after the fault")
  end)

  it("checks a number of jobs, and defaults to the CPUs online, at most its cap", function()
    assert.are.equal(3, pool.check_jobs("3"))
    assert.are.equal(1, pool.check_jobs(1))
    for _, bad in ipairs({ 0, -1, "abc", 2.5, "" }) do
      local n, why = pool.check_jobs(bad)
      assert.is_nil(n)
      assert.are.equal(("--jobs must be a whole number >= 1, got %s"):format(tostring(bad)), why)
    end
    local d = pool.default_jobs()
    assert.is_true(d >= 1 and d <= pool.CAP and d <= pool.cpus())
  end)
end)
