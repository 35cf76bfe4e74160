--- clua.checker: a script or an experiment run with every kernel on Oclgrind,
-- the OpenCL device simulator, with its checks on (out-of-bounds accesses,
-- data races, barrier divergence, uninitialised values, API misuse), and
-- what Oclgrind reports read back: each finding once, grouped by kind, kernel
-- and the kernel file's own line, with how many times it happened. `clua
-- check FILE [ARGS...]` (recipes/check.lua) and the grader (clua.gradecheck)
-- use it.
-- @module clua.checker
local paths = require("clua.paths")
local proc = require("clua.proc")
local files = require("clua.files")
local checkrule = require("clua.checkrule")

local checker = {}

local function now_s()
  local ok, cl = pcall(require, "cl")
  return ok and cl.now() / 1e9 or os.time()
end

--- Oclgrind's options for the checks (its own memory check is always on);
-- kernels built without optimisation, so that each report names its own line
-- (optimised, a barrier inside a loop reads as line 0).
checker.CHECKS = { "--data-races", "--uninitialized", "--check-api", "--build-options", "-cl-opt-disable" }

--- Oclgrind's reports kept at most (OCLGRIND_MAX_ERRORS); past it, the counts
-- are "at least", and a run whose kept reports hold no fault is incomplete.
-- Room for the reports an experiment's rule sets aside (clua.checkrule:
-- image's, about 12000 at its check size), which must not crowd out the rest.
checker.MAX_REPORTS = 20000

-- Each report's first line, its kind, and what the kind says about it.
local TITLES = {
  { "^Invalid (%a+) of size (%d+) at (%a+) memory address", function(rw, size, space)
    return "out-of-bounds " .. rw, ("%s bytes, %s memory"):format(size, space) end },
  { "^Invalid (%a+) from ([%w%- ]+ buffer)", function(rw, what) return "buffer flags", rw .. " from a " .. what end },
  { "^Invalid (%a+) to ([%w%- ]+ buffer)", function(rw, what) return "buffer flags", rw .. " to a " .. what end },
  { "^Index %((%d+)%) exceeds static array size %((%d+)%)", function(i, n)
    return "out-of-bounds index", ("index %s of an array of %s"):format(i, n) end },
  { "^Invalid memory (%a+) %- (.*)$", function(what, why) return "invalid pointer", what .. ": " .. why end },
  { "^(%a+%-%a+) data race at (%a+) memory address", function(how, space)
    return "data race", ("%s, %s memory"):format(how:lower(), space) end },
  { "^Work%-group divergence detected %((.-)%)", function(what)
    return what == "barrier" and "barrier divergence" or ("divergence (" .. what .. ")") end },
  { "^Uninitialized value written to (%a+) memory", function(space)
    return "uninitialized value", "an undefined value written to " .. space .. " memory" end },
  { "^Uninitialized address used to (%a+ %a+) (%a+) memory", function(what, space) -- "read from", "write to"
    return "uninitialized value", ("an undefined address used to %s %s memory"):format(what, space) end },
  { "^Controlflow depends on uninitialized value", function()
    return "uninitialized value", "a branch on an undefined value" end },
  { "^Instruction depends on an uninitialized index value", function()
    return "uninitialized value", "an index that is an undefined value" end },
  { "^Oclgrind %- OpenCL runtime error detected", function() return "API misuse" end },
  { "^OCLGRIND FATAL ERROR", function() return "simulator error" end },
}

local function kind_of(title)
  for _, t in ipairs(TITLES) do
    local caps = { title:match(t[1]) }
    if #caps > 0 then return t[2](table.unpack(caps)) end
  end
  return "other", title
end

local function triple(s) return s and s:gsub("%s", "") or nil end

-- The work-item and group of an entity line ("Global(65,0,0) Local(1,0,0) Group(1,0,0)").
local function entity(s)
  if not s then return nil end
  local g, l, grp = s:match("Global(%b())"), s:match("Local(%b())"), s:match("Group(%b())")
  if not (g or grp) then return nil end
  return { global = triple(g), ["local"] = triple(l), group = triple(grp) }
end

--- Oclgrind's reports in `text` (its log), one table each: `kind`, `detail`,
-- `kernel`, `file`, `line`, `column`, `source` (the line's text as Oclgrind
-- quotes it), `at` (the work-item: `global`, `local`, `group`), `workgroup`,
-- `also` (the other side of a race or a divergence: `line`, `column`, `at`),
-- `title` (the report's first line) and, for API misuse, `call` and `error`.
-- @string text the log
-- @bool[opt] known only reports of a known kind (in text that holds other
-- lines: the standard error, where Oclgrind writes of API calls and itself)
-- @treturn tab the reports, in order
-- @treturn bool true when Oclgrind stopped reporting (too many)
function checker.parse(text, known)
  local out, truncated = {}, false
  -- reports are separated by an empty line; each starts at a line with no indent
  local blocks, cur = {}, nil
  for line in (text .. "\n"):gmatch("(.-)\r?\n") do
    if line == "" then
      cur = nil
    elseif line:match("^Oclgrind: %d+ errors generated") then
      truncated, cur = true, nil
    elseif cur then
      if line:match("%S") then cur[#cur + 1] = line end
    elseif line:match("^%S") then
      cur = { line }
      blocks[#blocks + 1] = cur
    end
  end
  for _, b in ipairs(blocks) do
    local kind, detail = kind_of(b[1])
    if known and kind == "other" then goto next end
    local f = { title = b[1], kind = kind, detail = detail }
    local locs, ents, second = {}, {}, false
    for i = 2, #b do
      local l = b[i]
      local k = l:match("^%s*Kernel:%s*(%S+)") or l:match("^When creating kernel '(.-)'")
      if k and not f.kernel then f.kernel = k end
      local wg = l:match("^%s*Work%-group:%s*(%b())")
      if wg then f.workgroup = triple(wg) end
      local e = l:match("^%s*Entity:%s*(.*)$") or l:match("^%s*First entity:%s*(.*)$")
        or l:match("^%s*Work%-item:%s*(.*)$")
      if e then ents[1] = entity(e) end
      e = l:match("^%s*Second entity:%s*(.*)$")
      if e then ents[2], second = entity(e), true end
      if l:match("^%s*Previous work%-items executed") then second = true end
      local ln, col, file = l:match("^%s*At line (%d+) %(column (%d+)%) of (.-):$")
      if ln and ln ~= "0" then -- line 0: a place the compiler made up
        locs[#locs + 1] = { line = tonumber(ln), column = tonumber(col), file = file,
          source = b[i + 1] and b[i + 1]:match("^%s*(.-)%s*$") or nil, second = second }
      end
      local only = l:match("^%s*(Only %d+ out of %d+ work%-items executed %a+)")
      if only then f.detail = only end
      local fn = l:match("^%s*Function:%s*(%S+)")
      if fn then f.call = fn end
      local er = l:match("^%s*Error:%s*(%S+)")
      if er then f.error = er end
      if kind == "API misuse" and i > 1 and not l:match("^%s*Function:") and not l:match("^%s*Error:") then
        f.detail = f.detail and (f.detail .. "; " .. l:match("^%s*(.-)%s*$")) or l:match("^%s*(.-)%s*$")
      end
    end
    if kind == "simulator error" then f.detail = table.concat(b, " ", 2):gsub("%s+", " ") end
    local first = locs[1]
    if first then
      f.line, f.column, f.file, f.source = first.line, first.column, first.file, first.source
      for j = 2, #locs do
        if locs[j].second and (locs[j].line ~= first.line or locs[j].column ~= first.column) then
          f.also = { line = locs[j].line, column = locs[j].column, file = locs[j].file, source = locs[j].source }
          break
        end
      end
    end
    f.at = ents[1]
    if f.also then f.also.at = ents[2] end
    out[#out + 1] = f
    ::next::
  end
  return out, truncated
end

--- The records a run with CLUA_CHECK_MAP wrote (host/program.c): for each
-- kernel, the pieces of its program's source, `{first, lines, file}` each.
-- @string text the map file's contents
-- @treturn tab kernel name -> list of programs, each a list of pieces
function checker.read_map(text)
  local map, last = {}, {}
  for line in (text or ""):gmatch("[^\n]+") do
    local k, first, lines, file = line:match("^([^\t]+)\t(%d+)\t(%d+)\t(.*)$")
    if k then
      first = tonumber(first)
      local progs = map[k] or {}
      map[k] = progs
      -- a piece starting at line 1 begins another program's record
      if first == 1 or not last[k] then
        progs[#progs + 1] = {}
        last[k] = progs[#progs]
      end
      local p = last[k]
      p[#p + 1] = { first = first, lines = tonumber(lines), file = file }
    end
  end
  return map
end

-- The names Oclgrind gives to a program's own source.
local function main_source(file) return file == "input.cl" or file == "" end

local function file_line(file, n, cache)
  if not cache[file] then
    local lines, text = {}, files.read(file) or ""
    for l in (text .. "\n"):gmatch("(.-)\n") do lines[#lines + 1] = l end
    cache[file] = lines
  end
  local l = cache[file][n]
  return l and l:match("^%s*(.-)%s*$")
end

-- Maps one location (line in the program's source) of kernel k to its file.
local function map_loc(loc, k, map, cache)
  if not loc or not loc.line or not main_source(loc.file or "input.cl") then return end
  -- the best of the programs built with a kernel of that name: the line
  -- reads as quoted (2), else it is within a piece (1), else past the last (0)
  local best, score = nil, -1
  for _, prog in ipairs(map[k] or {}) do
    for i, p in ipairs(prog) do
      local inside = loc.line < p.first + p.lines
      if loc.line >= p.first and (inside or i == #prog) then
        local cand = { file = p.file, line = loc.line - p.first + 1 }
        local text = file_line(p.file, cand.line, cache)
        local sc = (text and loc.source and text == loc.source) and 2 or inside and 1 or 0
        if sc > score then best, score = cand, sc end
      end
    end
  end
  if best then loc.file, loc.line = best.file, best.line end
end

--- Rewrites each report's lines into its kernel file's own (the map's pieces:
-- `checker.read_map`); where a kernel name was built from several sources,
-- the one whose line reads as Oclgrind quotes it.
-- @tab reports `checker.parse`'s
-- @tab map `checker.read_map`'s
-- @treturn tab the reports
function checker.locate(reports, map)
  local cache = {}
  for _, f in ipairs(reports) do
    if f.kernel then
      map_loc(f, f.kernel, map, cache)
      map_loc(f.also, f.kernel, map, cache)
    end
  end
  return reports
end

-- The kinds that are no fault of a kernel: a failed call (which clua raises
-- as an error, so that a script that goes on meant to ask: a probe) and what
-- the simulator cannot run.
local NOTE = { ["API misuse"] = true, ["simulator error"] = true }

--- Whether a finding is a fault of a kernel (an out-of-bounds access, a race,
-- barrier divergence, an undefined value, ...), not a note (a failed API call,
-- which clua raises as an error anyway; what the simulator cannot run; what
-- the experiment's rule says the simulator cannot check: clua.checkrule).
-- @tab f a report or finding
-- @treturn bool
function checker.is_fault(f) return not NOTE[f.kind] and not f.unchecked end

-- The numbers of a triple "(x,y,z)", z first (the order of a linear id).
local function zyx(t)
  local n = {}
  for d in (t or ""):gmatch("%-?%d+") do table.insert(n, 1, tonumber(d)) end
  return n
end

-- Whether entity `a` comes before `b`: by group, then by global id.
local function before(a, b)
  for _, key in ipairs({ "group", "global" }) do
    local x, y = zyx(a[key]), zyx(b[key])
    for i = 1, math.max(#x, #y) do
      if (x[i] or 0) ~= (y[i] or 0) then return (x[i] or 0) < (y[i] or 0) end
    end
  end
  return false
end

-- The order of findings: by file, line, column, then what they are.
local function by_place(a, b)
  local ka = { a.file or "", a.line or 0, a.column or 0, a.key }
  local kb = { b.file or "", b.line or 0, b.column or 0, b.key }
  for i = 1, #ka do
    if ka[i] ~= kb[i] then return ka[i] < kb[i] end
  end
  return false
end

--- The reports grouped: one finding per kind, detail, kernel and place, with
-- `count` (how many reports) and the fields of its earliest work-item's
-- report (by group, then global id). Oclgrind runs work-groups on several
-- threads, so the order of its reports varies from run to run; the findings,
-- their work-items and their order do not.
-- @tab reports `checker.parse`'s (located)
-- @treturn tab the findings, by file, line and column
function checker.group(reports)
  local by, out = {}, {}
  for _, f in ipairs(reports) do
    -- a divergent barrier is reported per work-item and per group: one finding
    local div = f.kind == "barrier divergence"
    local key = table.concat({ f.kind, not div and f.detail or "", f.kernel or "", f.file or "", f.line or "",
      f.column or "", not div and f.also and f.also.line or "", not div and f.also and f.also.column or "",
      f.call or "", f.error or "" }, "\0")
    local g = by[key]
    if g then
      g.count = g.count + 1
      if div and f.detail and not g.detail then g.detail = f.detail end
      if div and f.also and not g.also then g.also = f.also end
      if f.at and (not g.at or before(f.at, g.at)) then
        g.at = f.at
        if not div then g.also = f.also end -- a race's other side, of the same report
      end
    else
      g = setmetatable({ count = 1, key = key }, { __index = f })
      by[key] = g
      out[#out + 1] = g
    end
  end
  table.sort(out, by_place)
  return out
end

local function where(f)
  if not f.line then return "(no line: Oclgrind had no debug information)" end
  return ("%s:%d:%d"):format(f.file or "?", f.line, f.column or 0)
end

--- One finding on one line: kind, kernel, place, work-item, count.
-- @tab g a finding (`checker.group`)
-- @treturn string
function checker.describe(g)
  local parts = { g.kind }
  if g.kind == "API misuse" then
    parts[#parts + 1] = (": %s returned %s"):format(g.call or "?", g.error or "?")
    if g.detail then parts[#parts + 1] = " (" .. g.detail .. ")" end
  else
    if g.detail then parts[#parts + 1] = " (" .. g.detail .. ")" end
    if g.kernel then parts[#parts + 1] = (" in kernel '%s'"):format(g.kernel) end
    if g.line or checker.is_fault(g) then parts[#parts + 1] = " at " .. where(g) end
    if g.also and g.also.line then
      parts[#parts + 1] = (g.also.file ~= g.file and (" and %s"):format(where(g.also)))
        or (" and line %d:%d"):format(g.also.line, g.also.column or 0)
    end
  end
  local at = g.at
  if at then
    parts[#parts + 1] = at.global and (", first by work-item %s (local %s) of group %s"):format(at.global,
      at["local"] or "?", at.group or "?") or (", first in group %s"):format(at.group)
    local other = g.kind == "data race" and g.also and g.also.at
    if other and other.global then parts[#parts + 1] = (" against work-item %s"):format(other.global) end
  elseif g.workgroup then
    parts[#parts + 1] = (", first in group %s"):format(g.workgroup)
  end
  parts[#parts + 1] = g.count == 1 and ", once" or (", %d times"):format(g.count)
  return table.concat(parts)
end

--- The findings as text: one line each (`checker.describe`), the kernel
-- file's line below it; a summary line first.
-- @tab groups `checker.group`'s
-- @tab[opt] opts `truncated` (Oclgrind stopped reporting), `reports` (how many),
-- `rules` (the experiment's, clua.checkrule: each said, with what it set aside)
-- @treturn string
function checker.format(groups, opts)
  opts = opts or {}
  local faults, notes, n = {}, {}, 0
  for _, g in ipairs(groups) do
    if checker.is_fault(g) then
      faults[#faults + 1] = g
      n = n + g.count
    elseif not g.unchecked then -- those the rules set aside are counted by the rules
      notes[#notes + 1] = g
    end
  end
  local lines = {}
  local function show(list)
    for _, g in ipairs(list) do
      lines[#lines + 1] = "  " .. checker.describe(g)
      if g.source and g.source ~= "" and g.source ~= "(source not available)" then
        lines[#lines + 1] = "      " .. g.source
      end
    end
  end
  if #faults == 0 and opts.truncated then
    lines[1] = ("clua check: no findings in the reports kept, but Oclgrind stopped reporting after %d: what came "
      .. "after went unchecked (give smaller sizes)"):format(checker.MAX_REPORTS)
  elseif #faults == 0 then
    lines[1] = "clua check: no findings"
  else
    lines[1] = ("clua check: %d finding%s (%s%d report%s from Oclgrind%s)"):format(#faults, #faults == 1 and "" or "s",
      opts.truncated and "at least " or "", n, n == 1 and "" or "s",
      opts.truncated and (", which stopped reporting after " .. checker.MAX_REPORTS) or "")
    show(faults)
  end
  if opts.rules and #opts.rules > 0 then
    lines[#lines + 1] = "not checked, by the experiment's rule (what the simulator cannot check):"
    for _, r in ipairs(opts.rules) do lines[#lines + 1] = "  " .. checkrule.describe(r) end
  end
  if #notes > 0 then
    lines[#lines + 1] = "also reported, no fault of a kernel (a failed call is raised as an error, so one the script "
      .. "went on after was a probe; the simulator's limits):"
    show(notes)
  end
  return table.concat(lines, "\n") .. "\n"
end

--- Whether Oclgrind is installed (`oclgrind` on the PATH).
-- @treturn bool
function checker.available()
  return os.execute("command -v oclgrind >/dev/null 2>&1") == true
end

--- The most of an Oclgrind log, map or rules file that is read (bytes): at
-- `MAX_REPORTS` reports of about 1 KiB at most, a log holds less; past it,
-- the rest is not read.
checker.FILE_BYTES = 64 * 1024 * 1024

-- A file a checked run wrote, read only when it is a regular file (not a link
-- the run planted to one of the grader's), up to FILE_BYTES.
local function read_own(path)
  if paths.kind(path) ~= "file" then return nil end
  local f = io.open(path, "rb")
  if not f then return nil end
  local text = f:read(checker.FILE_BYTES) or ""
  f:close()
  return text
end

--- The command line of a run under Oclgrind with its checks on: the
-- variables it needs and its words.
-- @tab words the program Oclgrind runs and its arguments (clua, the script, ...)
-- @string log where Oclgrind writes its reports (OCLGRIND_LOG)
-- @string map where clua writes the map of kernels' sources (CLUA_CHECK_MAP)
-- @string rules where the experiment writes what it leaves unchecked (CLUA_CHECK_RULES: clua.checkrule)
-- @treturn tab `env` ({name, value} pairs) and `command` (the words: oclgrind's path, its options, `words`)
function checker.command(words, log, map, rules)
  -- a clua built with AddressSanitizer runs with Oclgrind's library preloaded before it
  local asan = os.getenv("ASAN_OPTIONS")
  local env = { { "ASAN_OPTIONS", (asan and asan ~= "" and (asan .. ":") or "") .. "verify_asan_link_order=0" },
    { "OCLGRIND_LOG", log }, { "OCLGRIND_MAX_ERRORS", tostring(checker.MAX_REPORTS) }, { "CLUA_CHECK_MAP", map },
    { "CLUA_CHECK_RULES", rules }, { "CLUA_DEVICE", "" } }
  -- the program found on PATH here, named by its path: the same one in the grader's box
  local command = { paths.which("oclgrind") or "oclgrind" }
  for _, c in ipairs(checker.CHECKS) do command[#command + 1] = c end
  for _, w in ipairs(words) do command[#command + 1] = w end
  return { env = env, command = command }
end

--- Runs `script` with `args` under Oclgrind with its checks on and reads
-- back what it found.
-- @string script the Lua script (a recipe's file)
-- @tab args its arguments (strings)
-- @tab[opt] opts `clua` (the interpreter; default the running one), `wall`
-- (seconds before the run is killed: a kernel that never ends; default 600),
-- `stdout`, `stderr` (files for the script's output; default the terminal's),
-- `raw` (more arguments, already quoted for the shell), `exec` and `dir`
-- (the run made by another: `exec(cmd)` runs `cmd` (`checker.command`'s,
-- with `raw`, `stdout`, `stderr`, `wall`, `dir`) and returns its exit status
-- (124 or 137: past the wall) and, if it knows, the seconds the run took
-- (not its wait for its turn among others); Oclgrind's log, the map and the rules are
-- written in the folder `dir`, which the run must be able to write: the
-- grader's box)
-- @treturn tab `findings` (grouped; those the experiment's rules set aside
-- marked `unchecked`), `reports`, `truncated`, `status` (the script's exit
-- status), `timed_out`, `seconds`, `rules` (clua.checkrule's, as the run
-- declared them), `incomplete` (Oclgrind stopped reporting, and no report
-- it kept is a fault: later ones may be lost)
function checker.run(script, args, opts)
  opts = opts or {}
  local clua = opts.clua or proc.interpreter()
  local q = proc.quote
  local log, map, rules
  if opts.exec then
    if not (opts.dir and opts.stdout and opts.stderr) then error("checker.run: exec needs dir, stdout and stderr", 2) end
    log, map, rules = opts.dir .. "/oclgrind.log", opts.dir .. "/check.map", opts.dir .. "/check.rules"
  else
    log, map, rules = os.tmpname(), os.tmpname(), os.tmpname()
  end
  local cmd = checker.command({ clua, script, table.unpack(args or {}) }, log, map, rules)
  local raw = opts.raw ~= "" and opts.raw or nil
  local errf = opts.stderr or os.tmpname()
  local t0 = now_s()
  local code, ran
  if opts.exec then
    cmd.raw, cmd.stdout, cmd.stderr, cmd.wall, cmd.dir = raw, opts.stdout, opts.stderr, opts.wall or 600, opts.dir
    code, ran = opts.exec(cmd)
  else
    local words, set = {}, {}
    for i, w in ipairs(cmd.command) do words[i] = q(w) end
    for i, kv in ipairs(cmd.env) do set[i] = kv[1] .. "=" .. q(kv[2]) end
    local line = ("%s timeout -k 5 %s %s%s"):format(table.concat(set, " "), tostring(opts.wall or 600),
      table.concat(words, " "), raw and (" " .. raw) or "")
    -- Oclgrind writes its reports of kernels to the log, of API calls and of
    -- its own failures to the standard error: kept in a file, and still shown
    if opts.stdout then line = line .. " >" .. q(opts.stdout) end
    local status = not opts.stderr and os.tmpname()
    if status then
      line = ("{ { %s; echo $? >%s; } 2>&1 1>&3 | tee %s >&2; } 3>&1"):format(line, q(status), q(errf))
    else
      line = line .. " 2>" .. q(opts.stderr)
    end
    code = select(3, os.execute(line))
    if status then
      code = tonumber((files.read(status) or ""):match("%d+")) or code
      os.remove(status)
    end
  end
  local seconds = ran or (now_s() - t0)
  local reports, truncated = checker.parse(read_own(log) or "")
  for _, f in ipairs((checker.parse(files.read(errf) or "", true))) do reports[#reports + 1] = f end
  if not opts.stderr then os.remove(errf) end
  checker.locate(reports, checker.read_map(read_own(map)))
  local findings, declared = checker.group(reports), read_own(rules) and checkrule.read(rules) or {}
  checkrule.apply(findings, declared)
  local complete = not truncated
  for _, f in ipairs(findings) do complete = complete or checker.is_fault(f) end
  os.remove(log)
  os.remove(map)
  os.remove(rules)
  return { findings = findings, reports = #reports, truncated = truncated, status = code,
    timed_out = code == 124 or code == 137, seconds = seconds, rules = declared, incomplete = not complete }
end

--- The usage of `clua check`.
checker.USAGE = [[
usage: clua check [--wall S] FILE|NAME [ARGS...]
Runs the script FILE (or the experiment NAME: clua check stride --quick) with
every kernel on Oclgrind, the OpenCL device simulator, with its checks on:
out-of-bounds accesses, data races, barrier divergence, uninitialised values
and API misuse. Prints each finding once: kind, kernel, the kernel file's
line and column, the first work-item and group, how many times. Exit status
1 when anything was found (or the script failed), 0 when not.
  --wall S   end the run after S seconds (default 600): a kernel that never ends
Oclgrind is slow: give the script small sizes (an experiment: --check-size).
]]

--- `clua check FILE [ARGS...]`: runs, prints the findings, and ends the
-- process with status 1 when anything was found or the script failed,
-- 2 on a bad command line or where Oclgrind is missing.
-- @tab argv the arguments after `check`
function checker.main(argv)
  local function die(msg, code)
    io.stderr:write("clua check: ", msg, "\n")
    os.exit(code or 2)
  end
  local i, wall = 1, 600
  while argv[i] and argv[i]:sub(1, 1) == "-" do
    local a = argv[i]
    if a == "--help" or a == "-h" then
      io.write(checker.USAGE)
      os.exit(0)
    elseif a == "--wall" then
      wall = tonumber(argv[i + 1])
      if not wall or wall <= 0 then die("--wall: a number of seconds > 0 expected, got '" .. tostring(argv[i + 1]) .. "'") end
      i = i + 2
    else
      die(("unknown option '%s' (clua check --help)"):format(a))
    end
  end
  local target = argv[i]
  if not target then die("give a script or an experiment to run: " .. checker.USAGE:match("^usage: (.-)\n")) end
  local script = target
  if not files.read(script) then
    script = require("clua.commands").find(target)
    if not script then die(("no file or experiment named '%s' (clua list names the experiments)"):format(target)) end
  end
  if not checker.available() then die("oclgrind is not installed (Debian: apt-get install oclgrind)") end
  local r = checker.run(script, { table.unpack(argv, i + 1) }, { wall = wall })
  io.stdout:flush()
  io.write(checker.format(r.findings, r))
  if r.timed_out then
    die(("the run took more than --wall %s s and was ended (a kernel that never ends, or sizes too large "
      .. "for the simulator)"):format(wall), 1)
  end
  if r.status ~= 0 then die(("%s ended with status %s"):format(target, tostring(r.status)), 1) end
  if r.incomplete then os.exit(1) end
  for _, f in ipairs(r.findings) do if checker.is_fault(f) then os.exit(1) end end
  os.exit(0)
end

return checker
