-- constant: reading __constant memory with one address per warp vs many.
-- NVIDIA OpenCL Best Practices Guide 3.2.5 "Constant Memory" (and the OpenCL
-- slides "Constant Memory"): reads from the constant cache are as fast as
-- registers when all threads of a (half) warp read the same address; different
-- addresses are serialised, the cost growing with their number. Every
-- work-item sums `iters` reads of a small table, indexed by the loop counter
-- (one address), or by the loop counter plus lid % spread (spread addresses
-- per warp), from a program-scope __constant array, a __constant kernel
-- argument and a __global one (kernels/constant.cl).
local cl = require("cl")
local recipe = require("clua.recipe")
local plot = require("clua.plot")

local R = recipe.new{
  name = "constant",
  description = [[Constant memory: one address per warp (broadcast) vs 2..32 addresses (serialised), __constant vs
    __global reads of the same table.]],
  seed = "NVIDIA OpenCL Best Practices Guide 3.2.5; OpenCL slides \"Constant Memory\"",
  options = function(p)
    p:int("--work-items", "Work-items (default: 8192 per compute unit on a GPU, 32768 on a CPU; 4096 with "
      .. "--quick, 512 with --check-size).")
    p:int("--iters", "Table reads per work-item (default: 1024 on a GPU, 512 on a CPU; 32 with --quick, 8 with "
      .. "--check-size).")
    p:int("--table", "Table entries (uints, a power of two).", "1024")
    p:int("--local", "Work-group size (capped by the device's maximum).", "256")
  end,
}

local MEMORIES = {
  { id = "program", label = "__constant array" }, -- program scope
  { id = "constant", label = "__constant arg" },  -- kernel argument
  { id = "global", label = "__global arg" },
}

R:main(function(R, dev)
  local info, q = dev.info, R.queue
  local gpu = info.type == "GPU"
  local tsize = R.args.table
  assert(tsize >= 32 and tsize & (tsize - 1) == 0, "--table must be a power of two, at least 32")
  assert(tsize * 4 <= info.constant_mem_size, ("--table: %d bytes exceed the device's %d bytes of constant memory")
    :format(tsize * 4, info.constant_mem_size))
  local iters = R.args.iters or (R.check_size and 8 or R.quick and 32 or gpu and 1024 or 512)
  local warp = info.warp_size or 32
  local tbl = cl.array("uint", tsize):random(1, 0, 65535)
  local tab = tbl:totable()
  -- the program-scope array's contents come in as a build option: -DTABLE_VALUES=v0,v1,...
  local defines = { TABLE = tsize, TABLE_VALUES = table.concat(tab, ",") }
  local L = math.min(R.args["local"], info.max_work_group_size)
  local n = R.args.work_items or (R.check_size and 512 or R.quick and 4096 or (gpu and 8192 or 32768) * info.compute_units)
  n = math.max(L, n // L * L)
  local dtable, dout = R:input("table", tbl), R:output("out", "uint", n, "write_only")

  -- The index patterns: the loop counter, then j + lid % spread.
  local patterns = { { label = "j (loop counter)", addresses = 1 } }
  for _, s in ipairs({ 1, 2, 4, 8, 16, 32, L > 32 and L or nil }) do
    if s <= L then
      patterns[#patterns + 1] = { label = s == L and "j + lid" or ("j + lid %% %d"):format(s), spread = s,
        addresses = math.min(s, warp) }
    end
  end

  -- The CPU reference of one pattern: work-item i's sum depends on lid % spread only (lid = i % L), so one
  -- work-group's sums, repeated by doubling copies in C (n is a multiple of L).
  local function reference(spread)
    local ref, sums, len = cl.array("uint", n), {}, L
    for r = 0, (spread or 1) - 1 do
      local sum = 0
      for j = 0, iters - 1 do sum = sum + tab[((j + r) & (tsize - 1)) + 1] end
      sums[r] = sum & 0xFFFFFFFF
    end
    for i = 0, L - 1 do ref[i] = sums[i % (spread or 1)] end
    while len < n do
      local c = math.min(len, n - len)
      ref:slice(len, c):copy(ref:slice(0, c))
      len = len + c
    end
    return ref
  end

  -- Each kernel writes out[0 .. n), checked exactly against the CPU's sums;
  -- bytes: the 4-byte reads the caches serve (held against the cache cap),
  -- ops: one addition a read.
  local results, base, global_t = {}, {}, {}
  for _, pat in ipairs(patterns) do
    local ref = reference(pat.spread)
    for _, mem in ipairs(MEMORIES) do
      local k = R:kernel("constant.cl", mem.id .. (pat.spread and "_spread" or "_uniform"), defines)
      k:args(table.unpack(mem.id == "program" and { dout, iters, pat.spread } or { dtable, dout, iters, pat.spread }))
      local res = R:measure{ label = ("%s %s"):format(mem.label, pat.label), run = function() return q:launch(k, n, L) end,
        reads = { mem.id ~= "program" and dtable or nil }, outputs = { { dout, expect = ref, exact = true } },
        bytes = 4 * n * iters, bound = "cache", ops = n * iters, type = "int", roofline = false }
      results[#results + 1] = { mem = mem, pat = pat, t = res }
      if not pat.spread then base[mem.id] = res.median end
      if mem.id == "global" then global_t[pat.label] = res.median end
    end
  end

  -- Everything verified: the figures.
  local reads = n * iters
  local t = R:table{
    title = ("Constant memory: %d work-items x %d reads of a %d-entry uint table"):format(n, iters, tsize),
    id = "constant",
    columns = {
      { name = "memory", key = true }, { name = "index", key = true }, { name = "addresses per warp" },
      R:time_columns("ms"), { name = "reads", unit = "G/s", format = "%.1f" },
      R:bw_column("delivered", { theoretical = false, compare = false }),
      { name = "slowdown", unit = "x", format = "%.2f" }, { name = "vs global", unit = "x", format = "%.2f" } },
  }
  local p = plot.new{ title = "Constant vs global reads by addresses per warp",
    x = { name = "distinct addresses per warp", log2 = true }, y = { name = "reads", unit = "G/s" } }
  for _, r in ipairs(results) do
    local gps = reads / r.t.median
    R:add_row(t, r.t, { memory = r.mem.label, index = r.pat.label, ["addresses per warp"] = r.pat.addresses,
      reads = gps, delivered = r.t.bw, slowdown = r.t.median / base[r.mem.id],
      ["vs global"] = r.mem.id ~= "global" and r.t.median / global_t[r.pat.label] or nil })
    if r.pat.spread and r.pat.spread <= 32 then p:add(r.mem.label, r.pat.spread, gps) end
  end
  t:note(("lid = get_local_id(0), work-groups of %d; warp = %d work-items%s"):format(L, warp,
    info.warp_size and "" or " (assumed: the driver reports no warp size)"))
  t:note("delivered: 4-byte reads served to work-items per second (from the caches, not DRAM)")
  t:note("__constant array: program scope, initialised by -DTABLE_VALUES; __constant arg / __global arg: "
    .. "a buffer passed as a __constant / __global const uint * argument")
  t:note("slowdown: time / the same memory's j (loop counter) row; vs global: this time / the __global arg time")
  t:note("every output checked exactly against sums computed on the CPU; outputs poisoned before each run, the table "
    .. "argument checked unchanged")
  R:emit(t)
  R:plot(p)
end)
