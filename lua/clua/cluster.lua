--- clua.cluster: the cluster report card. Every GPU of a cluster ran the
-- same report card (recipes/report.lua --cluster under mpirun); this module
-- takes each card's figures, the median of each figure over the GPUs, and
-- flags every GPU that is worse than the median by more than the figure's
-- noise: the acceptance test of a new cluster.
--
-- A figure is one cell the card's `--compare` compares: a compared column
-- (or the first numeric one) of a row, named by its recipe, table and key
-- columns ("stream / stream / double triad / best"). Its noise is the row's
-- own spread, where its table measures one: a spread column (clua.noise)
-- right after the figure's, a "spread" column,
-- min and max of the same unit beside it, or "min time" and "max time"
-- around "median time" ((max - min) / median, in %).
--
-- A GPU is flagged only when it is worse than the median by more than the
-- figure's noise, the largest of: the median of the GPUs' spreads (the
-- repetitions' noise; clua.noise's threshold, 10 %, where the table measures
-- none), the scatter across the GPUs (with three or more: 3 x 1.4826 x the
-- median absolute deviation from the median, in % of it, a robust 3 sigma
-- that one slow GPU does not widen), and a floor: 2 %, or clua.noise's
-- threshold (10 %) for CPU devices, whose cores the host's other work shares
-- (two healthy cores of one host differ by 5-10 % under load). A --quick card
-- is too short to flag, whatever its repetitions: its figures are summarised,
-- nothing is flagged. Its kernels last microseconds: on two H200s with one
-- kept busy by another program, `--quick --reps 10` flagged the idle GPU on
-- 45 figures (its clocks fell between kernels) and the busy one on 35.
-- @module clua.cluster
local noise = require("clua.noise")
local report = require("clua.report")
local roofline = require("clua.roofline")
local stats = require("clua.stats")
local units = require("clua.units")

local cluster = {}

--- The smallest difference from the median that is flagged, in %.
cluster.FLOOR = 2
--- The floor for CPU devices (clua.noise's threshold), in %.
cluster.CPU_FLOOR = noise.THRESHOLD
--- Robust sigmas of the scatter across GPUs a flagged figure must exceed.
cluster.SIGMAS = 3

-- The scatter of values across GPUs in % of their median: SIGMAS x 1.4826 x
-- the median absolute deviation (a robust sigma: one GPU far off does not
-- move it), or nil with fewer than three GPUs (no majority to go by).
local function rank_scatter(values, median)
  if #values < 3 or median == 0 then return nil end
  local dev = {}
  for i, v in ipairs(values) do dev[i] = math.abs(v - median) end
  return cluster.SIGMAS * 1.4826 * stats.median(dev) / math.abs(median) * 100
end

local TIME_UNITS = { ns = true, us = true, ["µs"] = true, ms = true, s = true }

-- The row's spread in % for column c of table d, or nil.
local function row_spread(d, row, c)
  local has, next_col = {}, nil
  for i, x in ipairs(d.columns) do
    has[x.name] = x
    if x == c then next_col = d.columns[i + 1] end
  end
  -- a spread column right after the figure's is its own ("host clock", "host spread")
  if next_col and next_col.spread and type(row[next_col.name]) == "number" then return row[next_col.name] end
  if has.spread and has.spread.unit == "%" and type(row.spread) == "number" then return row.spread end
  local v = row[c.name]
  if has.min and has.max and has.min.unit == c.unit and has.max.unit == c.unit
    and type(row.min) == "number" and type(row.max) == "number" and v > 0 then
    return (row.max - row.min) / v * 100
  end
  local lo, mid, hi = row["min time"], row["median time"], row["max time"]
  if type(lo) == "number" and type(mid) == "number" and type(hi) == "number" and mid > 0 then
    return (hi - lo) / mid * 100
  end
end

local function text(v)
  if type(v) == "number" and v == math.floor(v) and math.abs(v) < 2^53 then return ("%d"):format(v) end
  return tostring(v)
end

--- The figures of one report card.
-- @tparam {table,...} recipes the card's recipes as its JSON holds them
-- ({name =, tables = {table data,...}}; a recipe that failed has no tables)
-- @treturn {table,...} figures in card order: {id, recipe, table, row, column,
-- unit, value, spread (or nil), lower (true where less is better: a time)}
function cluster.figures(recipes)
  local out = {}
  for _, r in ipairs(recipes) do
    for _, d in ipairs(r.tables or {}) do
      if d.id == roofline.ID then goto next_table end
      local keys, cmp = {}, {}
      for _, c in ipairs(d.columns) do
        if c.key then keys[#keys + 1] = c.name end
        if c.compare then cmp[#cmp + 1] = c end
      end
      if #keys == 0 and d.columns[1] then keys[1] = d.columns[1].name end
      if #cmp == 0 then
        for _, c in ipairs(d.columns) do
          if not c.key and c.name ~= keys[1] and type((d.rows[1] or {})[c.name]) == "number" then
            cmp[1] = c
            break
          end
        end
      end
      for _, row in ipairs(d.rows) do
        local parts = {}
        for i, k in ipairs(keys) do parts[i] = text(row[k] == nil and "-" or row[k]) end
        local key = table.concat(parts, " ")
        for _, c in ipairs(cmp) do
          local v = row[c.name]
          if type(v) == "number" and v == v then
            out[#out + 1] = {
              id = table.concat({ r.name, d.id or "", key, c.name }, " / "),
              recipe = r.name, table = d.id, row = key, column = c.name, unit = c.unit, value = v,
              spread = row_spread(d, row, c), lower = TIME_UNITS[c.unit or ""] or false,
            }
          end
        end
      end
      ::next_table::
    end
  end
  return out
end

--- The cluster's figures: medians and flags.
-- @tparam {table,...} gpus one entry per GPU, in rank order: {rank, host,
-- index ("P:D"), device (its name), figures (cluster.figures), failed (the
-- recipes that did not run, a list of names)}
-- @tab[opt] opts `quick` (true: the cards are --quick cards, too short to
-- flag: nothing is flagged), `cpu` (true: the devices are CPUs, the floor is
-- cluster.CPU_FLOOR)
-- @treturn table {quick, gpus = gpus (each given `flagged`, a list of
-- {figure, value, median, ratio, noise}), figures = {id, unit, lower, median,
-- noise, repetition_noise, scatter, n, best, worst, flagged (count)}...}, in
-- the first GPU's order with any figure only other GPUs have after it}
function cluster.summarize(gpus, opts)
  opts = opts or {}
  local floor = opts.cpu and cluster.CPU_FLOOR or cluster.FLOOR
  local order, by_id = {}, {}
  for _, g in ipairs(gpus) do
    g.by_id, g.flagged = {}, {}
    for _, f in ipairs(g.figures or {}) do
      g.by_id[f.id] = f
      if not by_id[f.id] then
        by_id[f.id] = { id = f.id, recipe = f.recipe, unit = f.unit, lower = f.lower, values = {}, spreads = {} }
        order[#order + 1] = by_id[f.id]
      end
      local s = by_id[f.id]
      s.values[#s.values + 1] = f.value
      if f.spread then s.spreads[#s.spreads + 1] = f.spread end
    end
  end
  for _, s in ipairs(order) do
    s.n = #s.values
    s.median = stats.median(s.values)
    s.measured_noise = #s.spreads > 0
    s.repetition_noise = s.measured_noise and stats.median(s.spreads) or noise.THRESHOLD
    s.scatter = rank_scatter(s.values, s.median)
    s.noise = math.max(s.repetition_noise, s.scatter or 0, floor)
    s.best = s.lower and stats.min(s.values) or stats.max(s.values)
    s.worst = s.lower and stats.max(s.values) or stats.min(s.values)
    s.flagged = 0
    s.values, s.spreads = nil, nil
  end
  for _, g in ipairs(gpus) do
    for _, s in ipairs(order) do
      local f = g.by_id[s.id]
      if f and s.n > 1 and s.median ~= 0 and not opts.quick then
        local ratio = f.value / s.median
        -- how far worse than the median, in % of it
        local worse = (s.lower and (ratio - 1) or (1 - ratio)) * 100
        if worse > s.noise then
          g.flagged[#g.flagged + 1] = { figure = s.id, unit = s.unit, value = f.value, median = s.median,
            ratio = ratio, noise = s.noise }
          s.flagged = s.flagged + 1
        end
      end
    end
    g.by_id = nil
  end
  return { quick = opts.quick or false, floor = floor, gpus = gpus, figures = order }
end

local function num(v, unit)
  if type(v) ~= "number" then return "-" end
  if unit == "ns" then return units.format_time(v) end
  return units.format_number(math.tointeger(v) or v) .. (unit and unit ~= "" and (" " .. unit) or "")
end

local md = require("clua.escape").markdown

--- The cluster report as Markdown lines: the GPUs (one row each, with the
-- number of figures worse than the median beyond their noise and the worst
-- of them), the flagged figures, and the median of every figure.
-- @tparam table sum cluster.summarize's result
-- @treturn {string,...}
function cluster.markdown(sum)
  local out = {}
  local function add(s) out[#out + 1] = s end
  add("## The GPUs")
  add("")
  add("| rank | host | index | device | figures | worse than the median | the worst |")
  add("|---:|---|---|---|---:|---:|---|")
  for _, g in ipairs(sum.gpus) do
    local worst
    for _, f in ipairs(g.flagged) do
      local off = math.abs(1 - f.ratio)
      if not worst or off > math.abs(1 - worst.ratio) then worst = f end
    end
    local failed = g.failed and #g.failed > 0 and (" (did not run: " .. md(table.concat(g.failed, ", ")) .. ")") or ""
    add(("| %d | %s | %s | %s | %d%s | %d | %s |"):format(g.rank, md(g.host), md(g.index or "?"), md(g.device or "?"),
      #(g.figures or {}), failed, #g.flagged,
      worst and ("%s: %.3f× the median"):format(md(worst.figure), worst.ratio) or "-"))
  end
  add("")
  local flagged = {}
  for _, g in ipairs(sum.gpus) do
    for _, f in ipairs(g.flagged) do flagged[#flagged + 1] = { g = g, f = f } end
  end
  add("## Below the median by more than the noise")
  add("")
  if sum.quick then
    add("Not flagged: a --quick card is too short to flag a GPU, whatever its --reps: its kernels last "
      .. "microseconds, which time how soon a GPU's clocks rise more than the GPU, and a GPU that another "
      .. "program keeps busy runs each of them whole within its share of time. Run the card without --quick to flag.")
  elseif #flagged == 0 then
    add(#sum.gpus > 1 and "No GPU is worse than the median of any figure by more than that figure's noise."
      or "One GPU: nothing to compare it with.")
  else
    add("| host | index | figure | value | median | ratio | noise |")
    add("|---|---|---|---:|---:|---:|---:|")
    for _, x in ipairs(flagged) do
      add(("| %s | %s | %s | %s | %s | %.3f | %.1f %% |"):format(md(x.g.host), md(x.g.index or "?"), md(x.f.figure),
        num(x.f.value, x.f.unit), num(x.f.median, x.f.unit), x.f.ratio, x.f.noise))
    end
  end
  add("")
  add("## Every figure")
  add("")
  add(("The median over the GPUs, the best and the worst GPU's value, and the noise a GPU must fall below the median "
    .. "by to be flagged: the largest of the median spread of the figure's repetitions ((max - min) / median; %d %% "
    .. "where its table measures none, marked *), the scatter across the GPUs (with three or more: %d x 1.4826 x "
    .. "the median absolute deviation, a robust %d sigma, marked † where it is the larger) and %d %%%s.")
    :format(noise.THRESHOLD, cluster.SIGMAS, cluster.SIGMAS, sum.floor or cluster.FLOOR,
      sum.floor == cluster.CPU_FLOOR and " (the devices are CPUs, whose cores the host's other work shares)" or ""))
  add("")
  add("| figure | GPUs | median | best | worst | noise | flagged |")
  add("|---|---:|---:|---:|---:|---:|---:|")
  for _, s in ipairs(sum.figures) do
    local mark = (s.scatter and s.scatter > s.repetition_noise and s.scatter >= (sum.floor or cluster.FLOOR)) and " †"
      or (not s.measured_noise and s.noise == s.repetition_noise) and " *" or ""
    add(("| %s | %d | %s | %s | %s | %.1f %%%s | %d |"):format(md(s.id), s.n, num(s.median, s.unit), num(s.best, s.unit),
      num(s.worst, s.unit), s.noise, mark, s.flagged))
  end
  return out
end

--- The cluster as CSV (report.csv: plain RFC 4180): a row per GPU (rank,
-- host, index, device, flagged) and a column per figure (its id and unit in
-- the header).
-- @tparam table sum cluster.summarize's result
-- @treturn string
function cluster.csv(sum)
  local cols = { "rank", "host", "index", "device", "flagged" }
  for _, s in ipairs(sum.figures) do cols[#cols + 1] = { name = s.id, unit = s.unit } end
  local t = report.new{ title = "cluster", id = "cluster", columns = cols }
  for _, g in ipairs(sum.gpus) do
    local row = { rank = g.rank, host = g.host, index = g.index, device = g.device, flagged = #g.flagged }
    for _, f in ipairs(g.figures or {}) do row[f.id] = f.value end
    t:add(row)
  end
  return report.csv(t)
end

return cluster
