--- clua.roofline: the seed experiments on the device's roofline.
--
-- A recipe declares, for each kernel variant it times, the operations it
-- does and the bytes it moves (`R:roofline_point`); this module does the
-- arithmetic (intensity = operations / bytes, throughput = operations /
-- time), keeps the points as a table of the recipe's JSON (id
-- "roofline-points", not printed), and, for the report card, places every
-- point under the roofs that recipes/roofline.lua measured: the roof at a
-- point's intensity is min(peak, bandwidth x intensity), and the point's
-- share of it says how far the kernel is from what the device can do.
-- Operations count as the kernel's arithmetic: a multiply-add is 2, an add
-- or a comparison 1; a copy or a transpose does none (intensity 0: memory-
-- bound by definition, shown against the bandwidth roof, and in the plot's
-- table only, as a log axis has no 0).
-- @module clua.roofline
local tablemodel = require("clua.tablemodel")
local plot = require("clua.plot")

local roofline = {}

--- The id of the table a recipe's JSON holds its points in.
roofline.ID = "roofline-points"

local COLUMNS = {
  { name = "kernel", key = true }, { name = "type", key = true },
  { name = "ops", format = "%.4g" }, { name = "bytes", format = "%.4g" },
  { name = "time", unit = "µs", ns = true, format = function(v) return ("%.1f"):format(v / 1e3) end },
  { name = "intensity", unit = "op/B", format = "%.3g" },
  { name = "throughput", unit = "G/s", format = "%.1f" },
  { name = "bandwidth", unit = "GB/s", format = "%.1f" },
  { name = "cache" },
}

--- One point: {kernel=, type=, ops=, bytes=, time= (ns)} with its
-- intensity (op/B), throughput (G/s) and bandwidth (GB/s), and `cache`
-- ("yes") when its working set fits the device's cache.
-- @string kernel the variant's name, as the recipe's tables call it
-- @tab work `ops`, `bytes`, `ns` (the time: a median), `type` (default "float"), `cache` (true: a cache figure)
-- @treturn table
function roofline.point(kernel, work)
  assert(type(work.ops) == "number" and work.ops >= 0, "roofline.point: ops must be a number >= 0")
  assert(type(work.bytes) == "number" and work.bytes > 0, "roofline.point: bytes must be a number > 0")
  assert(type(work.ns) == "number" and work.ns > 0, "roofline.point: ns must be a number > 0")
  return { kernel = kernel, type = work.type or "float", ops = work.ops, bytes = work.bytes, time = work.ns,
    intensity = work.ops / work.bytes, throughput = work.ops / work.ns, bandwidth = work.bytes / work.ns,
    cache = work.cache and "yes" or nil }
end

--- The table of a recipe's points (a clua.tablemodel table), for its JSON.
-- @tparam {table,...} points from roofline.point
-- @tparam function make_table R:table, or tablemodel.new
function roofline.table(points, make_table)
  local t = (make_table or tablemodel.new){ title = "Roofline points: operations and bytes of each kernel",
    id = roofline.ID, columns = COLUMNS }
  for _, pt in ipairs(points) do t:add(pt) end
  t:note("intensity = operations / bytes moved (compulsory traffic); throughput = operations / median time")
  return t
end

--- The roofs by type from recipes/roofline.lua's "roofs" table (rows with
-- type, bandwidth in GB/s, peak in G/s): {float = {bandwidth=, peak=}, ...}.
function roofline.roofs(rows)
  local out = {}
  for _, r in ipairs(rows or {}) do
    if r.type and r.bandwidth and r.peak then out[r.type] = { bandwidth = r.bandwidth, peak = r.peak } end
  end
  return out
end

--- The roof (G/s) at an intensity: min(peak, bandwidth x intensity).
function roofline.roof_at(roof, intensity)
  return math.min(roof.peak, roof.bandwidth * intensity)
end

--- Every point placed under its type's roof: a clua.tablemodel table with the recipe,
-- kernel, intensity, throughput, the roof there, the % of it, and whether
-- the point is memory- or compute-bound (left or right of the ridge). A
-- cache figure (a point whose working set fits the device's cache, or one
-- above its memory roof, which only a cache can give) is bound "cache":
-- held against the cache's roof where one was measured (`opts.cache_roof`)
-- and it stays under it, never as a % of the memory's roof.
-- @tparam {table,...} points rows {recipe=, kernel=, type=, intensity=, throughput=, bandwidth=, cache=}
-- @tparam table roofs from roofline.roofs
-- @tab[opt] opts `cache_roof` (GB/s: the cache's bandwidth the card measured, clua.glance.cache_roof)
function roofline.place(points, roofs, opts)
  opts = opts or {}
  local t = tablemodel.new{ title = "Every experiment on the roofline", id = "roofline-placed",
    columns = {
      { name = "recipe", key = true }, { name = "kernel", key = true }, { name = "type" },
      { name = "intensity", unit = "op/B", format = "%.3g" },
      { name = "throughput", unit = "G/s", format = "%.1f" },
      { name = "bandwidth", unit = "GB/s", format = "%.1f" },
      { name = "roof", unit = "G/s", format = "%.1f" },
      { name = "% of roof", unit = "%", format = "%.1f" },
      { name = "bound" },
    } }
  local missing, cached = {}, 0
  for _, pt in ipairs(points) do
    local roof = roofs[pt.type]
    local row = { recipe = pt.recipe, kernel = pt.kernel, type = pt.type, intensity = pt.intensity,
      throughput = pt.throughput, bandwidth = pt.bandwidth }
    if roof then
      local ridge = roof.peak / roof.bandwidth
      local function share(r)
        if pt.intensity > 0 then
          local at = roofline.roof_at(r, pt.intensity)
          return pt.throughput / at * 100, at
        end
        return pt.bandwidth / r.bandwidth * 100 -- of the bandwidth roof
      end
      local pct, at = share(roof)
      row.bound = pt.intensity < ridge and "memory" or "compute"
      if row.bound == "memory" and (pt.cache == "yes" or pct > 100) then
        row.bound, cached = "cache", cached + 1
        pct, at = nil, nil
        if opts.cache_roof then
          local cpct, cat = share({ peak = roof.peak, bandwidth = opts.cache_roof })
          if cpct <= 100 then pct, at = cpct, cat end
        end
      end
      row.roof, row["% of roof"] = at, pct
    else
      missing[pt.type] = true
    end
    t:add(row)
  end
  t:note("roof: min(peak, bandwidth x intensity) of the point's type, as recipes/roofline.lua measured them; "
    .. "a kernel with no operations (a copy, a transpose) is placed against the bandwidth roof")
  t:note("bound: memory left of the ridge point (peak / bandwidth), compute right of it")
  if cached > 0 then
    t:note(("cache: %d point%s whose working set fits the device's cache, or above the memory roof (which only a "
      .. "cache can give): a cache figure, not a share of the memory's roof; %s"):format(cached,
      cached == 1 and "" or "s", opts.cache_roof and ("held against the cache's read bandwidth that "
      .. "recipes/memory.lua measured (%.1f GB/s) where it stays under it"):format(opts.cache_roof)
      or "no cache roof measured in this run (recipes/memory.lua)"))
  end
  for ty in pairs(missing) do t:note(("%s: no measured roof (run recipes/roofline.lua)"):format(ty)) end
  return t
end

--- The roofline plot: each type's roof (dashed) and every point with
-- operations, labelled "recipe: kernel", its tip (what a browser shows on
-- hover) the kernel, intensity, throughput and % of the roof.
-- @tparam {table,...} points as for roofline.place
-- @tparam table roofs from roofline.roofs
-- @string title
function roofline.plot(points, roofs, title)
  local p = plot.new{ title = title or "The seed experiments on the roofline",
    x = { name = "arithmetic intensity", unit = "op/B", log2 = true },
    y = { name = "throughput", unit = "G/s", log2 = true } }
  local lo, hi = 1 / 16, 256
  for _, pt in ipairs(points) do
    if pt.intensity > 0 then lo, hi = math.min(lo, pt.intensity), math.max(hi, pt.intensity) end
  end
  local types = {}
  for ty in pairs(roofs) do types[#types + 1] = ty end
  table.sort(types)
  for _, ty in ipairs(types) do
    local roof, name = roofs[ty], ty .. " roof"
    local x = lo
    while x <= hi * 1.0001 do p:add(name, x, roofline.roof_at(roof, x)); x = x * 2 end
    local ridge = roof.peak / roof.bandwidth
    if ridge > lo and ridge < hi then p:add(name, ridge, roof.peak) end
    p:style(name, { dashed = true })
  end
  for _, pt in ipairs(points) do
    if pt.intensity > 0 then
      local name = "kernels (" .. pt.type .. ")"
      local roof = roofs[pt.type]
      local share = "no measured roof"
      if roof then
        local at = roofline.roof_at(roof, pt.intensity)
        local pct = pt.throughput / at * 100
        if pt.bound == "cache" or (pt.cache == "yes" or pct > 100) and pt.intensity < roof.peak / roof.bandwidth then
          share = "a cache figure: its working set fits the cache"
            .. (type(pt["% of roof"]) == "number" and (" (%.1f%% of the cache's roof)"):format(pt["% of roof"]) or "")
        else
          share = ("%.1f%% of the roof (%.4g G/s)"):format(pct, at)
        end
      end
      local tip = ("%s: %s (%s)\nintensity %.3g op/B\nthroughput %.4g G/s\n%s"):format(pt.recipe or "",
        pt.kernel, pt.type, pt.intensity, pt.throughput, share)
      p:add(name, pt.intensity, pt.throughput, ("%s: %s"):format(pt.recipe or "", pt.kernel), tip)
      p:style(name, { line = false })
    end
  end
  return p
end

return roofline
