--- clua.recipe: a recipe's object `R`: its device, context, queue and
-- programs, made when first used; timing defaults; and its run (errors end
-- it non-zero with no figure printed). The rest of `R` comes from the
-- modules of one concern each: clua.cli (the command line), clua.harness
-- (the measurement cycle: `R:input`, `R:output`, `R:measure`, `R:verify`),
-- clua.assign (assignment mode: `R:with_student`, `R:rank`) and clua.output
-- (`R:emit`, `R:plot`, `R:timeline`, the output files).
-- @module clua.recipe
local units = require("clua.units")
local timing = require("clua.timing")
local tablemodel = require("clua.tablemodel")
local devicemod = require("clua.device")
local optcheck = require("clua.options")
local cli = require("clua.cli")
local output = require("clua.output")
local assign = require("clua.assign")
local checkrule = require("clua.checkrule")

local recipe = {}

local Recipe = {}

--- The clua version: cl.version when the runtime has it, else the global
-- CLUA_VERSION, else "unknown".
function recipe.version()
  local ok, cl = pcall(require, "cl")
  local v = ok and type(cl) == "table" and (cl.version or cl.VERSION)
  return tostring(v or rawget(_G, "CLUA_VERSION") or "unknown")
end

--- True when CLUA_CORRUPT asks this recipe to corrupt its output: "1" or "all"
-- for every recipe, or a comma-separated list of recipe names.
function recipe.corrupt_requested(name, value)
  value = value or os.getenv("CLUA_CORRUPT")
  if not value or value == "" or value == "0" then return false end
  if value == "1" or value == "all" then return true end
  for w in value:gmatch("[^,%s]+") do if w == name then return true end end
  return false
end

local function cl() return require "cl" end

local lazy = {
  device = function(self) return cl().device(self.args.device) end,
  ctx = function(self) return cl().context(self.device) end,
  queue = function(self) return self:new_queue() end,
  facts = function(self) return devicemod.facts(self.device) end,
}

Recipe.__index = function(self, k)
  local m = Recipe[k]
  if m ~= nil then return m end
  local f = lazy[k]
  if f then
    local v = f(self)
    rawset(self, k, v)
    return v
  end
end

--- The running script's name: its file's, without the folder and `.lua`
-- (`mywork/vsize.lua` gives `"vsize"`), or nil where there is no script.
-- @treturn ?string the name
function recipe.script_name()
  local script = rawget(_G, "arg") and arg[0]
  return type(script) == "string" and script:match("([^/]+)%.lua$") or nil
end

local TIME_OPTIONS = table.move(timing.OPTIONS, 1, #timing.OPTIONS, 3, { "label", "once" })

recipe.OPTIONS = { "name", "description", "seed", "options", "size", "quick_size", "check_size", "unchecked", "reps",
  "quick_reps", "warmup", "args", "out", "err", "exit", "student", "student_name", "size_unit", "size_share" }

--- A new recipe `R` (the methods `Recipe:...` below): its options parsed.
-- recipe.new{name=, description=, seed=, options=function(parser) end,
--   size=, quick_size=, check_size=, reps=10, quick_reps=3, warmup=2, args=, out=, err=, exit=}
-- (name: default the script's, recipe.script_name)
-- check_size is the size of --check-size (small enough for Oclgrind; default quick_size);
-- unchecked, what Oclgrind cannot check in the recipe's kernels, said by every
-- `clua check` of it: a list of {kind =, kernels =, why =} (clua.checkrule).
-- Parses `args` (default: the script's `arg`) with the shared options and the
-- recipe's own; --help prints the help and exits. `seed` names the seed
-- document section the recipe reproduces. Nothing touches OpenCL until the
-- recipe first reads R.device, R.ctx, R.queue or R.facts. out, err and exit
-- (default io.stdout, io.stderr, os.exit) are replaceable for specs.
-- size_unit: the bytes of one unit of --size where it counts elements
-- (default 1: --size is bytes); size_share: a --size may take 1/size_share
-- of the device's global memory (default 4; 8 for a recipe that holds more
-- arrays of it); a --size more than that, or than one buffer, is refused
-- with the option errors (clua.cli.size_refused), never capped unsaid.
-- description, seed and student are prose: written as long strings
-- (`[[...]]` over several lines), each run of white space reads as one space.
function recipe.new(spec)
  optcheck.check(spec, "recipe.new", recipe.OPTIONS)
  for _, k in ipairs({ "description", "seed", "student" }) do
    if type(spec[k]) == "string" then spec[k] = spec[k]:gsub("%s+", " "):match("^ ?(.-) ?$") end
  end
  spec.name = spec.name or recipe.script_name()
  local self = setmetatable({ name = spec.name or "recipe", spec = spec, out = spec.out or io.stdout,
    err = spec.err or io.stderr, exit = spec.exit or os.exit, emitted = {}, plots = {},
    timelines = {} }, Recipe)
  if spec.unchecked ~= nil then checkrule.validate(spec.unchecked) end
  cli.parse(self, spec)
  if spec.unchecked ~= nil then checkrule.declare(spec.unchecked) end
  self.corrupt = recipe.corrupt_requested(self.name)
  return self
end

--- A new command queue on R.ctx for R.device (profiling on unless opts say otherwise).
function Recipe:new_queue(opts)
  opts = opts or {}
  if opts.profiling == nil then opts.profiling = true end
  return self.ctx:queue(self.device, opts)
end

local function defines_key(d)
  local keys = {}
  for k in pairs(d or {}) do keys[#keys + 1] = k end
  table.sort(keys)
  for i, k in ipairs(keys) do keys[i] = k .. "=" .. tostring(d[k]) end
  return table.concat(keys, " ")
end

-- The current folder.
local function cwd()
  local ok, lfs = pcall(require, "lfs")
  if ok and lfs.currentdir then return lfs.currentdir() end
  return os.getenv("PWD") or "."
end

-- "cannot open kernel file 'x.cl': looked for /a/x.cl (beside the script),
-- /b/x.cl (as given, from the current folder) and /root/kernels/x.cl".
local function not_found(file, dir)
  local places = {}
  if file:find("^/") then
    places[1] = file
  else
    local here = cwd()
    if dir and not dir:find("^/") then dir = dir == "." and here or (here .. "/" .. dir) end
    if dir and dir ~= here then places[#places + 1] = dir .. "/" .. file .. " (beside the script)" end
    places[#places + 1] = here .. "/" .. file .. (dir == here and " (beside the script, the current folder)"
      or " (as given, from the current folder)")
    local ok, mod = pcall(require, "cl")
    local root = ok and type(mod) == "table" and mod.root
    if root then places[#places + 1] = root .. "/kernels/" .. file .. " (clua's kernels folder)" end
  end
  local list = #places == 1 and places[1]
    or table.concat(places, ", ", 1, #places - 1) .. " and " .. places[#places]
  return ("R:program: cannot open kernel file '%s': looked for %s"):format(file, list)
end

--- A program built from `file` (looked up beside the running script, then as
-- given, then under clua's kernels/ folder; an error names every place looked) with
-- `defines` ({N=16, USE_X=true}) and build `options`, cached per device.
function Recipe:program(file, defines, options)
  self.programs = rawget(self, "programs") or {}
  -- a kernel beside the running script comes first (mywork/vsize.lua + mywork/vsize.cl)
  local script = rawget(_G, "arg") and arg[0]
  local dir = type(script) == "string" and script:match("^(.*)/[^/]*$")
  if dir and not file:find("^/") then
    local f = io.open(dir .. "/" .. file)
    if f then f:close(); file = dir .. "/" .. file end
  end
  local key = table.concat({ file, defines_key(defines), options or "" }, "\0")
  local prog = self.programs[key]
  if not prog then
    local ok, src = pcall(self.ctx.program_file, self.ctx, file)
    if not ok then
      if tostring(src):find("cannot open kernel file", 1, true) then
        error(not_found(file, dir or (type(script) == "string" and ".")), 3)
      end
      error(src, 0)
    end
    prog = src:build(options, defines)
    self.programs[key] = prog
  end
  return prog
end

--- A kernel by name from R:program(file, defines, options).
function Recipe:kernel(file, name, defines, options)
  return self:program(file, defines, options):kernel(name)
end

--- Times a step: clua.timing.run with the recipe's defaults.
-- The defaults: --reps and --warmup (which
-- override the recipe's own opts.reps / opts.target_ms when given), R.queue
-- for host timing. opts.label is shown as progress (Recipe:progress), with
-- the repetition it is at; opts.once (assignment mode's --grading) runs the
-- step once, without warm-up, whatever the options.
function Recipe:time(step, opts)
  local o = {}
  for k, v in pairs(optcheck.check(opts, "R:time", TIME_OPTIONS)) do o[k] = v end
  if o.once then o.reps, o.warmup, o.target_ms = 1, 0, nil
  elseif self.reps_given then o.reps, o.target_ms = self.reps, nil
  elseif not o.reps and not o.target_ms then o.reps = self.reps end
  if not o.once and (self.warmup_given or o.warmup == nil) then o.warmup = self.warmup end
  o.once = nil
  if o.queue == nil and o.finish == nil then
    local q = rawget(self, "queue")
    o.finish = q and function() q:finish() end or function() self.queue:finish() end
  end
  if o.label then
    local label = o.label
    self.measured = (rawget(self, "measured") or 0) + 1
    self:progress("%s", label)
    if o.progress == nil then o.progress = function(i, n) self:progress("%s: repetition %d of %d", label, i, n) end end
  end
  o.label = nil
  return timing.run(step, o)
end

--- Launches a kernel once on R.queue (or `opts.queue`) and waits for it, to
-- learn whether the driver runs this configuration.
-- A kernel's CL_KERNEL_WORK_GROUP_SIZE is no reliable ceiling (NVIDIA's
-- driver reports 256 for most kernels and runs them in groups of 1024), so a
-- recipe sizes its groups up to the device's `max_work_group_size` and asks
-- the driver: a refusal of the local size (CL_INVALID_WORK_GROUP_SIZE or
-- CL_OUT_OF_RESOURCES from the launch) comes back as a value, any other
-- error is raised. The kernel runs once when accepted: set its arguments
-- first, and mind the launch's effect on its outputs; with `outputs` (as
-- `R:measure`'s) their declared writes are checked against their buffers
-- first (`R:check_outputs`), so that a buffer too small is an error, not a
-- launch that writes past it.
-- @tparam cl.kernel kernel the kernel, its arguments set
-- @param global the global size, as for `queue:launch`
-- @param lsize the local size, as for `queue:launch`
-- @tab[opt] opts `queue:launch`'s options, `queue` (default R.queue) and `outputs`
-- @treturn[1] boolean true when the driver ran it
-- @treturn[2] boolean false when the driver refused it
-- @treturn[2] string the refusal: `"CL_INVALID_WORK_GROUP_SIZE (...)"`
-- @usage local ok, why = R:try_launch(k, { 1024, 1024 }, { 32, 32 })
-- if not ok then t:note("32 x 32 left out: the driver refused it: " .. why) end
function Recipe:try_launch(kernel, global, lsize, opts)
  local q = opts and opts.queue or self.queue
  local lo
  if opts then
    lo = {}
    for k, v in pairs(opts) do if k ~= "queue" and k ~= "outputs" then lo[k] = v end end
    if opts.outputs then self:check_outputs(opts.outputs, "R:try_launch", ("kernel '%s'"):format(kernel.name)) end
  end
  local ok, err = pcall(q.launch, q, kernel, global, lsize, lo)
  if not ok then
    local msg = tostring(err)
    local why = msg:match("(CL_INVALID_WORK_GROUP_SIZE.*)$") or msg:match("(CL_OUT_OF_RESOURCES.*)$")
    if not why then error(err, 0) end
    return false, why
  end
  q:finish()
  return true
end

--- Effective bandwidth of `bytes` moved in `ns`, in R.bw_unit (GB/s or GiB/s).
function Recipe:bw(bytes, ns) return units.gbps(bytes, ns, self.divisor) end

--- The metadata every output carries.
function Recipe:meta()
  local f = self.facts
  return { recipe = self.name, device = f.name, platform = f.platform, driver = f.driver,
    clua = recipe.version(), date = os.date("!%Y-%m-%dT%H:%M:%SZ"), reps = self.reps,
    warmup = self.warmup, bandwidth = units.bw_header(self.divisor),
    options = #self.argv > 0 and table.concat(self.argv, " ") or "(defaults)" }
end

--- tablemodel.new with the recipe's metadata and the device's theoretical bandwidths; a
-- list among the columns (`R:time_columns`) stands for its columns.
function Recipe:table(spec)
  local cols = {}
  for _, c in ipairs(spec.columns or {}) do
    if type(c) == "table" and c.name == nil and c[1] then -- a list of columns (R:time_columns)
      for _, x in ipairs(c) do cols[#cols + 1] = x end
    else
      cols[#cols + 1] = c
    end
  end
  spec.columns = cols
  local t = tablemodel.new(spec)
  for k, v in pairs(self:meta()) do if t.meta[k] == nil then t.meta[k] = v end end
  if t.theoretical == nil then t.theoretical = self.facts end
  assign.note_grading(self, t)
  return t
end

for _, mod in ipairs({ output, assign, (require "clua.harness"), (require "clua.rows"), (require "clua.figures") }) do
  for k, f in pairs(mod.methods) do Recipe[k] = f end
end

--- clua.output.merge_by_device: the tables of a run on every device, merged by id.
function recipe.merge_by_device(tables) return output.merge_by_device(tables) end
--- clua.output.output_path: FILE, or FILE's stem .. "." .. id .. extension.
function recipe.output_path(path, id, count) return output.output_path(path, id, count) end
--- clua.output.meta_path: the metadata sidecar of a CSV file.
function recipe.meta_path(csv_path) return output.meta_path(csv_path) end

-- The library's own folder (lua/clua/), as its chunks name it.
local LIB = (debug.getinfo(1, "S").source:match("^@(.*/)[^/]*$")) or "?"

--- An error raised inside the library for the caller's mistake names the
-- caller's file and line, not the library's: `msg`'s leading `FILE:LINE: `,
-- when FILE is in clua's library, becomes that of the first Lua function on
-- the stack (from `level` up) outside it: the recipe's line that called.
-- @string msg the error message
-- @int level the stack level to start from
-- @treturn string the message
function recipe.user_location(msg, level)
  local file = msg:match("^(.-):%d+: ")
  if not file or file:sub(1, #LIB) ~= LIB then return msg end
  local l = (level or 1) + 1
  while true do
    local info = debug.getinfo(l, "Sl")
    if not info then return msg end
    if info.what ~= "C" and info.currentline > 0 and info.source:sub(1, 1) == "@"
      and info.source:sub(2, #LIB + 1) ~= LIB then
      return ("%s:%d: %s"):format(info.source:sub(2), info.currentline, msg:gsub("^.-:%d+: ", "", 1))
    end
    l = l + 1
  end
end

--- Runs the recipe's body and writes its output files.
-- Runs body(R, device, device.info), once, or once per device with --device
-- all (R.device, R.ctx, R.queue, R.facts set anew for each). Any error,
-- verification failures included, prints "recipe NAME: message" on stderr
-- and exits with status 1 (CLUA_TRACEBACK=1 adds the traceback). On success
-- it writes --csv/--json/--svg/--trace files and returns true. R.timeout
-- (--timeout; 60 s in assignment mode) is cl.timeout while the body runs.
function Recipe:main(body)
  self.started = output.now_ns()
  local before = self.timeout and cl().timeout()
  if self.timeout then cl().timeout(self.timeout) end
  local ok, err = xpcall(function()
    if self.all_devices then
      for _, d in ipairs(cl().devices()) do
        for _, k in ipairs({ "device", "ctx", "queue", "facts", "programs", "guard" }) do rawset(self, k, nil) end
        rawset(self, "device", d)
        body(self, d, d.info)
        output.add_roofline_table(self)
      end
      local merged = output.merge_by_device(self.emitted)
      output.print_merged(self, merged)
      output.write_files(self, merged, recipe.version())
    else
      local d = self.device
      body(self, d, d.info)
      output.add_roofline_table(self)
      output.clear_progress(self)
      output.write_files(self, self.emitted, recipe.version())
    end
  end, function(e)
    local msg = recipe.user_location(type(e) == "string" and e or tostring(e), 2)
    if os.getenv("CLUA_TRACEBACK") == "1" then msg = debug.traceback(msg, 2) end
    return msg
  end)
  if self.timeout then cl().timeout(before or false) end
  if not ok then
    output.clear_progress(self)
    self.out:flush()
    -- a compiler's log or a file's name: shown, never sent to the terminal as control codes
    self.err:write(("recipe %s: %s\n"):format(self.name, require("clua.escape").terminal(err, { lines = true })))
    self.exit(1)
    return false, err
  end
  return true
end

return recipe
