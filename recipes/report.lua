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
local argparse = require("argparse")
local cl = require("cl")
local json = require("dkjson")
local devicemod = require("clua.device")
local html = require("clua.html")
local files = require("clua.files")
local cardfiles = require("clua.cardfiles")
local cardrun = require("clua.cardrun")
local cardpage = require("clua.cardpage")
local cardcluster = require("clua.cardcluster")
local escape = require("clua.escape")

-- Every file of the card through one checked write (clua.files.write_or_exit).
local function write(path, text) files.write_or_exit("report", path, text) end

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
local argcheck = require("clua.argcheck")
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

-- Every file beside --out, or beside --html FILE when no --out is given; in
-- a cluster run each rank's own card beside the cluster report.
local mpi = args.cluster and require "mpi"
local place = cardfiles.place(args.out, args.html, mpi and mpi.rank())
local stem, dir, cluster_stem = place.stem, place.dir, place.cluster
args.out, args.html = place.md, place.html
files.mkdir_or_exit("report", dir)

local given = cardrun.given(args.with, function(msg) p:error(msg) end)
local list = cardrun.list(CARD, args.recipes)

local saved
if args.compare then
  local ok, doc = pcall(html.load_card, args.compare, "compare with")
  if not ok then io.stderr:write("report: ", escape.terminal(doc), "\n"); os.exit(1) end
  saved = doc
end

local run = cardrun.runner{ here = arg[0]:match("^(.*)/[^/]*$") or ".", dir = dir, args = args, given = given,
  count = #list }

-- Device facts, from this process (the same selection rule as the recipes);
-- in a cluster run the local rank picks the GPU, and every recipe gets it by index.
local dev = cl.device(args.device)
local shared_by = 1 -- ranks of this host on this GPU (a cluster run)
if mpi then dev, args.device, shared_by = cardcluster.device(dev, mpi) end
local facts = devicemod.facts(dev)
local index = devicemod.index(dev)

local card_t0 = cl.now()
local results = cardcluster.each(list, run, mpi, args.apart)

local md, placed, card_seconds = cardpage.markdown(results, { facts = facts, index = index, quick = args.quick,
  device = args.device, note = args.note, compare = args.compare, saved = saved, dir = dir, t0 = card_t0,
  label = cardpage.namer(facts, dev, saved), mpi = mpi and { rank = mpi.rank(), size = mpi.size(), host = mpi.host(),
    apart = args.apart, shared_by = shared_by } })
write(args.out, md)
local doc = cardpage.doc(results, { facts = facts, index = index, quick = args.quick, seconds = card_seconds,
  placed = placed })
write(stem .. ".json", escape.json(json.encode(doc, { indent = true, keyorder = { "schema", "report" } })) .. "\n")
local written = { args.out, stem .. ".json" }
if args.html then
  written[#written + 1] = args.html
  write(args.html, html.card(doc, { dir = dir, saved = saved, compare_file = args.compare,
    note = args.note, command = cardpage.command(args) }))
end
local failed = cardpage.failed(results)
io.stderr:write(("report: %d recipes, %d failed, %.1f s; wrote %s\n"):format(#results, failed, card_seconds,
  escape.terminal(cardfiles.named(written, dir))))
if not mpi then os.exit(failed == 0 and 0 or 1) end

-- The cluster report: every rank's figures to rank 0.
local total_failed = cardcluster.report(mpi, results, { args = args, stem = cluster_stem, index = index,
  device = facts.name, card = args.out, cpu = facts.type == "CPU" })
-- Rank 0 speaks for the cluster: the others end cleanly once it has written.
mpi.barrier()
if mpi.rank() == 0 then os.exit(total_failed == 0 and 0 or 1) end
os.exit(0)
