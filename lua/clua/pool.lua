--- clua.pool: tasks run side by side, at most N commands at a time, for the
-- grader (`clua grade --jobs N`). A task is a Lua function that runs shell
-- commands through `pool.exec`; inside `pool.run` each task is a coroutine,
-- and `pool.exec` starts its command (`io.popen`) and yields until it ends,
-- so that the code of a task reads as if it ran alone; commands start in
-- the order asked for. Commands end by writing their number to a FIFO of
-- the pool's own, which the pool reads: one blocking read waits for
-- whichever ends first. With N = 1 the tasks run one after the other,
-- their commands through `os.execute`, as if there were no pool.
-- @module clua.pool
local pool = {}

--- The most commands side by side by default, whatever the machine's CPUs.
pool.CAP = 8

local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end
local function now_s()
  local ok, cl = pcall(require, "cl")
  return ok and cl.now() / 1e9 or os.clock()
end

--- The CPUs online (`getconf _NPROCESSORS_ONLN`), 1 where it cannot be read.
-- @treturn int
function pool.cpus()
  local p = io.popen("getconf _NPROCESSORS_ONLN 2>/dev/null")
  local n = p and math.tointeger(tonumber((p:read("a") or ""):match("%d+")))
  if p then p:close() end
  return n and n > 0 and n or 1
end

--- The default number of jobs (the grader's option jobs): the CPUs online, at most `pool.CAP`.
-- @treturn int
function pool.default_jobs()
  return math.min(pool.cpus(), pool.CAP)
end

--- A number of jobs checked: a whole number >= 1.
-- @param v the value (a number or a string)
-- @treturn[1] int the jobs
-- @treturn[2] nil
-- @treturn[2] string why not
function pool.check_jobs(v)
  return require("clua.argcheck").at_least_one("--jobs", v)
end

-- The coroutines of the running pool's tasks, and the pool of each.
local task_pool = setmetatable({}, { __mode = "k" })

--- Runs a shell command and waits for it. Inside a task of `pool.run`, the
-- command waits its turn (at most N at a time) and the task yields until it
-- ends; elsewhere it is `os.execute`'s.
-- @string cmd the command (a shell line; its standard input is /dev/null
-- in a pool, its output is the caller's to redirect)
-- @treturn number the seconds it ran (not counting its wait for its turn)
function pool.exec(cmd)
  local co = coroutine.running()
  if not task_pool[co] then
    local t0 = now_s()
    os.execute(cmd)
    return now_s() - t0
  end
  return coroutine.yield({ cmd = cmd })
end

--- Runs tasks, at most `jobs` commands at a time (`pool.exec`), and returns
-- when every task has ended. Task `i` is called as `tasks[i](slot)`, `slot`
-- a number from 1 to `jobs` that no other task running at the same time
-- has (for folders of its own). With `jobs` 1 the tasks run in order, one
-- after the other. An error in a task is raised here, once the commands
-- already started have ended.
-- @tab tasks a list of functions
-- @int jobs the most commands at a time (>= 1)
-- @string dir a folder for the pool's FIFO (made and removed here)
function pool.run(tasks, jobs, dir)
  if jobs <= 1 or #tasks <= 1 then
    for _, t in ipairs(tasks) do t(1) end
    return
  end
  local fifo = dir .. "/pool.fifo"
  os.remove(fifo)
  if not os.execute("mkfifo " .. q(fifo)) then error("pool: mkfifo " .. fifo .. " failed", 0) end
  -- read and write: the read never sees an end of file between commands
  local done = assert(io.open(fifo, "r+"))
  local self = {}
  local free = {}
  for s = jobs, 1, -1 do free[#free + 1] = s end
  local queue, running, nrun, next_task, active, fault = {}, {}, 0, 1, 0, nil
  local next_id = 0

  -- resumes a task's coroutine; what it yields is its next command
  local function step(t, ...)
    local ok, req = coroutine.resume(t.co, ...)
    if not ok then
      fault = fault or req
      req = nil
    end
    if coroutine.status(t.co) == "dead" then
      active = active - 1
      free[#free + 1] = t.slot
      return
    end
    req.task = t
    queue[#queue + 1] = req
  end

  local function start(req)
    next_id = next_id + 1
    local line = ("( %s ) </dev/null; echo %d >%s"):format(req.cmd, next_id, q(fifo))
    local pipe, err = io.popen(line, "r")
    if not pipe then fault = fault or ("pool: cannot start a command: " .. tostring(err)); return end
    running[next_id] = { task = req.task, pipe = pipe, t0 = now_s() }
    nrun = nrun + 1
  end

  while true do
    while not fault and active < jobs and next_task <= #tasks do
      local slot = table.remove(free)
      local fn = tasks[next_task]
      local t = { slot = slot }
      t.co = coroutine.create(function() return fn(slot) end)
      task_pool[t.co] = self
      next_task, active = next_task + 1, active + 1
      step(t)
    end
    -- start what may start, in the order asked (after a fault, none)
    while not fault and #queue > 0 and nrun < jobs do start(table.remove(queue, 1)) end
    -- nothing running: every task has ended (a task waits on a command,
    -- queued or running, until it ends), or a fault stopped the rest
    if nrun == 0 then break end
    local id = math.tointeger(tonumber(done:read("l")))
    local r = id and running[id]
    if r then
      r.pipe:close()
      running[id], nrun = nil, nrun - 1
      if not fault then step(r.task, now_s() - r.t0) end
    end
  end
  done:close()
  os.remove(fifo)
  if fault then error(fault, 0) end
end

return pool
