--- clua.runner: one run of a recipe for the grader, as a process of its own:
-- in the box (clua.sandbox) unless the grader was told not to, under a
-- wall-clock limit (`timeout`), its standard output and error each kept within
-- `outcap.LIMIT` (clua.outcap), its JSON written to a folder of the run's own
-- and kept only when it is a regular file of at most `JSON_BYTES`. Any
-- command can be run so (`runner:exec`: the grader's check under Oclgrind). The run's
-- folder (its JSON, what it wrote) is removed after it; what stays is the
-- log, the error log and the JSON, so a run leaves at most about 3 MiB.
-- Before grading, `runner:preflight` runs the recipe's own kernels the same
-- way: a device, driver or sandbox that does not work stops the grader there.
-- Runs go through clua.pool, so that a grader's tasks may run side by side,
-- each with a lane of its own (`runner:lane`: its own folders).
-- @module clua.runner
local paths = require("clua.paths")
local sandbox = require("clua.sandbox")
local outcap = require("clua.outcap")
local files = require("clua.files")
local pool = require("clua.pool")

local runner = {}
local Runner = {}
Runner.__index = Runner

--- The largest JSON of a run that is read (bytes).
runner.JSON_BYTES = 1024 * 1024

local function q(s) return "'" .. tostring(s):gsub("'", "'\\''") .. "'" end

--- A runner.
-- @tab opts `clua` (the interpreter), `root` (clua's folder: lua/, kernels/),
-- `recipes` (the recipes' folder), `wall` (seconds a run may last),
-- `sandboxed` (true: every run in the box), `work` (a folder of the
-- grader's own for the runs' folders and the HOME seed)
-- @treturn clua.runner a runner (`r:preflight`, `r:run`)
function runner.new(opts)
  local r = setmetatable({}, Runner)
  -- a bare name (`clua` run from PATH) is found where the shell finds it
  local clua = opts.clua:find("/", 1, true) and opts.clua or paths.which(opts.clua) or opts.clua
  -- and a link to it followed: clua finds its lua/ beside the binary itself
  r.clua, r.wall, r.sandboxed, r.work = paths.real(clua) or paths.absolute(clua), opts.wall, opts.sandboxed, opts.work
  r.dir = opts.work -- this runner's own folder: the run's folder, the status
  r.ro = { r.clua, paths.absolute(opts.recipes) }
  if opts.root then
    for _, d in ipairs({ "lua", "kernels", "share" }) do
      local p = paths.absolute(opts.root) .. "/" .. d
      if paths.is_dir(p) then r.ro[#r.ro + 1] = p end
    end
  end
  return r
end

-- A capping pipe's command: clua -e 'require("clua.outcap").pipe(PATH)'.
local function cap(clua, path)
  return q(clua) .. " -e " .. q(("require(%q).pipe(%q)"):format("clua.outcap", path))
end

--- A runner like this one (the same box, limits and HOME seed) whose runs
-- keep their files in folders of its own, for runs side by side with this
-- runner's other lanes (clua.pool).
-- @int k the lane's number
-- @treturn clua.runner the lane
function Runner:lane(k)
  local l = setmetatable({}, Runner)
  for key, v in pairs(self) do l[key] = v end
  l.dir = self.work .. "/lane" .. k
  assert(paths.mkdirs(l.dir))
  return l
end

--- A fresh, empty folder for one run's files, for `Runner:exec`'s `rw` (the
-- run then writes it, in the box too) and the caller reads it after; the
-- next `Runner:scratch` or `Runner:run` empties it, `Runner:clear` removes it.
-- @treturn string its path
function Runner:scratch()
  local dir = self.dir .. "/run"
  paths.remove_tree(dir)
  assert(paths.mkdirs(dir .. "/out"))
  return dir .. "/out"
end

--- Removes the folder of `Runner:scratch` and what the run wrote in it.
function Runner:clear()
  paths.remove_tree(self.dir .. "/run")
end

--- Runs a command as a recipe's run is run: in the box unless the runner is
-- not sandboxed, under the wall-clock limit, its standard output and error
-- each kept within `outcap.LIMIT`.
-- @tab job `command` (the program and its arguments, a list), `raw` (more
-- arguments, a shell fragment already quoted), `env` (variables set for it:
-- {name, value} pairs), `rw` (folders it may write, e.g. `Runner:scratch`'s),
-- `chdir` (the folder it starts in, in the box; outside it, where the grader
-- runs, as before the box), `submission` (the student's file or
-- folder, seen read-only), `log`, `err` (where its standard output and error
-- are kept), `home` (a writable HOME instead of a private one seeded from the
-- preflight's), `wall` (its limit, s, instead of the runner's)
-- @treturn int|nil the exit status (124 or 137: the wall-clock limit; above 128: a signal)
-- @treturn tab what it printed: `bytes`, `lines`, `cut` (bytes not kept), and
-- `seconds` (how long it ran)
function Runner:exec(job)
  local words = {}
  for i, w in ipairs(job.command) do words[i] = q(w) end
  local cmd = table.concat(words, " ") .. (job.raw and job.raw ~= "" and (" " .. job.raw) or "")
  if self.sandboxed then
    local ro = {}
    for i, p in ipairs(self.ro) do ro[i] = p end
    if job.submission then ro[#ro + 1] = paths.absolute(job.submission) end
    local box = sandbox.argv{ command = {}, ro = ro, rw = job.rw, chdir = job.chdir, env = job.env,
      home = job.home, seed = not job.home and self.seed or nil }
    for i, w in ipairs(box) do box[i] = q(w) end
    cmd = table.concat(box, " ") .. " " .. cmd
  else
    -- no box: the variables set on the command
    local set = {}
    for _, kv in ipairs(job.env or {}) do set[#set + 1] = kv[1] .. "=" .. q(kv[2]) end
    if #set > 0 then cmd = "env " .. table.concat(set, " ") .. " " .. cmd end
  end
  local rc = self.dir .. "/status"
  os.remove(rc)
  cmd = ("timeout -k 10 %s %s"):format(tostring(job.wall or self.wall), cmd)
  local seconds = pool.exec(("( ( %s 2>&1 1>&3 3>&- </dev/null; echo $? >%s ) | %s ) 3>&1 | %s"):format(cmd, q(rc),
    cap(self.clua, job.err), cap(self.clua, job.log)))
  local code = tonumber((files.read(rc) or ""):match("%d+"))
  os.remove(rc)
  local bytes, lines, cut = outcap.size(files.read(job.log) or "")
  return code, { bytes = bytes, lines = lines, cut = cut, seconds = seconds }
end

--- Runs a recipe once.
-- @tab job `script` (the recipe), `args` (its options, a shell fragment,
-- already quoted), `submission` (the student's file or folder, seen
-- read-only), `log`, `err` and `json` (where its standard output, error
-- and JSON are kept), `home` (a writable HOME for the box instead of a
-- private one seeded from the preflight's), `wall` (this run's limit, s,
-- instead of the runner's)
-- @treturn int|nil the exit status (124 or 137: the wall-clock limit; above 128: a signal)
-- @treturn string its standard error (as kept)
-- @treturn string|nil its JSON, when it wrote one
-- @treturn tab what it printed: `bytes`, `lines`, `cut` (bytes not kept)
function Runner:run(job)
  local out = self:scratch()
  local json = out .. "/result.json"
  local code, printed = self:exec{ command = { self.clua, paths.absolute(job.script) },
    raw = job.args .. " --json " .. q(json), rw = { out }, chdir = out, submission = job.submission,
    log = job.log, err = job.err, home = job.home, wall = job.wall }
  local kind, attr = paths.kind(json)
  local doc
  if kind == "file" and attr.size <= runner.JSON_BYTES then
    doc = files.read(json)
    if job.json then files.write(job.json, doc) end
  end
  self:clear()
  return code, files.read(job.err) or "", doc, printed
end

--- Runs the recipe's own kernels once, as a submission's run would be run
-- (in the box, on the device, with the grading options), before anything is
-- graded; in the box its HOME is kept as the seed of every run's (the
-- driver's compiled kernels are then not compiled again in each run).
-- @string script the recipe
-- @string args its options (a shell fragment)
-- @treturn[1] true
-- @treturn[2] nil
-- @treturn[2] string why not: the recipe's error
function Runner:preflight(script, args)
  local home
  if self.sandboxed then
    home = self.work .. "/home"
    paths.remove_tree(home)
    assert(paths.mkdirs(home))
  end
  local log, err = self.work .. "/preflight.log", self.work .. "/preflight.err"
  local code, text, doc = self:run{ script = script, args = args, log = log, err = err, home = home }
  os.remove(log)
  os.remove(err)
  if code == 0 and doc then
    self.seed = home
    return true
  end
  local msg = text:match("recipe [%w_]+: ([^\n]*)") or text:match("([^\n]+)\n?$") or ""
  if code == 124 or code == 137 then msg = ("it ran past the wall-clock limit (%s s)"):format(self.wall)
  elseif code and code > 128 then msg = ("signal %d%s"):format(code - 128, msg ~= "" and (": " .. msg) or "")
  elseif code == 0 then msg = "it wrote no JSON" end
  return nil, ("%s (exit %s)"):format(msg ~= "" and msg or "no message", tostring(code))
end

return runner
