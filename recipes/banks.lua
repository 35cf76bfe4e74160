-- banks: local-memory bank conflicts. NVIDIA OpenCL Best Practices Guide
-- 3.2.2.1 and the lecture's "Bank conflicts" slides: successive 32-bit words
-- sit in successive banks; a request whose addresses fall n to a bank is split
-- into n requests (n times slower), except that one word read by all is a
-- broadcast. Work-items chase pointers through a table in local memory, a
-- warp's work-items 1, 2, 4, ..., 32 words apart, in a random permutation of
-- the banks, at random words, or all on one word; every chain is replayed on
-- the CPU, so the reads are proved to have happened.
local cl = require("cl")
local recipe = require("clua.recipe")
local plot = require("clua.plot")
local bankconflict = require("clua.bankconflict")
local sweeptable = require("clua.sweeptable")

local R = recipe.new{
  name = "banks",
  description = [[Local-memory bank conflicts: reads at stride 1 to 32 words, a random permutation of the
    banks, random words and a broadcast; time and slowdown against stride 1.]],
  seed = "NVIDIA OpenCL Best Practices Guide 3.2.2.1; lecture slides (seed 001) \"Bank conflicts\", "
    .. "\"Access with bank conflicts\"",
  size = "8KiB",
  student = [[a kernel with the arguments of chase (__global const uint *table, __global const uint *start,
    __global uint *out, uint mask, int iterations, __local uint *buf), run once per pattern like chase:
    --groups x G work-items in 1-D groups of G = --local-size (a whole number of groups, no rounding), buf of
    W = mask + 1 uints (W a power of two, at least 64). table holds W words, word j = ((j + 97) & mask) | p_j
    << 16 (p_j < 2^16); start holds G words, the pattern's first word for each local id. Work-item g, local id
    l, follows four chains c = 0..3: chain c starts at i_c = (start[l] + c W / 4) & mask and reads
    `iterations` times v = table[i_c]; acc += v >> 16; i_c = v & mask (one uint acc for the four chains, mod
    2^32; read from a copy of the table in buf, as chase does: local memory is what is measured); it must
    write out[g] = acc * 65599 + i_0 + 3 i_1 + 5 i_2 + 7 i_3 (uint arithmetic). Checked exactly against the
    CPU's replay of the chains for every pattern, writes outside out caught; ranked against chase by the sum
    of the patterns' median times.]],
  student_name = "chase",
  options = function(p)
    p:int("--iterations", "Reads of each of a work-item's four chains (default 1024 on a GPU, 256 on a CPU, "
      .. "32 with --quick, 4 with --check-size).")
    p:int("--groups", "Work-groups (default: compute units x 16 on a GPU, x 4 on a CPU, x 2 with --quick).")
    p:int("--local-size", "Work-items per group (a multiple of --banks).", "256")
    p:int("--banks", "Banks of the conflict model (32-bit words), each request serving as many work-items "
      .. "(16 for the guide's compute capability 1.x).", "32", "B")
  end,
}

local STEP = 97 -- every read moves each chain on by this many words
local STRIDES = { 1, 2, 4, 8, 16, 32, 33 }

R:main(function(R, dev, info)
  local gpu = info.type == "GPU"
  local q = R.queue
  local banks = R.args.banks
  if banks < 1 or banks & (banks - 1) ~= 0 or banks > 64 then error("--banks: a power of two up to 64 expected") end
  local G = R.args.local_size
  if G < banks or G % banks ~= 0 or G > info.max_work_group_size then
    error(("--local-size %d: a multiple of %d up to %d expected"):format(G, banks, info.max_work_group_size))
  end

  -- The table: W words of local memory, a power of two that holds stride 33
  -- across a request (W >= 33 x banks) and fits 16-bit indices.
  local W = 1
  while W * 4 < R.size do W = W * 2 end
  while W < 33 * banks do W = W * 2 end
  W = math.min(W, 1 << 16)
  while W * 4 > info.local_mem_size do W = W // 2 end
  if W < 33 * banks then error(("local memory of %d bytes is too small for the table"):format(info.local_mem_size)) end
  local mask = W - 1
  local iterations = R.args.iterations or (R.check_size and 4 or R.quick and 32 or gpu and 1024 or 256)
  local groups = R.args.groups or info.compute_units * (R.quick and 2 or gpu and 16 or 4)
  local items = groups * G
  local reads = items * 4 * iterations

  local payload = cl.array("uint", W):random(5, 0, 0xFFFF)
  local table_ = cl.array("uint", W)
  local next_, pay = {}, {}
  for j = 0, W - 1 do
    next_[j], pay[j] = (j + STEP) & mask, payload[j]
    table_[j] = next_[j] | pay[j] << 16
  end

  -- The CPU replay: the output of a work-item whose first read is at word s.
  local chain = {}
  local function replay(s)
    if not chain[s] then
      local i, acc = s, 0
      for _ = 1, iterations do acc, i = acc + pay[i], next_[i] end
      chain[s] = { acc, i }
    end
    return chain[s][1], chain[s][2]
  end
  local function expected(s)
    local acc, f = 0, {}
    for c = 0, 3 do
      local a, i = replay((s + c * (W // 4)) & mask)
      acc, f[c] = acc + a, i
    end
    return (acc * 65599 + f[0] + 3 * f[1] + 5 * f[2] + 7 * f[3]) & 0xFFFFFFFF
  end

  -- The patterns: word(lid), the first word work-item lid reads, kept as an array.
  local patterns = {}
  local function pattern(name, word, stride)
    local start = cl.array("uint", G)
    for lid = 0, G - 1 do start[lid] = word(lid) end
    patterns[#patterns + 1] = { name = name, stride = stride, start = start }
  end
  for _, s in ipairs(STRIDES) do pattern(("stride %d"):format(s), function(lid) return (lid * s) & mask end, s) end
  local rnd = cl.array("uint", 2 * G):random(6, 0, 1 << 30)
  local perm = {}
  for first = 0, G - 1, banks do
    local left = {}
    for l = 0, banks - 1 do left[l + 1] = l end
    for l = 0, banks - 1 do -- Fisher-Yates: a bank for each work-item of the request, at a random row
      local k = l + rnd[first + l] % (banks - l)
      left[l + 1], left[k + 1] = left[k + 1], left[l + 1]
      perm[first + l] = left[l + 1] + banks * (rnd[G + first + l] % (W // banks))
    end
  end
  pattern("random permutation", function(lid) return perm[lid] end)
  pattern("random words", function(lid) return rnd[G + lid] & mask end)
  pattern("broadcast", function(lid) return (lid // banks * 37) & mask end)

  -- The contract of a launch: table and start read and unchanged, out (one
  -- word per work-item) owned whole, every word the CPU's replay.
  local dTable, dOut = R:input("table", table_), R:output("out", "uint", items, "write_only")
  local exp, one = cl.array("uint", items), cl.array("uint", G)
  local k = R:kernel("banks.cl", "chase")
  -- Assignment mode (--kernel FILE): the student's kernel, timed and checked on every pattern after chase.
  local student, student_label = R:student_kernel()

  for _, p in ipairs(patterns) do
    local dStart = R:input("start", p.start) -- each pattern's own: an input compared with its array
    for lid = 0, G - 1 do one[lid] = expected(p.start[lid]) end
    for g = 0, groups - 1 do exp:slice(g * G, G):copy(one) end
    local function measure(kk, who)
      kk:args(dTable, dStart, dOut, mask, iterations, cl["local"](4 * W))
      return R:measure{ label = who and (who .. ", " .. p.name) or p.name, reads = { dTable, dStart },
        bytes = 4 * reads, bound = "cache", roofline = false, run = function() return q:launch(kk, items, G) end,
        outputs = { { dOut, check = function(got)
          R:verify(("%s%s (%d work-items x 4 chains x %d reads)"):format(who and (who .. ": ") or "", p.name, items,
            iterations), got, exp)
        end } } }
    end
    p.t = measure(k)
    p.st = student and measure(student, student_label)
    -- the model: the mean over requests of the n-way conflict of the first reads
    p.model = select(2, bankconflict.degree(function(lid) return p.start[lid] end, G, banks))
  end

  -- Everything verified: the figures.
  local us = function(v) return ("%.1f"):format(v / 1e3) end
  local way = function(v) return v == math.floor(v) and ("%d"):format(v) or ("%.2f"):format(v) end
  local t = R:table{
    title = ("Local-memory reads: %d work-items x 4 chains x %d reads, %s table"):format(items, iterations,
      ("%d KiB"):format(4 * W // 1024)),
    id = "banks",
    columns = { { name = "pattern", key = true }, R:time_columns("us"),
      R:bw_column("local reads", { theoretical = false }), { name = "slowdown", unit = "x", format = "%.2f" },
      { name = "model", unit = "n-way", format = way } },
  }
  if student then -- assignment mode: the student's kernel on each pattern
    table.move({ { name = "student", unit = "us", format = us, ns = true },
      { name = "student slowdown", unit = "x", format = "%.2f" } }, 1, 2, #t.columns + 1, t.columns)
  end
  local base = patterns[1].t.median
  for _, p in ipairs(patterns) do
    R:add_row(t, p.t, { pattern = p.name, ["local reads"] = p.t.bw, slowdown = p.t.median / base, model = p.model,
      student = p.st and p.st.median, ["student slowdown"] = p.st and p.st.median / patterns[1].st.median })
  end
  t:note(("local reads: %d reads x 4 bytes / time (the group's copy of the table from global memory included)")
    :format(reads))
  t:note(("model: the n-way bank conflict of each read from its addresses: %d banks of 32-bit words serving "
    .. "requests of %d work-items (mean over requests); the guide: n-way is n times slower"):format(banks, banks))
  t:note("verified: every work-item's result (the sum of its chains' payloads and their last addresses) against "
    .. "the CPU's replay of the same chains")
  if student then
    t:note(("student: the median time of %s on each pattern; student slowdown: against its own stride 1")
      :format(student_label))
  end

  local p = plot.new{ title = "Bank conflicts: slowdown against stride 1",
    x = { name = "stride", unit = "words", log2 = true }, y = { name = "slowdown", unit = "x" } }
  for _, pt in ipairs(patterns) do
    if pt.stride and pt.stride & (pt.stride - 1) == 0 then
      p:add("measured", pt.stride, pt.t.median / base)
      p:add("model", pt.stride, pt.model)
    end
  end
  R:emit(t)
  -- Assignment mode: both kernels over every pattern, ranked by the sum of their times.
  sweeptable.summary(R, { times = true, param = "name", label = "pattern", first = "stride 1", worst = "slowest",
    reference = "chase (kernels/banks.cl)", points = patterns, id = "banks-student",
    title = ("chase and the student's kernel over the %d patterns"):format(#patterns),
    note = ("time: the sum over the %d patterns of each pattern's median"):format(#patterns) })
  R:plot(p)
end)
