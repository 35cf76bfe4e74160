--- clua.cardcluster: the report card under mpirun (recipes/report.lua
-- --cluster, clua built with make MPI=1): each rank's GPU, and the cluster
-- report rank 0 writes from every rank's figures (as Markdown, JSON and CSV).
-- The figures, their medians and the flags are clua.cluster's.
-- @module clua.cardcluster
local cardcluster = {}

local cl = require("cl")
local json = require("dkjson")
local cluster = require("clua.cluster")
local devicemod = require("clua.device")
local escape = require("clua.escape")
local files = require("clua.files")
local recipe = require("clua.recipe")
local cardpage = require("clua.cardpage")

local text = cardpage.text

--- This rank's GPU: of the devices of the selected one's platform and type,
-- in P:D order, the one of this rank's local rank.
-- @param dev the selected device (cl.device)
-- @tparam table mpi the mpi module
-- @return the rank's device
-- @treturn string its P:D index
-- @treturn int how many ranks of this host share it
function cardcluster.device(dev, mpi)
  local same = {}
  for _, d in ipairs(cl.devices()) do
    if d.platform == dev.platform and d.type == dev.type then same[#same + 1] = d end
  end
  local lr, ln = mpi.local_rank(), mpi.local_size()
  dev = same[lr % #same + 1]
  return dev, devicemod.index(dev), math.ceil((ln - lr % #same) / #same)
end

--- Runs each recipe of the card: in a cluster run every rank at once
-- (contention measured on purpose), or with `apart` one rank after another.
-- @tab list the recipes ({{name, finding, options},...}: clua.cardrun.list)
-- @func run runs one (clua.cardrun.runner's)
-- @tparam ?table mpi the mpi module in a cluster run, else nil
-- @bool apart one rank at a time
-- @treturn table the results, in the list's order
function cardcluster.each(list, run, mpi, apart)
  local results = {}
  for _, c in ipairs(list) do
    if not mpi then
      results[#results + 1] = run(c[1], c[2], c[3])
    elseif apart then -- one rank at a time
      for r = 0, mpi.size() - 1 do
        mpi.barrier()
        if r == mpi.rank() then results[#results + 1] = run(c[1], c[2], c[3]) end
      end
    else -- every rank at once
      mpi.barrier()
      results[#results + 1] = run(c[1], c[2], c[3])
    end
  end
  return results
end

-- The cluster report's Markdown page.
local function page(sum, gpus, o)
  local md, args = {}, o.args
  local function add(s) md[#md + 1] = s end
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
      escape.md_code(o.stem:match("[^/]*$") .. "-rankN.md")))
  if args.note then add("") add(text(args.note, { line = true })) end
  if o.cpu then
    add("")
    add("The devices are CPUs (an OpenCL implementation on the host's cores): their figures are CPU figures, "
      .. "and ranks of one host share its cores.")
  end
  add("")
  for _, line in ipairs(cluster.markdown(sum)) do add(line) end
  return table.concat(md, "\n") .. "\n"
end

--- Gathers every rank's figures to rank 0, which writes the cluster report
-- STEM.md, STEM.json and STEM.csv and says so on the standard error (a file
-- that cannot be written ends the card: clua.files.write_or_exit).
-- @tparam table mpi the mpi module
-- @tparam table results this rank's recipes' results (clua.cardrun)
-- @tparam table o {args = the card's options (apart, quick, reps, recipes, with, note), stem = the cluster
-- report's, index, device (this rank's device's name), card (its card's file), cpu (true on CPU devices)}
-- @treturn int the recipes that failed on every rank (0 on the other ranks)
function cardcluster.report(mpi, results, o)
  local args = o.args
  local mine = { rank = mpi.rank(), host = mpi.host(), index = o.index, device = o.device, card = o.card,
    figures = cluster.figures(results), failed = {} }
  for _, r in ipairs(results) do if r.error then mine.failed[#mine.failed + 1] = r.name end end
  local all = mpi.gather(json.encode(mine))
  if not all then return 0 end
  local gpus, total_failed = {}, 0
  for i, sent in ipairs(all) do
    gpus[i] = assert(json.decode(sent), "report: rank " .. (i - 1) .. " sent no figures")
    total_failed = total_failed + #gpus[i].failed
  end
  -- A --quick card is too short to flag, whatever its --reps (clua.cluster).
  local sum = cluster.summarize(gpus, { quick = args.quick, cpu = o.cpu })
  files.write_or_exit("report", o.stem .. ".md", page(sum, gpus, o))
  files.write_or_exit("report", o.stem .. ".csv", cluster.csv(sum))
  files.write_or_exit("report", o.stem .. ".json", escape.json(json.encode({ report = "clua cluster report",
    clua = recipe.version(), date = os.date("!%Y-%m-%dT%H:%M:%SZ"), quick = args.quick or false,
    apart = args.apart or false, gpus = sum.gpus, figures = sum.figures }, { indent = true })) .. "\n")
  local flagged, common = 0, 0
  for _, g in ipairs(sum.gpus) do flagged = flagged + #g.flagged end
  for _, s in ipairs(sum.figures) do if s.n == #gpus then common = common + 1 end end
  io.stderr:write(("report: wrote the cluster report %s.md, .json and .csv (%d GPUs, %d figures on every GPU of %d, "
    .. "%s, %d recipes failed)\n"):format(o.stem, #gpus, common, #sum.figures, args.quick
    and "--quick: too short to flag" or (flagged .. " below the median beyond their noise"), total_failed))
  return total_failed
end

return cardcluster
