--- clua.recipe: the conventions every recipe shares: options, device, queues,
-- programs, timing defaults, verification, output (terminal, Markdown, CSV,
-- JSON, --compare, SVG, trace) and errors (exit non-zero, no figure printed).
-- @module clua.recipe
local argparse = require "argparse"
local units = require "clua.units"
local timing = require "clua.timing"
local report = require "clua.report"
local verify = require "clua.verify"
local noise = require "clua.noise"
local roofline = require "clua.roofline"
local guard = require "clua.guard"
local devicemod = require "clua.device"
local optcheck = require "clua.options"

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

local function positive_int(s)
  local n = math.tointeger(tonumber(s))
  if not n or n < 0 then return nil, "a whole number >= 0 expected, got '" .. tostring(s) .. "'" end
  return n
end

local function seconds(s)
  local n = tonumber(s)
  if not n or n <= 0 or n == math.huge then return nil, "a number of seconds > 0 expected, got '" .. tostring(s) .. "'" end
  return n
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

local TIME_OPTIONS = table.move(timing.OPTIONS, 1, #timing.OPTIONS, 2, { "label" })

recipe.OPTIONS = { "name", "description", "seed", "options", "size", "quick_size", "reps", "quick_reps", "warmup",
  "args", "out", "err", "exit", "student", "student_name" }

--- A new recipe `R` (the methods `Recipe:...` below): its options parsed.
-- recipe.new{name=, description=, seed=, options=function(parser) end,
--   size=, quick_size=, reps=10, quick_reps=3, warmup=2, args=, out=, err=, exit=}
-- Parses `args` (default: the script's `arg`) with the shared options and the
-- recipe's own; --help prints the help and exits. `seed` names the seed
-- document section the recipe reproduces. Nothing touches OpenCL until the
-- recipe first reads R.device, R.ctx, R.queue or R.facts. out, err and exit
-- (default io.stdout, io.stderr, os.exit) are replaceable for specs.
function recipe.new(spec)
  optcheck.check(spec, "recipe.new", recipe.OPTIONS)
  local self = setmetatable({ name = spec.name or "recipe", spec = spec, out = spec.out or io.stdout,
    err = spec.err or io.stderr, exit = spec.exit or os.exit, emitted = {}, plots = {},
    timelines = {} }, Recipe)
  local epilog = (spec.seed and ("Reproduces: " .. spec.seed .. ".\n") or "") ..
    "Environment: CLUA_DEVICE selects the default device; CLUA_CORRUPT=1 (or a list of " ..
    "recipe names) corrupts one output element before verification, which must then fail." ..
    (spec.student and ("\nAssignment mode (--kernel FILE): " .. spec.student) or "")
  local p = argparse(spec.name, spec.description, epilog)
  local reps, quick_reps = spec.reps or 10, spec.quick_reps or 3
  p:option("--device", "Device: a name, an index P:D, or all (every device)."):argname("DEV")
  p:flag("--quick", "Small sizes and few repetitions (for CI).")
  p:option("--reps", ("Timed repetitions (default %d, %d with --quick)."):format(reps, quick_reps))
    :argname("N"):convert(positive_int)
  p:option("--warmup", ("Untimed warm-up runs (default %d)."):format(spec.warmup or 2))
    :argname("N"):convert(positive_int)
  p:option("--size", "Problem size, e.g. 4096, 64K, 256MiB, 1e6" ..
    (spec.size and (" (default " .. spec.size .. (spec.quick_size and (", " .. spec.quick_size
      .. " with --quick") or "") .. ").") or "."))
    :argname("SIZE"):convert(units.parse_size)
  p:option("--csv", "Write the tables as CSV."):argname("FILE")
  p:option("--json", "Write the tables and metadata as JSON."):argname("FILE")
  p:flag("--md", "Print Markdown instead of aligned text.")
  p:option("--svg", "Write the plot as SVG."):argname("FILE")
  p:option("--trace", "Write the timeline as Chrome trace JSON (Perfetto)."):argname("FILE")
  p:option("--compare", "Show each row's ratio to a saved --json of an earlier run."):argname("FILE")
  p:flag("--gib", "Bandwidth in GiB/s (2^30) instead of GB/s (10^9).")
  p:option("--timeout", "End with an error when a wait for the device takes longer than S seconds (a kernel " ..
    "that never ends); default: CLUA_TIMEOUT, else none" .. (spec.student and ", or 60 with --kernel" or "") .. ".")
    :argname("S"):convert(seconds)
  if spec.student then
    p:option("--kernel", "Assignment mode: also time your own kernel from FILE, verified like the "
      .. "recipe's and ranked beside them (see below for what it must do)."):argname("FILE")
    p:option("--kernel-name", "The kernel of --kernel FILE to use (default: " ..
      (spec.student_name and ("'" .. spec.student_name .. "', or ") or "") .. "the file's only kernel)."):argname("NAME")
  end
  if spec.options then spec.options(p) end
  self.parser = p

  local argv = spec.args or rawget(_G, "arg") or {}
  local list = table.move(argv, 1, #argv, 1, {})
  local ok, a = p:pparse(list)
  if not ok then
    self.err:write(p:get_usage(), "\n", ("recipe %s: %s\n"):format(self.name, a))
    self.exit(2)
    error(a, 0) -- when exit is replaced (specs)
  end
  self.args, self.argv = a, list
  self.quick = a.quick or false
  self.reps_given, self.warmup_given = a.reps ~= nil, a.warmup ~= nil
  self.reps = a.reps or (self.quick and quick_reps or reps)
  self.warmup = a.warmup or spec.warmup or 2
  self.size = a.size or (self.quick and spec.quick_size and units.parse_size(spec.quick_size))
    or (spec.size and units.parse_size(spec.size)) or nil
  self.divisor = a.gib and units.GiB or units.GB
  self.bw_unit = units.bw_unit(self.divisor)
  self.corrupt = recipe.corrupt_requested(self.name)
  self.all_devices = (a.device or os.getenv("CLUA_DEVICE")) == "all"
  -- A student's kernel may never end: assignment mode waits 60 s at most
  -- unless --timeout or CLUA_TIMEOUT says otherwise.
  local env_timeout = os.getenv("CLUA_TIMEOUT")
  self.timeout = a.timeout or ((not env_timeout or env_timeout == "") and a.kernel and 60) or nil
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

--- A program built from `file` (looked up under clua's kernels/ folder) with
-- `defines` ({N=16, USE_X=true}) and build `options`, cached per device.
function Recipe:program(file, defines, options)
  self.programs = rawget(self, "programs") or {}
  local key = table.concat({ file, defines_key(defines), options or "" }, "\0")
  local prog = self.programs[key]
  if not prog then
    prog = self.ctx:program_file(file):build(options, defines)
    self.programs[key] = prog
  end
  return prog
end

--- A kernel by name from R:program(file, defines, options).
function Recipe:kernel(file, name, defines, options)
  return self:program(file, defines, options):kernel(name)
end

--- Assignment mode: the student's kernel, or nil.
-- The kernel is given by `--kernel FILE`.
-- Only recipes made with `spec.student` (the contract the kernel must meet,
-- shown by `--help`) take `--kernel`. FILE is built for `R.device` as the
-- recipe's own kernels are (`R:program`: the path as given, else under
-- clua's `kernels/`; a build error raises with the compiler's log), and the
-- kernel taken is `--kernel-name`, else `default_name` when FILE has it
-- (`spec.student_name` when omitted), else FILE's only kernel.
-- The recipe then verifies it against its CPU reference before timing it,
-- adds it as a row of its table and ranks the rows (`R:rank`).
-- @string[opt] default_name the kernel name to look for
-- @tab[opt] defines build defines, as for `R:program`
-- @string[opt] options build options
-- @treturn[1] cl.kernel the kernel
-- @treturn[1] string its label for tables: `"student: NAME (FILE)"`
-- @return[2] nil without `--kernel`
-- @raise `--kernel FILE: no kernel NAME (it has: ...)`, or the build log
-- @usage local sk, label = R:student_kernel("reduce", { WARP_SYNC = 0 })
-- if sk then ... end
function Recipe:student_kernel(default_name, defines, options)
  local file = self.args.kernel
  if not file then return nil end
  default_name = default_name or self.spec.student_name
  local prog = self:program(file, defines, options)
  local names = prog:kernels()
  local has = {}
  for _, k in ipairs(names) do has[k] = true end
  local name = self.args.kernel_name
  if not name then
    if default_name and has[default_name] then name = default_name
    elseif #names == 1 then name = names[1]
    else
      error(("--kernel %s: %s; name one with --kernel-name (it has: %s)"):format(file,
        #names == 0 and "no kernel" or "more than one kernel", table.concat(names, ", ")), 0)
    end
  elseif not has[name] then
    error(("--kernel %s: no kernel %s (it has: %s)"):format(file, name, table.concat(names, ", ")), 0)
  end
  self.student_label = ("student: %s (%s)"):format(name, file:match("[^/]*$"))
  return prog:kernel(name), self.student_label
end

--- A buffer for the kernels of a recipe that takes a student's kernel. In
-- assignment mode (`--kernel`) it is guarded (clua.guard): a sub-buffer
-- between two zones of a pattern, which `R:check_student` checks after each
-- kernel, so that a write outside it (or, with opts.input, any change of an
-- input) fails verification naming the buffer, the offset and the bytes.
-- Without `--kernel`, a plain buffer.
-- @string name the buffer's name in messages ("out", "a")
-- @param data a cl.array (copied to the device) or a size in bytes
-- @tab[opt] opts `input` (true: the kernel must not change it), `flags` (as for ctx:buffer)
-- @treturn cl.buffer
-- @usage local dA = R:student_buffer("a", A, { input = true, flags = "read_only" })
function Recipe:student_buffer(name, data, opts)
  opts = optcheck.check(opts, "R:student_buffer", { "input", "flags" })
  if not self.args.kernel then return self.ctx:buffer(data, opts.flags) end
  local g = rawget(self, "guard")
  if not g or g.ctx ~= self.ctx then
    g = guard.new(self.ctx, self.queue)
    self.guard = g
  end
  return g:buffer(name, data, { input = opts.input, flags = opts.flags })
end

--- In assignment mode, checks every buffer of `R:student_buffer` after a
-- kernel ran (zones untouched, inputs unchanged) and raises naming the
-- buffer, offset and bytes, e.g. `student: out: 4 bytes written at offset
-- 1048576, past the end (1048576 bytes) (after student: k (k.cl))`; the zones
-- and inputs are then restored for the next kernel. Without `--kernel`, nothing.
-- @string[opt] when the kernel that ran, for the message
function Recipe:check_student(when)
  local g = rawget(self, "guard")
  if not g then return end
  g:check(when and ("after " .. when))
  g:reset()
end

--- Forgets every buffer `R:student_buffer` made (no more checks of them), so
-- that a recipe sweeping sizes can let each size's buffers go: the next
-- `R:student_buffer` starts a new set.
function Recipe:drop_student_buffers()
  self.guard = nil
end

--- Ranks the rows of a table by one column, smallest first (a time), in a
-- new `rank` column (1 = fastest). Rows for which `filter` returns false
-- (references such as a copy kernel) get no rank. When a student's kernel
-- (`R:student_kernel`) is among the rows, a note says where it ranks.
-- @tparam clua.report t the table, its rows already added
-- @string column the column to rank by (smaller is better)
-- @tparam[opt] function filter `filter(row)`: true for the rows to rank
-- @tab[opt] opts `name`: the column that names the best row in the note
-- (default the table's first); `prefix`: the note's start, for ranks within a
-- group of rows (`"tile 16: "`)
-- @treturn {table,...} the ranked rows, best first
function Recipe:rank(t, column, filter, opts)
  opts = optcheck.check(opts, "R:rank", { "name", "prefix" })
  local ranked = {}
  for _, row in ipairs(t.rows) do
    if row[column] ~= nil and (not filter or filter(row)) then ranked[#ranked + 1] = row end
  end
  table.sort(ranked, function(a, b) return a[column] < b[column] end)
  if not t:column("rank") then t.columns[#t.columns + 1] = { name = "rank", format = "%d" } end
  for i, row in ipairs(ranked) do row.rank = i end
  local label = rawget(self, "student_label")
  if label then
    for i, row in ipairs(ranked) do
      for _, v in pairs(row) do
        if v == label then
          t:note(("%s%s ranks %d of %d by %s%s"):format(opts.prefix or "", label, i, #ranked, column,
            i == 1 and "" or (" (the best: " .. tostring(ranked[1][opts.name or t.columns[1].name]) .. ")")))
        end
      end
    end
  end
  return ranked
end

--- R:rank within each group of rows: the rows whose `group` column holds
-- each of `values` are ranked among themselves (products of two tiles differ
-- in work), the best named by the `name` column; with more than one group
-- each note starts with its group ("tile 16: ").
-- @tparam clua.report t the table
-- @string column the column to rank by
-- @string group the column that groups the rows
-- @tparam {any,...} values the groups, in order
-- @string[opt] name the column that names the best row
function Recipe:rank_within(t, column, group, values, name)
  for _, v in ipairs(values) do
    self:rank(t, column, function(row) return row[group] == v end,
      { name = name, prefix = #values > 1 and ("%s %s: "):format(group, tostring(v)) or nil })
  end
end

--- Times a step: clua.timing.run with the recipe's defaults.
-- The defaults: --reps and --warmup (which
-- override the recipe's own opts.reps / opts.target_ms when given), R.queue
-- for host timing. opts.label is shown as progress.
function Recipe:time(step, opts)
  local o = {}
  for k, v in pairs(optcheck.check(opts, "R:time", TIME_OPTIONS)) do o[k] = v end
  if self.reps_given then o.reps, o.target_ms = self.reps, nil
  elseif not o.reps and not o.target_ms then o.reps = self.reps end
  if self.warmup_given or o.warmup == nil then o.warmup = self.warmup end
  if o.queue == nil and o.finish == nil then
    local q = rawget(self, "queue")
    o.finish = q and function() q:finish() end or function() self.queue:finish() end
  end
  if o.label then self:progress("timing " .. o.label) end
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
-- first, and mind the launch's effect on its outputs.
-- @tparam cl.kernel kernel the kernel, its arguments set
-- @param global the global size, as for `queue:launch`
-- @param lsize the local size, as for `queue:launch`
-- @tab[opt] opts `queue:launch`'s options, and `queue` (default R.queue)
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
    for k, v in pairs(opts) do if k ~= "queue" then lo[k] = v end end
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

--- A column spec for a bandwidth: {name=, unit=R.bw_unit, divisor=, theoretical=}
-- with a % of the theoretical memory (or opts.theoretical = "pcie") bandwidth.
function Recipe:bw_column(name, opts)
  opts = optcheck.check(opts, "R:bw_column", { "format", "theoretical", "compare", "key" })
  return { name = name, unit = self.bw_unit, divisor = self.divisor, format = opts.format or "%.1f",
    theoretical = opts.theoretical == nil and "memory" or opts.theoretical or nil,
    compare = opts.compare ~= false, key = opts.key }
end

--- The metadata every output carries.
function Recipe:meta()
  local f = self.facts
  return { recipe = self.name, device = f.name, platform = f.platform, driver = f.driver,
    clua = recipe.version(), date = os.date("!%Y-%m-%dT%H:%M:%SZ"), reps = self.reps,
    warmup = self.warmup, bandwidth = units.bw_header(self.divisor),
    options = #self.argv > 0 and table.concat(self.argv, " ") or "(defaults)" }
end

--- report.new with the recipe's metadata and the device's theoretical bandwidths.
function Recipe:table(spec)
  local t = report.new(spec)
  for k, v in pairs(self:meta()) do if t.meta[k] == nil then t.meta[k] = v end end
  if t.theoretical == nil then t.theoretical = self.facts end
  return t
end

--- verify.arrays: raises (and so ends the recipe with an error) on a mismatch.
function Recipe:verify(name, got, expected, opts) -- luacheck: ignore self
  return verify.arrays(name, got, expected, opts)
end

--- When R.corrupt (CLUA_CORRUPT), changes element i (0-based; default the
-- middle one) of a cl.array or Lua list so that verification must fail.
-- Returns true when it changed something.
function Recipe:corrupt_one(a, i)
  if not self.corrupt then return false end
  local n = #a
  i = i or n // 2
  local k = type(a) == "table" and i + 1 or i
  local v = a[k]
  if math.type(v) == "integer" then a[k] = v == 0 and 1 or 0
  else a[k] = v + math.max(1, math.abs(v)) end
  return true
end

local function is_tty()
  local env = os.getenv("CLUA_PROGRESS")
  if env then return env ~= "0" end
  return os.execute("test -t 2") == true
end

local function now_ns()
  local ok, c = pcall(require, "cl")
  if ok and type(c) == "table" and c.now then return c.now() end
  return os.time() * 1e9
end

--- A progress line on stderr, shown only when stderr is a terminal (or
-- CLUA_PROGRESS=1) and the recipe has been running for more than a second.
function Recipe:progress(fmt, ...)
  if rawget(self, "tty") == nil then self.tty = is_tty() end
  if not self.tty then return end
  if now_ns() - (self.started or 0) < 1e9 then return end
  local msg = select("#", ...) > 0 and fmt:format(...) or fmt
  self.err:write("\r\27[K", self.name, ": ", msg)
  self.err:flush()
  self.progress_shown = true
end

local function clear_progress(self)
  if self.progress_shown then self.err:write("\r\27[K"); self.progress_shown = false end
end

local function saved(self)
  if self.args.compare and not self.saved then self.saved = report.load(self.args.compare) end
  return self.saved
end

local function render(self, t)
  if self.args.compare then t = report.compare(t, saved(self), { file = self.args.compare }) end
  return self.args.md and report.markdown(t) or report.text(t)
end

--- Declares a kernel's work for the report card's roofline: the operations
-- it did (a multiply-add is 2, an add 1; a copy none) and the bytes it moved
-- (its compulsory traffic), with its median time. The points go to the
-- recipe's JSON as the table "roofline-points" (clua.roofline), not printed.
-- @string kernel the variant, as the recipe's tables name it
-- @tab work `ops`, `bytes`, `ns`, `type` ("float" by default; "double", "int")
-- @usage R:roofline_point("triad", { ops = 2 * n, bytes = 3 * 4 * n, ns = t.median })
function Recipe:roofline_point(kernel, work)
  optcheck.check(work, "R:roofline_point", { "ops", "bytes", "ns", "type" })
  local points = rawget(self, "roofline_points")
  if not points then points = {}; self.roofline_points = points end
  points[#points + 1] = roofline.point(kernel, work)
end

local function add_roofline_table(self)
  local points = rawget(self, "roofline_points")
  if points and #points > 0 then
    local t = roofline.table(points, function(spec) return self:table(spec) end)
    t.device_name = self.facts.name
    if self.all_devices then t.device_index = devicemod.index(self.device) end
    self.emitted[#self.emitted + 1] = t
    self.roofline_points = nil
  end
end

-- A table with a time column followed by "min" and "max" (of the same
-- repetitions, in ns) gets a spread column after them (clua.noise), so that
-- every timed figure carries its spread and noisy rows are flagged.
local function add_spread(t)
  if t:column("spread") then return end
  local imin, imax
  for i, c in ipairs(t.columns) do
    if c.name == "min" then imin = i elseif c.name == "max" then imax = i end
  end
  if not (imin and imax and imin > 1 and imax == imin + 1) then return end
  local mid = t.columns[imin - 1]
  if not (mid.ns and t.columns[imin].ns and t.columns[imax].ns) then return end
  local c = noise.column()
  c.derived = true
  c.value = function(row)
    local lo, hi, m = row.min, row.max, row[mid.name]
    if type(lo) == "number" and type(hi) == "number" and type(m) == "number" and m > 0 then
      return (hi - lo) / m * 100
    end
  end
  table.insert(t.columns, imax + 1, c)
end

--- Prints a table and keeps it for the output files.
-- The table is printed as aligned text (or Markdown with --md; with ratios to the
-- saved run with --compare) and keeps it for --csv and --json; a table with a
-- spread column (clua.noise) whose rows spread too wide gets clua.noise's note
-- (a table with min and max columns after a time gets the spread column). With
-- --device all, tables are printed at the end, one per id, with a device column.
function Recipe:emit(t)
  add_spread(t)
  local flag = not t.noise_noted and noise.note(t)
  if flag then t:note(flag); t.noise_noted = true end
  t.device_name = rawget(self, "device") and self.facts.name
  if self.all_devices and rawget(self, "device") then t.device_index = devicemod.index(self.device) end
  self.emitted[#self.emitted + 1] = t
  if self.all_devices then return t end
  clear_progress(self)
  self.out:write(render(self, t), "\n")
  self.out:flush()
  return t
end

local function fence(self, text)
  if self.args.md then return "```\n" .. text .. "```\n" end
  return text
end

--- Prints a sweep (clua.plot) in the terminal.
-- It is kept for --svg.
function Recipe:plot(p)
  if self.all_devices and rawget(self, "device") then p.title = p.title .. " — " .. self.facts.name end
  self.plots[#self.plots + 1] = p
  clear_progress(self)
  self.out:write(fence(self, p:text()), "\n")
  return p
end

--- Prints a timeline (clua.timeline) as a Gantt chart.
-- It is kept for --trace.
function Recipe:timeline(tl)
  if rawget(self, "device") then tl.process = self.facts.name end
  self.timelines[#self.timelines + 1] = tl
  clear_progress(self)
  self.out:write(fence(self, tl:text()), "\n")
  return tl
end

--- Merges the tables of a run on every device.
-- The tables of a --device all run, merged by id: a leading device column,
-- and the "% of peak" figures of each device already computed.
function recipe.merge_by_device(tables)
  local order, by = {}, {}
  for _, t in ipairs(tables) do
    if not by[t.id] then by[t.id] = {}; order[#order + 1] = t.id end
    table.insert(by[t.id], t)
  end
  local out = {}
  for _, id in ipairs(order) do
    local first = by[id][1]
    local cols = { { name = "device", key = true } }
    for _, c in ipairs(first:resolved_columns()) do
      cols[#cols + 1] = { name = c.name, unit = c.unit, key = c.key, compare = c.compare,
        format = c.format, divisor = c.divisor }
    end
    local m = report.new{ title = first.title, id = id, columns = cols, meta = first.meta,
      notes = first.notes }
    -- two devices of one name (two GPUs of a kind) are told apart by P:D
    local seen = {}
    for _, t in ipairs(by[id]) do seen[t.device_name or "?"] = (seen[t.device_name or "?"] or 0) + 1 end
    local names = {}
    for _, t in ipairs(by[id]) do
      local label = t.device_name or "?"
      if seen[label] > 1 and t.device_index then label = ("%s [%s]"):format(label, t.device_index) end
      names[#names + 1] = label
      for _, row in ipairs(t:data().rows) do
        row.device = label
        m:add(row)
      end
    end
    m.meta.device = table.concat(names, " | ")
    m.meta.driver, m.meta.platform = nil, nil
    out[#out + 1] = m
  end
  return out
end

--- FILE for the only item, else FILE's stem .. "." .. id .. extension.
function recipe.output_path(path, id, count)
  if count <= 1 then return path end
  local stem, ext = path:match("^(.-)(%.[^./]*)$")
  if not stem then stem, ext = path, "" end
  return stem .. "." .. id .. ext
end

--- The sidecar of a CSV file: its metadata as JSON (report.csv_meta), named
-- after it: out.csv -> out.meta.json, out.triad.csv -> out.triad.meta.json.
function recipe.meta_path(csv_path)
  local stem = csv_path:match("^(.-)%.[^./]*$") or csv_path
  return stem .. ".meta.json"
end

local function write_file(self, path, text)
  local f, err = io.open(path, "w")
  if not f then error("cannot write " .. tostring(err), 0) end
  f:write(text)
  f:close()
  self.err:write(("%s: wrote %s\n"):format(self.name, path))
end

local function write_outputs(self, tables)
  local a = self.args
  local run = { recipe = self.name, clua = recipe.version(), date = os.date("!%Y-%m-%dT%H:%M:%SZ"),
    options = self.argv }
  if a.json then write_file(self, a.json, report.json(tables, run)) end
  if a.csv then
    for _, t in ipairs(tables) do
      local path = recipe.output_path(a.csv, t.id, #tables)
      write_file(self, path, report.csv(t))
      write_file(self, recipe.meta_path(path), report.csv_meta(t, run))
    end
  end
  if a.svg then
    for i, p in ipairs(self.plots) do
      write_file(self, recipe.output_path(a.svg, tostring(i), #self.plots), p:svg())
    end
  end
  if a.trace then
    for i, tl in ipairs(self.timelines) do
      write_file(self, recipe.output_path(a.trace, tostring(i), #self.timelines),
        tl:trace({ process = tl.process }))
    end
  end
end

--- Runs the recipe's body and writes its output files.
-- Runs body(R, device), once, or once per device with --device
-- all (R.device, R.ctx, R.queue, R.facts set anew for each). Any error,
-- verification failures included, prints "recipe NAME: message" on stderr
-- and exits with status 1 (CLUA_TRACEBACK=1 adds the traceback). On success
-- it writes --csv/--json/--svg/--trace files and returns true. R.timeout
-- (--timeout; 60 s in assignment mode) is cl.timeout while the body runs.
function Recipe:main(body)
  self.started = now_ns()
  local before = self.timeout and cl().timeout()
  if self.timeout then cl().timeout(self.timeout) end
  local ok, err = xpcall(function()
    if self.all_devices then
      for _, d in ipairs(cl().devices()) do
        for _, k in ipairs({ "device", "ctx", "queue", "facts", "programs", "guard" }) do rawset(self, k, nil) end
        rawset(self, "device", d)
        body(self, d)
        add_roofline_table(self)
      end
      local merged = recipe.merge_by_device(self.emitted)
      clear_progress(self)
      for _, t in ipairs(merged) do self.out:write(render(self, t), "\n") end
      write_outputs(self, merged)
    else
      body(self, self.device)
      add_roofline_table(self)
      clear_progress(self)
      write_outputs(self, self.emitted)
    end
  end, function(e)
    local msg = type(e) == "string" and e or tostring(e)
    if os.getenv("CLUA_TRACEBACK") == "1" then msg = debug.traceback(msg, 2) end
    return msg
  end)
  if self.timeout then cl().timeout(before or false) end
  if not ok then
    clear_progress(self)
    self.out:flush()
    self.err:write(("recipe %s: %s\n"):format(self.name, err))
    self.exit(1)
    return false, err
  end
  return true
end

return recipe
