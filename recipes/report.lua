-- report: one command that characterises a device. Runs a set of recipes, each
-- in its own clua process with --json and --svg, and writes one Markdown page
-- (device facts, every table, the plots, each bandwidth as % of the
-- theoretical limit, the seed's finding beside each) and the same as one JSON.
--   clua recipes/report.lua [--device D] [--quick] [--out docs/report-NAME.md]
--                           [--recipes transfer,stride] [--compare OLD.json]
--                           [--with 'RECIPE OPTIONS' (a recipe's own options)]
-- The same card as one self-contained web page (clua.html) beside the Markdown,
-- or --html FILE; a saved card rendered again, without running anything:
--   clua recipes/report.lua --from-json docs/report-h100.json [--html FILE] [--compare OLD.json]
-- On a cluster (clua built with make MPI=1), one card per GPU and the cluster
-- report, which flags the GPUs below the median (clua.cluster):
--   mpirun -n N build/mpi/clua recipes/report.lua --cluster [--apart] [--out cluster.md]
local argparse = require "argparse"
local cl = require "cl"
local roofline = require "clua.roofline"
local json = require "dkjson"
local report = require "clua.report"
local devicemod = require "clua.device"
local recipe = require "clua.recipe"
local cluster = require "clua.cluster"
local proc = require "clua.proc"
local html = require "clua.html"
local files = require "clua.files"
local cardfiles = require "clua.cardfiles"
local glance = require "clua.glance"
local escape = require "clua.escape"

-- The recipes of a report card, in order, with the seed's finding, and the
-- options the full card gives a recipe (none with --quick).
local CARD = {
  { "peak", "clpeak: the compute peak of each type and vector width (H100: 64-65 TFLOPS float, 33 double and int)" },
  { "memory", "the memory hierarchy: latency and bandwidth of each level, where each level ends" },
  { "roofline", "mixbench: throughput against arithmetic intensity under the bandwidth and compute roofs" },
  { "transfer", "guide 3.1: pinned (page-locked) memory about twice as fast as pageable; batching small transfers wins" },
  { "stream", "BabelStream: the sustainable memory bandwidth of copy, mul, add, triad and dot" },
  { "offset", "guide 3.2.1.3: misaligned copies lose bandwidth (GTX 280: 120 → 70 GB/s)" },
  -- strides 512 and 1024 copy 0.5 and 0.25 MiB in 5-8 µs: launch-bound, 16-43 % spread on the H100,
  -- their figure changes from run to run; 256 already shows the floor
  { "stride", "guide 3.2.1.4: bandwidth falls as the stride grows, to 1/16 at stride 16", "--max-stride 256" },
  { "launch", "the fixed cost of a kernel launch, host side and device side" },
  { "overlap", "guide 3.1.3: two queues overlap copies and compute: up to 30% saved with one copy engine, 50% with two" },
  { "reduction", "reduction ladder: each step faster; the best near the memory bandwidth" },
  { "atomics", "atomic adds by contention, int to float" }, { "histogram", "global atomics, privatised bins, sorting: 16-65536 bins" },
  { "matmul", "guide 3.2.2.2: local-memory tiles: 8.8 → 14.3 → 29.7 GB/s on a GTX 280" },
  { "occupancy", "guide 4: low occupancy hurts; above a plateau it does not help" },
  { "transpose", "guide 3.2.2.3: local-memory tiles coalesce a transpose; padding removes bank conflicts" },
  { "aat", "guide 3.2.2.3: A A^T through a local tile, padded against bank conflicts" },
  { "stencil", "a finite-difference stencil: global memory and caches against local tiles" },
  { "particles", "array of structures against structure of arrays" },
  { "scan", "Blelloch's scan: padding against bank conflicts" },
}

local p = argparse("report", "Run a set of recipes and write one report card of the device (Markdown + JSON).")
p:option("--device", "Device: a name or an index P:D (default: CLUA_DEVICE, else the first GPU).")
p:flag("--quick", "Small sizes and few repetitions in every recipe (for CI).")
p:option("--recipes", "Comma-separated recipes to run instead of the card's set.")
p:option("--out", "Markdown file to write (.md added to a name without one); the JSON, the page, the SVG plots "
  .. "and logs go beside it (default: beside --html FILE, else report.md).")
p:option("--compare", "A JSON of an earlier report: each compared figure shown with its ratio to it.")
  :argname("FILE")
p:option("--with", "A recipe's options in place of the card's, with or without --quick: the recipe's name, then "
  .. "its options (--with 'peak --target-ms 40 --types float'); once per recipe."):argname("'RECIPE OPTIONS'")
  :count("*")
p:option("--timeout", "Seconds allowed to each recipe.", "600"):convert(tonumber):argname("S")
p:option("--reps", "Timed repetitions of every recipe (its --reps).", nil, math.tointeger):argname("N")
p:option("--note", "A sentence for the top of the page (how the machine was, say)."):argname("TEXT")
p:flag("--cluster", "Under mpirun (clua built with make MPI=1): each rank takes the GPU of its local rank among "
  .. "its host's devices of the selected device's platform and type, the ranks run each recipe at once, each "
  .. "writes its own card (OUT-rankN.md), and rank 0 writes OUT: the cluster report (a row per GPU, the median of "
  .. "every figure, the GPUs below it by more than its noise flagged; also as JSON and CSV).")
p:flag("--apart", "With --cluster: the ranks run each recipe one after another, so that no two GPUs are measured "
  .. "at once (no contention for the host's memory, PCIe or CPU).")
p:option("--html", "HTML page to write: the card as one self-contained file (default: the Markdown's name "
  .. "with .html; 'none' for no page)."):argname("FILE")
p:option("--from-json", "Run nothing: render the saved card FILE (its JSON; its SVG files in the folder beside "
  .. "it, or that folder) as HTML, to --html FILE or beside it. The card must be a clua.card/1 of at most 16 MiB and "
  .. "20000 rows, each field of its type; a figure is read only from that folder, by name, and inlined cleaned to "
  .. "drawing elements (no script)."):argname("FILE")
local argcheck = require "clua.argcheck"
-- --from-json is a card or its folder: html.load_card checks it
argcheck.install(p, { create = { "--out", "--html" }, read = { "--compare" } })
local args = argcheck.parse(p, arg, "report")
if args.from_json then
  local ok, err = pcall(function()
    local doc, dir = html.load_card(args.from_json)
    local out = args.html or (dir:gsub("%-files$", "") .. ".html")
    html.write(out, html.card(doc, { dir = dir, saved = args.compare and (html.load_card(args.compare, "compare with")),
      compare_file = args.compare, note = args.note }))
    return out
  end)
  if not ok then
    io.stderr:write("report --from-json: ", escape.terminal(tostring(err)), "\n")
    os.exit(1)
  end
  io.stderr:write(("report: wrote %s from %s\n"):format(escape.terminal(err), escape.terminal(args.from_json)))
  os.exit(0)
end
if args.apart and not args.cluster then p:error("--apart is for --cluster runs") end

local clua = proc.interpreter()
local here = (arg[0]:match("^(.*)/[^/]*$") or ".")
-- Every file beside --out, or beside --html FILE when no --out is given.
local html_given = args.html
local place = cardfiles.place(args.out, args.html)
local stem = place.stem
args.out, args.html = place.md, place.html

-- A cluster run: this rank's GPU, and its own card beside the cluster report.
local mpi, cluster_stem
if args.cluster then
  mpi = require "mpi"
  cluster_stem = stem
  stem = ("%s-rank%d"):format(stem, mpi.rank())
  args.out = stem .. ".md"
  if args.html and not html_given then args.html = stem .. ".html" end
end
local dir = stem .. "-files"
local sh = proc.quote
os.execute("mkdir -p -- " .. sh(dir))

-- --with: a recipe's own options, each word quoted for the shell.
local given = {}
for _, w in ipairs(args.with) do
  local name, rest = w:match("^%s*([%w_]+)%s*(.-)%s*$")
  if not name then p:error(("--with %q: the recipe's name first, then its options"):format(w)) end
  local words = {}
  for x in rest:gmatch("%S+") do words[#words + 1] = x:match("^[%w%-%.,_/:=+]+$") and x or sh(x) end
  given[name] = table.concat(words, " ")
end

local list = {}
if args.recipes then
  local finding = {}
  local options = {}
  for _, c in ipairs(CARD) do finding[c[1]], options[c[1]] = c[2], c[3] end
  for name in args.recipes:gmatch("[^,%s]+") do list[#list + 1] = { name, finding[name] or "", options[name] } end
else
  list = CARD
end

local saved
if args.compare then
  local ok, doc = pcall(html.load_card, args.compare, "compare with")
  if not ok then io.stderr:write("report: ", escape.terminal(doc), "\n"); os.exit(1) end
  saved = doc
end

local ran, card_start = 0, cl.now() -- for the progress line

-- Runs one recipe (with the card's options for it, or --with's); returns {name, finding,
-- options, exit, tables, svgs, error, seconds}.
local function run(name, finding, options)
  local script = here .. "/" .. name .. ".lua"
  local r = { name = name, finding = finding, svgs = {} }
  if not files.readable(script) then
    r.error = "not available: no " .. script
    return r
  end
  local jpath, spath, log = dir .. "/" .. name .. ".json", dir .. "/" .. name .. ".svg", dir .. "/" .. name .. ".log"
  os.remove(jpath)
  local cmd = { "timeout", tostring(args.timeout), sh(clua), sh(script), "--json", sh(jpath), "--svg", sh(spath) }
  if args.quick then cmd[#cmd + 1] = "--quick" end
  if args.device then cmd[#cmd + 1] = "--device " .. sh(args.device) end
  if args.reps then cmd[#cmd + 1] = "--reps " .. args.reps end
  if given[name] then options = given[name] elseif args.quick then options = nil end
  if options and options ~= "" then cmd[#cmd + 1] = options else options = nil end
  ran = ran + 1
  io.stderr:write(("report: recipe %d of %d: %s (%.0f s so far)\n"):format(ran, #list, escape.terminal(name),
    (cl.now() - card_start) / 1e9))
  local t0 = cl.now()
  local ok, _, code = os.execute(table.concat(cmd, " ") .. " > " .. sh(log) .. " 2>&1")
  r.seconds = math.floor((cl.now() - t0) / 1e8 + 0.5) / 10 -- 0.1 s
  r.options = options
  r.exit = ok and 0 or code
  local doc = files.read(jpath)
  if r.exit ~= 0 or not doc then
    local text = files.read(log) or ""
    r.error = ("exit %s: %s"):format(tostring(r.exit), (text:match("recipe [%w_]+: ([^\n]*)") or text:sub(-400)))
    return r
  end
  r.tables = report.decode(doc).tables
  local ls = io.popen("ls -- " .. sh(dir) .. " 2>/dev/null")
  for f in ls:lines() do
    if f:match("^" .. name:gsub("%p", "%%%0") .. "[%.%w_-]*%.svg$") then r.svgs[#r.svgs + 1] = f end
  end
  ls:close()
  table.sort(r.svgs)
  return r
end


-- Device facts, from this process (the same selection rule as the recipes).
local dev = cl.device(args.device)
local shared_by = 1 -- ranks of this host on this GPU (a cluster run)
if mpi then
  -- The devices of the selected one's platform and type, in P:D order; the
  -- local rank picks one, and every recipe gets it by index.
  local same = {}
  for _, d in ipairs(cl.devices()) do
    if d.platform == dev.platform and d.type == dev.type then same[#same + 1] = d end
  end
  local lr, ln = mpi.local_rank(), mpi.local_size()
  dev = same[lr % #same + 1]
  shared_by = math.ceil((ln - lr % #same) / #same)
  args.device = devicemod.index(dev)
end
local facts = devicemod.facts(dev)
local index = devicemod.index(dev)

-- Where two devices of one name meet (another device of this machine, or the
-- saved report's device), each is named with its P:D index.
local same_name = saved and saved.device and saved.device.name == facts.name
for _, d in ipairs(cl.devices()) do
  if d ~= dev and d.name == facts.name then same_name = true end
end
local function label(name, idx)
  if same_name and name == facts.name then return ("%s [%s]"):format(name, idx or "?") end
  return name
end

local function saved_tables(name)
  if not saved then return nil end
  for _, r in ipairs(saved.recipes or {}) do
    if r.name == name and r.tables then
      return { tables = r.tables, meta = { device = saved.device and label(saved.device.name, saved.device.index) } }
    end
  end
end

local results = {}
local card_t0 = cl.now()
for _, c in ipairs(list) do
  if not mpi then
    results[#results + 1] = run(c[1], c[2], c[3])
  elseif args.apart then -- one rank at a time
    for r = 0, mpi.size() - 1 do
      mpi.barrier()
      if r == mpi.rank() then results[#results + 1] = run(c[1], c[2], c[3]) end
    end
  else -- every rank at once
    mpi.barrier()
    results[#results + 1] = run(c[1], c[2], c[3])
  end
end

-- Markdown.
-- Every text from outside (a name, a note, a message, the device's facts) is
-- escaped for Markdown (clua.escape): none acts as HTML or Markdown syntax.
local md = {}
local function add(s) md[#md + 1] = s end
local function text(s, opts) return escape.markdown((tostring(s):gsub("[\r\n]+", " ")), opts) end
add("# Device report: " .. text(label(facts.name, index)))
add("")
add(("Made by %s on %s with clua %s."):format(escape.md_code("clua recipes/report.lua" .. (args.quick and " --quick" or "")
  .. (args.device and (" --device " .. args.device) or "")), os.date("!%Y-%m-%d %H:%M UTC"), text(recipe.version())))
if args.note then
  add("")
  add(text(args.note, { line = true }))
end
if mpi then
  add("")
  add(("Rank %d of %d on %s, its host's GPU %s; the ranks ran each recipe %s.%s"):format(mpi.rank(), mpi.size(),
    text(mpi.host()), index, args.apart and "one after another" or "at once",
    shared_by > 1 and (" %d ranks of this host share this device."):format(shared_by) or ""))
end
if facts.type == "CPU" then
  add("")
  add("This device is a CPU (an OpenCL implementation running on the host's cores): its figures are CPU figures.")
end
-- The answer first: the run's headline figures, each with its bound.
local at_a_glance = glance.table({ recipes = results })
if at_a_glance then
  add("")
  add("## At a glance")
  add("")
  add((report.markdown(at_a_glance):gsub("^### [^\n]*\n\n", "")))
end
add("")
add("## The device")
add("")
add(escape.md_block(facts:text()))
for _, r in ipairs(results) do
  add("")
  add("## " .. text(r.name))
  add("")
  if r.finding and r.finding ~= "" then add("*The seed:* " .. text(r.finding) .. ".") add("") end
  if r.error then
    add("**Did not run:** " .. text(r.error))
  else
    add(("%s (%.1f s)"):format(escape.md_code(("clua recipes/%s.lua%s%s"):format(r.name, args.quick and " --quick" or "",
      r.options and (" " .. r.options) or "")), r.seconds))
    for _, d in ipairs(r.tables) do
      if d.id == roofline.ID then goto next_table end -- gathered in the roofline section
      local t = report.without_empty(report.from_data(d)) -- no column of "-" only
      local old = saved_tables(r.name)
      if old then t = report.compare(t, old, { file = args.compare }) end
      add("")
      add(report.markdown(t))
      ::next_table::
    end
    for _, svg in ipairs(r.svgs) do
      local rel = (dir:match("[^/]*$")) .. "/" .. svg
      add("")
      add(("![%s](%s)"):format(text(svg), escape.md_url(rel)))
    end
  end
end
-- Every experiment on the roofline: the points the recipes declared, under
-- the roofs recipes/roofline.lua measured (this run, else none).
local points, roof_rows = {}, nil
for _, r in ipairs(results) do
  for _, d in ipairs(r.tables or {}) do
    if d.id == roofline.ID then
      for _, row in ipairs(d.rows) do
        local pt = {}
        for k, v in pairs(row) do pt[k] = v end
        pt.recipe = r.name
        points[#points + 1] = pt
      end
    elseif r.name == "roofline" and d.id == "roofs" then
      roof_rows = d.rows
    end
  end
end
local placed
if #points > 0 then
  local roofs = roofline.roofs(roof_rows)
  placed = roofline.place(points, roofs, { cache_roof = glance.cache_roof({ recipes = results }) })
  add("")
  add("## The seed experiments on the roofline")
  add("")
  if not roof_rows then
    add("No roofs: recipes/roofline.lua was not part of this run, so the points stand alone.")
    add("")
  end
  add(report.markdown(placed))
  if roof_rows then
    local svg = "roofline-experiments.svg"
    files.write(dir .. "/" .. svg, roofline.plot(points, roofs, "The seed experiments on the roofline of "
      .. facts.name):svg({ width = 980, height = 620 }))
    add("")
    add(("![every experiment on the roofline](%s)"):format(escape.md_url(dir:match("[^/]*$") .. "/" .. svg)))
  end
end

local failed = 0
for _, r in ipairs(results) do if r.error and not r.error:match("^not available") then failed = failed + 1 end end
add("")
local card_seconds = (cl.now() - card_t0) / 1e9
local per = {} -- each recipe's wall time, for a table of the card's time
for _, r in ipairs(results) do per[#per + 1] = text(r.name) .. (r.seconds and (" %.1f s"):format(r.seconds) or " not run") end
add(("%d recipes, %d ran, %d failed, in %.0f s: %s."):format(#results, #results - failed, failed, card_seconds,
  table.concat(per, ", ")))

files.write(args.out, table.concat(md, "\n") .. "\n")

-- JSON: the device facts and every recipe's tables.
local fdata = {}
for k, v in pairs(facts) do if type(v) ~= "function" then fdata[k] = v end end
fdata.index = index
local doc = { report = "clua device report", clua = recipe.version(), date = os.date("!%Y-%m-%dT%H:%M:%SZ"),
  schema = report.schema("card"), quick = args.quick or false, seconds = math.floor(card_seconds * 10 + 0.5) / 10,
  device = fdata, recipes = {} }
for i, r in ipairs(results) do
  doc.recipes[i] = { name = r.name, finding = r.finding, options = r.options, exit = r.exit, error = r.error,
    seconds = r.seconds,
    tables = r.tables, svgs = r.svgs }
end
doc.roofline = placed and placed:data() or nil
files.write(stem .. ".json", escape.json(json.encode(doc, { indent = true, keyorder = { "schema", "report" } })) .. "\n")
local written = { args.out, stem .. ".json" }
if args.html then
  written[#written + 1] = args.html
  html.write(args.html, html.card(doc, { dir = dir, saved = saved, compare_file = args.compare,
    note = args.note, command = "clua recipes/report.lua" .. (args.quick and " --quick" or "")
      .. (args.device and (" --device " .. args.device) or "") }))
end
io.stderr:write(("report: %d recipes, %d failed, %.1f s; wrote %s\n"):format(#results, failed, card_seconds,
  escape.terminal(cardfiles.named(written, dir))))
if not mpi then os.exit(failed == 0 and 0 or 1) end

-- The cluster report: every rank's figures to rank 0.
local mine = { rank = mpi.rank(), host = mpi.host(), index = index, device = facts.name, card = args.out,
  figures = cluster.figures(results), failed = {} }
for _, r in ipairs(results) do if r.error then mine.failed[#mine.failed + 1] = r.name end end
local all = mpi.gather(json.encode(mine))
local total_failed = 0
if all then
  local gpus = {}
  for i, sent in ipairs(all) do
    gpus[i] = assert(json.decode(sent), "report: rank " .. (i - 1) .. " sent no figures")
    total_failed = total_failed + #gpus[i].failed
  end
  -- A --quick card is too short to flag, whatever its --reps (clua.cluster).
  local sum = cluster.summarize(gpus, { quick = args.quick, cpu = facts.type == "CPU" })
  md = {}
  local hosts, nhosts = {}, 0
  for _, g in ipairs(gpus) do if not hosts[g.host] then hosts[g.host], nhosts = true, nhosts + 1 end end
  add(("# Cluster report: %d GPU%s on %d host%s"):format(#gpus, #gpus == 1 and "" or "s", nhosts,
    nhosts == 1 and "" or "s"))
  add("")
  local with = {}
  for _, w in ipairs(args.with) do with[#with + 1] = (" --with '%s'"):format(w) end
  -- srun starts the ranks itself under Slurm (contrib/slurm/clua-cluster.sbatch); mpirun's ranks know their size
  local launcher = os.getenv("SLURM_STEP_ID") and not os.getenv("OMPI_COMM_WORLD_SIZE") and "srun" or "mpirun"
  add(("Made by %s on %s with clua %s: each rank ran the "
    .. "card on its host's GPU of its local rank, the ranks %s. Each GPU's own card: %s.")
    :format(escape.md_code(("%s -n %d clua recipes/report.lua --cluster%s%s%s%s%s"):format(launcher, #gpus,
      args.apart and " --apart" or "", args.quick and " --quick" or "",
      args.reps and (" --reps " .. args.reps) or "", args.recipes and (" --recipes " .. args.recipes) or "",
      table.concat(with))), os.date("!%Y-%m-%d %H:%M UTC"), text(recipe.version()),
      args.apart and "one after another (no two GPUs measured at once)" or "all at once (contention measured on purpose)",
      escape.md_code(cluster_stem:match("[^/]*$") .. "-rankN.md")))
  if args.note then add("") add(text(args.note, { line = true })) end
  if facts.type == "CPU" then
    add("")
    add("The devices are CPUs (an OpenCL implementation on the host's cores): their figures are CPU figures, "
      .. "and ranks of one host share its cores.")
  end
  add("")
  for _, line in ipairs(cluster.markdown(sum)) do add(line) end
  files.write(cluster_stem .. ".md", table.concat(md, "\n") .. "\n")
  files.write(cluster_stem .. ".csv", cluster.csv(sum))
  files.write(cluster_stem .. ".json", escape.json(json.encode({ report = "clua cluster report",
    clua = recipe.version(), date = os.date("!%Y-%m-%dT%H:%M:%SZ"), quick = args.quick or false,
    apart = args.apart or false, gpus = sum.gpus, figures = sum.figures }, { indent = true })) .. "\n")
  local flagged, common = 0, 0
  for _, g in ipairs(sum.gpus) do flagged = flagged + #g.flagged end
  for _, s in ipairs(sum.figures) do if s.n == #gpus then common = common + 1 end end
  io.stderr:write(("report: wrote the cluster report %s.md, .json and .csv (%d GPUs, %d figures on every GPU of %d, "
    .. "%s, %d recipes failed)\n"):format(cluster_stem, #gpus, common, #sum.figures, args.quick
    and "--quick: too short to flag" or (flagged .. " below the median beyond their noise"), total_failed))
end
-- Rank 0 speaks for the cluster: the others end cleanly once it has written.
mpi.barrier()
if mpi.rank() == 0 then os.exit(total_failed == 0 and 0 or 1) end
os.exit(0)
