--- clua.output: what a recipe prints and writes: its tables (aligned text, or
-- Markdown with --md; ratios to a saved run with --compare), plots and
-- timelines, a progress line, the tables of a --device all run merged by
-- device, and the --csv, --json, --svg and --trace files. The methods below
-- are the recipe's (`R:emit(t)`, `R:plot(p)`, ...).
-- @module clua.output
local report = require("clua.report")
local noise = require("clua.noise")
local roofline = require("clua.roofline")
local devicemod = require("clua.device")

local output = {}

--- The recipe methods this module gives (installed by clua.recipe).
output.methods = {}
local Recipe = output.methods

local function is_tty()
  local env = os.getenv("CLUA_PROGRESS")
  if env then return env ~= "0" end
  return os.execute("test -t 2") == true
end

--- The host clock in ns (cl.now), or the wall clock where there is no cl module.
function output.now_ns()
  local ok, c = pcall(require, "cl")
  if ok and type(c) == "table" and c.now then return c.now() end
  return os.time() * 1e9
end

--- A progress line on stderr, shown only when stderr is a terminal (or
-- CLUA_PROGRESS=1) and the recipe has been running for more than a second:
-- `NAME [12 s, measurement 7]: what it is at`, one line rewritten in place
-- (at most ten times a second, cut to the terminal's width) and cleared
-- before anything is printed and at the end.
-- @string fmt what it is at (a format, with ...)
function Recipe:progress(fmt, ...)
  if rawget(self, "tty") == nil then self.tty = is_tty() end
  if not self.tty then return end
  local now = output.now_ns()
  if now - (self.started or 0) < 1e9 or now - (rawget(self, "progress_at") or 0) < 1e8 then return end
  self.progress_at = now
  local msg = select("#", ...) > 0 and fmt:format(...) or fmt
  local line = ("%s [%.0f s, measurement %d]: %s"):format(self.name, (now - (self.started or now)) / 1e9,
    rawget(self, "measured") or 0, msg)
  local width = math.max(20, (tonumber(os.getenv("COLUMNS")) or 80) - 1)
  if utf8.len(line) and utf8.len(line) > width then line = line:sub(1, utf8.offset(line, width) - 1) end
  self.err:write("\r\27[K", line)
  self.err:flush()
  self.progress_shown = true
end

--- Clears the progress line, if one is shown.
function output.clear_progress(self)
  if self.progress_shown then self.err:write("\r\27[K"); self.progress_shown = false end
end
local clear_progress = output.clear_progress

local function saved(self)
  if self.args.compare and not self.saved then self.saved = report.load(self.args.compare, "recipe") end
  return self.saved
end

local function render(self, t)
  if self.args.compare then t = report.compare(t, saved(self), { file = self.args.compare }) end
  return self.args.md and report.markdown(t) or report.text(t)
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
-- (a table with min and max columns after a time gets the spread column), and
-- the notes of the harness's measurements in its rows (bounds, cache figures,
-- clocks) once each. With --device all, tables are printed at the end, one per
-- id, with a device column.
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

--- Declares a kernel's work for the report card's roofline: the operations
-- it did (a multiply-add is 2, an add 1; a copy none) and the bytes it moved
-- (its compulsory traffic), with its median time. The points go to the
-- recipe's JSON as the table "roofline-points" (clua.roofline), not printed.
-- `R:measure` adds the point itself for a measurement that declares `ops`.
-- @string kernel the variant, as the recipe's tables name it
-- @tab work `ops`, `bytes`, `ns`, `type` ("float" by default; "double", "int"), `cache` (true: the
--   working set fits the device's cache, as `R:measure` found)
-- @usage R:roofline_point("triad", { ops = 2 * n, bytes = 3 * 4 * n, ns = t.median })
function Recipe:roofline_point(kernel, work)
  require("clua.options").check(work, "R:roofline_point", { "ops", "bytes", "ns", "type", "cache" })
  local points = rawget(self, "roofline_points")
  if not points then points = {}; self.roofline_points = points end
  points[#points + 1] = roofline.point(kernel, work)
end

--- Emits the roofline points declared so far as a table (not printed).
function output.add_roofline_table(self)
  local points = rawget(self, "roofline_points")
  if points and #points > 0 then
    local t = roofline.table(points, function(spec) return self:table(spec) end)
    t.device_name = self.facts.name
    if self.all_devices then t.device_index = devicemod.index(self.device) end
    self.emitted[#self.emitted + 1] = t
    self.roofline_points = nil
  end
end

--- Merges the tables of a run on every device.
-- The tables of a --device all run, merged by id: a leading device column,
-- and the "% of peak" figures of each device already computed.
function output.merge_by_device(tables)
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
function output.output_path(path, id, count)
  if count <= 1 then return path end
  local stem, ext = path:match("^(.-)(%.[^./]*)$")
  if not stem then stem, ext = path, "" end
  return stem .. "." .. id .. ext
end

--- The sidecar of a CSV file: its metadata as JSON (report.csv_meta), named
-- after it: out.csv -> out.meta.json, out.triad.csv -> out.triad.meta.json.
function output.meta_path(csv_path)
  local stem = csv_path:match("^(.-)%.[^./]*$") or csv_path
  return stem .. ".meta.json"
end

--- Prints the merged tables of a run on every device (the option `device all`).
function output.print_merged(self, merged)
  clear_progress(self)
  for _, t in ipairs(merged) do self.out:write(render(self, t), "\n") end
end

local function write_file(self, path, text)
  local ok, err = pcall(require("clua.files").write, path, text)
  if not ok then error(err, 0) end
  self.err:write(("%s: wrote %s\n"):format(self.name, require("clua.escape").terminal(path)))
end

local function write_files(self, tables, version)
  local a, date = self.args, os.date("!%Y-%m-%dT%H:%M:%SZ")
  local function run(kind)
    return { schema = report.schema(kind), recipe = self.name, clua = version, date = date, options = self.argv }
  end
  if a.json then write_file(self, a.json, report.json(tables, run("recipe"))) end
  if a.csv then
    for _, t in ipairs(tables) do
      local path = output.output_path(a.csv, t.id, #tables)
      write_file(self, path, report.csv(t))
      write_file(self, output.meta_path(path), report.csv_meta(t, run("csv-meta")))
    end
  end
  if a.svg then
    for i, p in ipairs(self.plots) do
      write_file(self, output.output_path(a.svg, tostring(i), #self.plots), p:svg())
    end
    -- the timelines beside the plots: FILE's stem .. ".timeline[.N].svg"
    local tl_path = (a.svg:match("^(.-)%.svg$") or a.svg) .. ".timeline.svg"
    for i, tl in ipairs(self.timelines) do
      write_file(self, output.output_path(tl_path, tostring(i), #self.timelines), tl:svg())
    end
  end
  if a.html then
    write_file(self, a.html, require("clua.html").document(tables, { plots = self.plots,
      timelines = self.timelines, meta = run("recipe"), title = self.name }))
  end
  if a.trace then
    for i, tl in ipairs(self.timelines) do
      write_file(self, output.output_path(a.trace, tostring(i), #self.timelines),
        tl:trace({ process = tl.process }))
    end
  end
end

--- Writes the output files the options ask for: JSON (clua.recipe/N), CSV
-- (with its metadata sidecar, clua.csv-meta/N), SVG (the plots, and the
-- timelines as Gantt charts), HTML (one page of the tables, plots and
-- timelines: clua.html) and the trace, their numbers in the C locale
-- (report.c_numeric).
-- @param self the recipe
-- @tab tables the tables to write
-- @string version clua's version
function output.write_files(self, tables, version)
  return report.c_numeric(write_files, self, tables, version)
end

return output
