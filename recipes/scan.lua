-- scan: the work-efficient (Blelloch) exclusive prefix sum, without and with
-- the padding that removes local-memory bank conflicts, within a work-group
-- and across a large array (scan the blocks, scan their totals, add back).
-- GPU course, lecture "Example of bank conflicts removal in Scan" (Harris,
-- Sengupta, Owens, GPU Gems 3 ch. 39), the padding macro CONFLICT_FREE_OFFSET.
local cl = require("cl")
local recipe = require("clua.recipe")
local units = require("clua.units")

local R = recipe.new{
  name = "scan",
  description = [[Work-efficient exclusive prefix sum of uints: one work-group's block and a large array,
    without padding, with CONFLICT_FREE_OFFSET and with the zero-bank-conflicts offset.]],
  seed = "GPU course lecture \"Example of bank conflicts removal in Scan\", CONFLICT_FREE_OFFSET",
  quick_size = "1MiB", check_size = "8196", -- 2049 uints: a partial last block, for the checker
  student = [[the work-group scan of each block: a kernel with the arguments of scan_plain (__global const uint
    *in, __global uint *out, __global uint *sums, uint n, __local uint *temp), built with -DLOG_NUM_BANKS=L
    (L = log2 --banks) and launched like scan_plain: ceil(n / 2B) x B work-items in 1-D groups of B = --local
    (n / 2 rounded up to whole groups: one group per block of 2B elements), temp of 2B + ((2B - 1) >> L) +
    ((2B - 1) >> 2L) + 1 uints (room for either padding). Group g must write the exclusive prefix sum of its
    block in[2Bg .. 2B(g + 1)) (elements at or past n count as 0) to out[2Bg + j] for every index below n
    (out[2Bg] = 0; uint arithmetic, mod 2^32) and the block's total to sums[g]; nothing else (out holds whole
    blocks: its tail past n must keep the poison it is filled with). in and out may be the same buffer (read
    your block before writing it): the large-array scan scans the block totals in place. Timed alone (every
    block, one launch) and as the recipe's large-array scan (its levels and uniform_add around your kernel);
    checked exactly against the CPU's prefix sums, writes outside out[0 .. n) and sums caught; ranked against
    the recipe's kernels within each.]],
  student_name = "scan",
  options = function(p)
    p:int("--local", "Work-group size B, a power of two (a block is 2B elements).", "256")
    p:int("--banks", "Local-memory banks the padding is for (a power of two).", "32")
  end,
}

local PADS = {
  { k = "scan_plain", name = "no padding", pad = 0 },
  { k = "scan_padded", name = "CONFLICT_FREE_OFFSET", pad = 1 },
  { k = "scan_zero_conflicts", name = "zero-conflicts offset", pad = 2 },
}

R:main(function(R, dev)
  local info, q = dev.info, R.queue
  local B, banks = R.args["local"], R.args.banks
  if B < 1 or B & (B - 1) ~= 0 then error("--local must be a power of two, got " .. B) end
  if banks < 2 or banks & (banks - 1) ~= 0 then error("--banks must be a power of two >= 2, got " .. banks) end
  local logb = math.floor(math.log(banks, 2) + 0.5)
  local m = 2 * B -- elements per block
  local n = math.min(math.tointeger(R.size or (info.type == "GPU" and 64 * 2^20 or 16 * 2^20)),
    info.max_mem_alloc_size, info.global_mem_size // 4) // 4
  if n < 1 then error("--size is too small: at least 4 bytes") end
  local bytes = n * 4

  if B > info.max_work_group_size then
    error(("--local %d exceeds the device's maximum work-group size %d"):format(B, info.max_work_group_size))
  end
  local prog = R:program("scan.cl", { LOG_NUM_BANKS = logb })
  local add = prog:kernel("uniform_add")
  local function temp_bytes(pad) -- TEMP_WORDS(m, pad) of scan.cl
    local i = m - 1
    return (m + (pad == 0 and 0 or pad == 1 and i >> logb or (i >> logb) + (i >> (2 * logb))) + 1) * 4
  end
  if temp_bytes(2) > info.local_mem_size then -- the largest padding's
    error(("--local %d needs %d bytes of local memory, the device has %d")
      :format(B, temp_bytes(2), info.local_mem_size))
  end

  -- Input: uints in [0, 15]; the references, in one Lua loop (uint arithmetic,
  -- mod 2^32): the exclusive scan of the whole array, of each block, and each
  -- block's total.
  local host = cl.array("uint", n):random(11, 0, 15)
  local nblocks = (n + m - 1) // m
  local full, blk, totals = cl.array("uint", n), cl.array("uint", n), cl.array("uint", nblocks)
  local sum = 0
  for b = 0, nblocks - 1 do
    local t = 0
    for i = b * m, math.min(n, (b + 1) * m) - 1 do
      blk[i], full[i] = t, (sum + t) & 0xffffffff
      t = (t + host[i]) & 0xffffffff
    end
    totals[b], sum = t, sum + t
  end

  -- Buffers: input, output, and the block totals of every level of the
  -- large-array scan (level k has ceil(size(k-1) / m) elements, down to one
  -- block), plus one word for the last level's total. out holds whole blocks;
  -- a scan owns its first n elements: past them, the last block's tail must
  -- keep its poison.
  local din = R:input("in", host)
  local dout = R:output("out", "uint", nblocks * m)
  local sizes, sumbufs = { n }, {}
  repeat
    sizes[#sizes + 1] = (sizes[#sizes] + m - 1) // m
    sumbufs[#sumbufs + 1] = R:output(#sumbufs == 0 and "sums" or ("sums (level %d)"):format(#sumbufs + 1),
      "uint", sizes[#sizes])
  until sizes[#sizes] == 1

  local function scan(k, pad, src, dst, sums, count)
    k:args(src, dst, sums, cl.uint(count), cl["local"](temp_bytes(pad)))
    return q:launch(k, (count + m - 1) // m * B, B)
  end

  -- Each kernel tried once in groups of B (the first block; the outputs are
  -- poisoned again before timing). The kernel's reported work_group_size is
  -- no guide (NVIDIA's driver reports 256 and runs 1024): a variant the driver
  -- refuses is left out with a note.
  -- Assignment mode (--kernel FILE): the student's kernel, a variant after
  -- the recipe's three, given the local memory of the largest padding; a
  -- refusal ends the recipe.
  local pads, scopes, refused = {}, { "block", "whole" }, {}
  for _, p in ipairs(R:with_student(PADS, { LOG_NUM_BANKS = logb }, PADS[3])) do
    local k = p.student and p.kernel or prog:kernel(p.k)
    k:args(din, dout, sumbufs[1], cl.uint(n), cl["local"](temp_bytes(p.pad)))
    local ok, why = R:try_launch(k, B, B)
    if p.student then R:check_student("work-group scan, " .. p.label) end -- its writes past a buffer, named now
    if ok then pads[#pads + 1] = { k = k, name = p.student and p.label or p.name, pad = p.pad, student = p.student }
    elseif p.student then error(("%s: the driver refused it in groups of %d: %s"):format(p.label, B, why))
    else
      refused[#refused + 1] = ("%s left out: the driver refused %s in groups of %d: %s"):format(p.name, p.k, B, why)
    end
  end
  if #pads == 0 then
    error(("--local %d: the driver refused every scan kernel (%s)"):format(B, table.concat(refused, "; ")))
  end
  if #sizes > 2 then
    add:args(dout, sumbufs[1], cl.uint(n))
    local ok, why = R:try_launch(add, B, B)
    if not ok then
      scopes = { "block" }
      refused[#refused + 1] = ("large-array scan left out: the driver refused uniform_add in groups of %d: %s")
        :format(B, why)
    end
  end

  -- The large-array scan: scan the blocks, scan the totals level by level (in
  -- place), then add each level's scanned totals back to the level below;
  -- out[0 .. n) the scan, every level's totals owned as well.
  local function whole(p)
    local evs = { scan(p.k, p.pad, din, dout, sumbufs[1], n) }
    for lv = 2, #sizes - 1 do
      evs[#evs + 1] = scan(p.k, p.pad, sumbufs[lv - 1], sumbufs[lv - 1], sumbufs[lv], sizes[lv])
    end
    for lv = #sizes - 2, 1, -1 do
      add:args(lv == 1 and dout or sumbufs[lv - 1], sumbufs[lv], cl.uint(sizes[lv]))
      evs[#evs + 1] = q:launch(add, (sizes[lv] + m - 1) // m * B, B)
    end
    return evs
  end

  -- The work-group scan: one work-group per block of m elements, each scanned
  -- on its own: out[0 .. n) the blocks' scans, sums the blocks' totals.
  local results, what = {}, { block = "work-group scan", whole = "large-array scan" }
  for _, scope in ipairs(scopes) do
    for _, p in ipairs(pads) do
      local outs = { { dout, owns = { 0, n }, expect = scope == "block" and blk or full, exact = true },
        { sumbufs[1], expect = scope == "block" and totals or nil, name = "block totals" } }
      for lv = 2, scope == "block" and 0 or #sumbufs do outs[#outs + 1] = { sumbufs[lv] } end
      local r = R:measure{ label = ("%s, %s"):format(what[scope], p.name), reads = { din }, outputs = outs,
        bytes = 2 * bytes,
        -- the work-efficient scan: 2 (n - 1) additions (up-sweep and down-sweep)
        ops = not p.student and 2 * (n - 1) or nil,
        run = function() return scope == "block" and { scan(p.k, p.pad, din, dout, sumbufs[1], n) } or whole(p) end }
      results[#results + 1] = { scope = scope, p = p, r = r, launches = scope == "block" and 1 or 2 * #sizes - 3 }
    end
  end

  -- Everything verified: the figures.
  local t = R:table{
    title = ("Exclusive scan of %d uints (%s), blocks of %d"):format(n, units.format_size(bytes), m),
    id = "scan",
    columns = { { name = "variant", key = true }, { name = "launches" }, R:time_columns("µs"),
      R:bw_column("bandwidth", { compare = false }), { name = "padding speed-up", unit = "x", format = "%.2f" } },
  }
  local plain = {}
  for _, x in ipairs(results) do
    if x.p.pad == 0 then plain[x.scope] = x.r.median end
    R:add_row(t, x.r, { variant = x.r.label, launches = x.launches,
      ["padding speed-up"] = x.p.pad > 0 and not x.p.student and plain[x.scope] and plain[x.scope] / x.r.median
        or nil })
  end
  t:note(("work-group scan: every block of %d elements (%d work-items) scanned on its own, one launch; \z
    large-array scan: the blocks, then their totals level by level (%s), then the totals added back")
    :format(m, B, table.concat(sizes, " -> ")))
  t:note("time: first start to last end of the variant's launches; bandwidth: (n read + n written) x 4 bytes / \z
    time (the large-array scan moves about twice that: the add-back reads and writes the output again)")
  t:note(("padding for %d banks: CONFLICT_FREE_OFFSET(i) = i >> %d; zero-conflicts offset (i >> %d) + \z
    (i >> %d); padding speed-up: the unpadded variant's time / this one's"):format(banks, logb, logb, 2 * logb))
  t:note("every output checked exactly against a CPU prefix sum of the same uints in [0, 15] (seed 11)"
    .. (info.type ~= "GPU" and "; a CPU device has no local-memory banks: a difference here is not a \z
      bank conflict (padding adds a shift and an add per index and changes the cache footprint)" or ""))
  for _, why in ipairs(refused) do t:note(why) end
  local student_label = R.student_label
  if student_label then
    t:note(("%s: the work-group scan is the student's kernel alone; the large-array scan, the recipe's levels \z
      and uniform_add around it; its local memory that of the zero-conflicts offset"):format(student_label))
    -- Ranked within each scope, whose rows name the scope first.
    for _, scope in ipairs(scopes) do
      R:rank(t, "time", function(row) return row.variant:sub(1, #what[scope]) == what[scope] end,
        { student = ("%s, %s"):format(what[scope], student_label) })
    end
  end
  R:emit(t)
end)
