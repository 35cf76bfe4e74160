--- clua.cli: a recipe's command line: the options every recipe shares
-- (--device, --quick, --reps, --size, the output files, --timeout), the
-- recipe's own, and assignment mode's (--kernel) where the recipe declares a
-- contract for a student's kernel. Parsing errors print the usage and exit 2.
-- @module clua.cli
local argparse = require("argparse")
local units = require("clua.units")
local argcheck = require("clua.argcheck")

local cli = {}

--- The options that name a file to write: each is checked writable when
-- the command line is parsed, before anything runs.
cli.OUTPUTS = { "--csv", "--json", "--svg", "--trace", "--html" }

-- The devices --device (or CLUA_DEVICE) selects, or nil when none is found
-- (the recipe then says why, when it first uses its device).
local function selected_devices(sel)
  local ok, cl = pcall(require, "cl")
  if not ok or type(cl) ~= "table" or not cl.device then return nil end
  sel = sel or os.getenv("CLUA_DEVICE")
  local found
  if sel == "all" then ok, found = pcall(cl.devices) else ok, found = pcall(function() return { cl.device(sel) } end) end
  return ok and found or nil
end

-- The text of the last `name VALUE` or `name=VALUE` in argv.
local function given_text(argv, name)
  local text
  for i, w in ipairs(argv) do
    if w == name then text = argv[i + 1] elseif w:sub(1, #name + 1) == name .. "=" then text = w:sub(#name + 2) end
  end
  return text
end

--- Why a size option is more than the device can hold (nil when it fits).
-- A recipe's --size fits when `size * unit` bytes fit in one buffer
-- (CL_DEVICE_MAX_MEM_ALLOC_SIZE) and in 1/share of the global memory
-- (recipes hold several arrays of that size); with --device all, on every
-- device. Only the devices' facts are read: nothing runs on them.
-- @int size the --size
-- @tab[opt] opts `unit` (bytes per unit of size, default 1), `share`
-- (default 4), `device` (the --device selector; default CLUA_DEVICE, else
-- the default device), `text` (the --size as given, `1e12`)
-- @treturn ?string why not, naming the device, its limit and where it comes from
function cli.size_refused(size, opts)
  opts = opts or {}
  local unit, share = opts.unit or 1, opts.share or 4
  local part = share == 4 and "a quarter" or ("1/%d"):format(share)
  for _, d in ipairs(selected_devices(opts.device) or {}) do
    local i = d.info
    local limit = math.min(i.max_mem_alloc_size, i.global_mem_size // share) // unit
    if size > limit then
      local shown = unit > 1 and ("%d, %d bytes each"):format(size, unit) or units.format_size(size)
      if opts.text and opts.text:gsub("%s", "") ~= shown:gsub("%s", "") then shown = ("%s (%s)"):format(opts.text, shown) end
      return ("--size %s: more than the device can hold: at most %s on %s (its largest buffer, "
        .. "CL_DEVICE_MAX_MEM_ALLOC_SIZE, is %s; %s of its global memory, %s)"):format(shown,
        unit > 1 and tostring(limit) or units.format_size(limit), i.name,
        units.format_size(i.max_mem_alloc_size), part, units.format_size(i.global_mem_size // share))
    end
  end
end

--- Seconds a wait for a student's kernel may last when nothing says otherwise:
-- a recipe's assignment mode (`--kernel`) and the grader (`clua grade`) both
-- default to it. A naive kernel at a recipe's default size on a CPU device
-- can take tens of seconds per launch.
cli.TIMEOUT = 60

-- p:int(name, help[, default[, argname]]) in a recipe's options: an option
-- taking a whole number >= 1 (argcheck.count), shown as N unless argname says
-- otherwise; what most recipes' own options are.
local function int_option(p, name, help, default, argname)
  return p:option(name, help, default):argname(argname or "N"):convert(math.tointeger)
end

--- The argparse parser of a recipe made with `spec` (recipe.new's table);
-- `spec.options(p)` declares the recipe's own options, with `p:int(name, help[, default[, argname]])`
-- for a whole number >= 1.
-- @tab spec the recipe's declaration
-- @treturn argparse.Parser
function cli.parser(spec)
  local epilog = (spec.seed and ("Reproduces: " .. spec.seed .. ".\n") or "") ..
    "Environment: CLUA_DEVICE selects the default device; CLUA_CORRUPT=1 (or a list of " ..
    "recipe names) corrupts one output element before verification, which must then fail." ..
    (spec.student and ("\nAssignment mode (--kernel FILE): " .. spec.student) or "")
  local p = argparse(spec.name, spec.description, epilog)
  local reps, quick_reps = spec.reps or 10, spec.quick_reps or 3
  p:option("--device", "Device: a name, an index P:D, or all (every device)."):argname("DEV")
  p:flag("--quick", "Small sizes and few repetitions (for CI).")
  p:option("--reps", ("Timed repetitions (default %d, %d with --quick)."):format(reps, quick_reps))
    :argname("N"):convert(argcheck.count)
  p:option("--warmup", ("Untimed warm-up runs (default %d)."):format(spec.warmup or 2))
    :argname("N"):convert(argcheck.whole)
  p:flag("--check-size", "Sizes small enough for a checking device (clua check NAME --check-size): " ..
    (spec.check_size and ("--size " .. spec.check_size .. ", ") or "the --quick sizes, ") ..
    "one repetition, no warm-up.")
  p:option("--size", "Problem size, e.g. 4096, 64K, 256MiB, 1e6" ..
    (spec.size and (" (default " .. spec.size .. (spec.quick_size and (", " .. spec.quick_size
      .. " with --quick") or "") .. ").") or "."))
    :argname("SIZE"):convert(argcheck.size)
  p:option("--csv", "Write the tables as CSV."):argname("FILE")
  p:option("--json", "Write the tables and metadata as JSON."):argname("FILE")
  p:flag("--md", "Print Markdown instead of aligned text.")
  p:option("--svg", "Write the plot as SVG."):argname("FILE")
  p:option("--trace", "Write the timeline as Chrome trace JSON (Perfetto)."):argname("FILE")
  p:option("--html", "Write the tables, plots and timelines as one self-contained HTML page."):argname("FILE")
  p:option("--compare", "Show each row's ratio to a saved --json of an earlier run."):argname("FILE")
  p:flag("--gib", "Bandwidth in GiB/s (2^30) instead of GB/s (10^9).")
  p:option("--timeout", "End with an error when a wait for the device takes longer than S seconds (a kernel " ..
    "that never ends); default: CLUA_TIMEOUT, else none" .. (spec.student and (", or %d with --kernel"):format(cli.TIMEOUT) or "") .. ".")
    :argname("S"):convert(argcheck.positive)
  if spec.student then
    p:option("--kernel", "Assignment mode: also time your own kernel from FILE, verified like the "
      .. "recipe's and ranked beside them (see below for what it must do)."):argname("FILE")
    p:option("--kernel-name", "The kernel of --kernel FILE to use (default: " ..
      (spec.student_name and ("'" .. spec.student_name .. "', or ") or "") .. "the file's only kernel)."):argname("NAME")
    p:option("--grading", "Assignment mode, for clua grade's runs: check (the recipe's own variants run once, "
      .. "neither timed nor checked; the student's checked and timed), verify (the student's checked and run once, "
      .. "not timed) or time (the student's timed, not checked: a check run did that)."):argname("MODE")
      :choices({ "check", "verify", "time" })
  end
  p.int = int_option
  if spec.options then spec.options(p) end
  return argcheck.install(p, { write = cli.OUTPUTS, read = { "--compare" } })
end

--- Parses the recipe's command line into `self` (a recipe): `args`, `argv`,
-- `quick`, `check_size`, `reps`, `warmup`, `size`, `divisor`, `bw_unit`, `timeout`.
-- On a bad option it prints the usage and "recipe NAME: why" on self.err and
-- calls self.exit(2) (then raises, where exit is replaced by a spec).
-- @param self the recipe
-- @tab spec recipe.new's table
function cli.parse(self, spec)
  local p = cli.parser(spec)
  self.parser = p
  local argv = spec.args or rawget(_G, "arg") or {}
  local list = table.move(argv, 1, #argv, 1, {})
  local function refuse(why)
    self.err:write(p:get_usage(), "\n", ("recipe %s: %s\n"):format(self.name, why))
    self.exit(2)
    error(why, 0) -- when exit is replaced (specs)
  end
  local ok, a = p:pparse(argcheck.join_negatives(p, list))
  if not ok then refuse(a) end
  if a.size and not a.help then
    local why = cli.size_refused(a.size, { unit = spec.size_unit, share = spec.size_share, device = a.device,
      text = given_text(list, "--size") })
    if why then refuse(why) end
  end
  if a.grading and not a.kernel then
    self.err:write(p:get_usage(), "\n", ("recipe %s: --grading %s needs --kernel FILE\n"):format(self.name, a.grading))
    self.exit(2)
    error("--grading needs --kernel", 0)
  end
  self.args, self.argv = a, list
  -- --check-size: --quick's paths, at the recipe's check size, run once
  self.check_size = a.check_size or false
  self.quick = a.quick or self.check_size
  self.reps_given, self.warmup_given = a.reps ~= nil, a.warmup ~= nil
  self.reps = a.reps or (self.check_size and 1) or (self.quick and (spec.quick_reps or 3) or (spec.reps or 10))
  self.warmup = a.warmup or (self.check_size and 0) or spec.warmup or 2
  self.size = a.size or (self.check_size and spec.check_size and units.parse_size(spec.check_size))
    or (self.quick and spec.quick_size and units.parse_size(spec.quick_size))
    or (spec.size and units.parse_size(spec.size)) or nil
  self.divisor = a.gib and units.GiB or units.GB
  self.bw_unit = units.bw_unit(self.divisor)
  self.all_devices = (a.device or os.getenv("CLUA_DEVICE")) == "all"
  -- A student's kernel may never end: assignment mode waits 60 s at most
  -- unless --timeout or CLUA_TIMEOUT says otherwise.
  local env_timeout = os.getenv("CLUA_TIMEOUT")
  self.timeout = a.timeout or ((not env_timeout or env_timeout == "") and a.kernel and cli.TIMEOUT) or nil
end

return cli
