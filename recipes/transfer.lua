-- transfer: host<->device and device<->device transfers by size.
-- NVIDIA OpenCL Best Practices Guide 3.1 (host<->device bandwidth is far below
-- the device's; "batching many small transfers into one larger transfer
-- performs significantly better"), 3.1.1 "Pinned Memory" (CL_MEM_ALLOC_HOST_PTR
-- buffers mapped once, their pointers the host memory of Write/ReadBuffer, as
-- oclBandwidthTest does), 3.1.2 "Asynchronous Transfers" (blocking vs
-- non-blocking calls); lecture "Using host page-locked memory" ("pinned memory
-- may double memory transfer", mapped "zero-copy"); slides "Page-locked vs.
-- Page-able memory" ("two times faster transfer rates").
-- A sweep of sizes for H2D, D2H (pageable, pinned, mapped) and D2D in the
-- manner of bandwidthTest (--mode quick|range|shmoo), the latency and the
-- asymptotic bandwidth; blocking vs non-blocking calls at the large size; many
-- small transfers against one batched transfer of the same bytes.
local cl = require "cl"
local recipe = require "clua.recipe"
local plot = require "clua.plot"
local units = require "clua.units"

local R = recipe.new{
  name = "transfer",
  description = "Host<->device and device<->device bandwidth by size: pageable vs pinned vs mapped, "
    .. "blocking vs non-blocking, many small vs one batched transfer.",
  seed = "NVIDIA OpenCL Best Practices Guide 3.1, 3.1.1, 3.1.2; lecture \"Using host page-locked memory\"; "
    .. "slides \"Page-locked vs. Page-able memory\"",
  quick_size = "1MiB", quick_reps = 3,
  options = function(p)
    p:option("--mode", "Sizes of the sweep, as bandwidthTest: quick (the large size only), range "
      .. "(--start to --end by --increment), shmoo (powers of 2 from --start to --end).", "shmoo")
      :choices({ "quick", "range", "shmoo" })
    p:option("--start", "Smallest size of the sweep.", "1KiB"):argname("SIZE"):convert(units.parse_size)
    p:option("--end", "Largest size of the sweep (default: the large size, --size).")
      :argname("SIZE"):convert(units.parse_size)
    p:option("--increment", "Step of --mode range (default: (end - start) / 8).")
      :argname("SIZE"):convert(units.parse_size)
    p:option("--batch", "Bytes of the many-small vs one-batched test (default 16MiB on a GPU, 4MiB "
      .. "on other devices, 256KiB with --quick).") :argname("SIZE"):convert(units.parse_size)
    p:option("--chunks", "Largest number of small transfers (default 4096, 256 with --quick).")
      :argname("N"):convert(math.tointeger)
  end,
}

local POISON = 0xFFFFFFFF -- all bits set: a float NaN, never equal to the data
local SENTINEL = -7        -- host arrays' poison

-- The sizes of the sweep, multiples of 4 bytes, ascending.
local function sweep_sizes(mode, start, stop, inc)
  if mode == "quick" then return { stop } end
  local list = {}
  if mode == "range" then
    inc = inc or math.max(4, (stop - start) // 8)
    for s = start, stop, inc do list[#list + 1] = s end
  else
    local s = start
    while s < stop do list[#list + 1] = s; s = s * 2 end
  end
  if list[#list] ~= stop then list[#list + 1] = stop end
  local out, seen = {}, {}
  for _, s in ipairs(list) do
    s = math.max(4, s // 4 * 4)
    if not seen[s] then seen[s] = true; out[#out + 1] = s end
  end
  return out
end

R:main(function(R, dev)
  local info = dev.info
  local q, ctx = R.queue, R.ctx
  local gpu = info.type == "GPU"
  local cap = math.min(info.max_mem_alloc_size, info.global_mem_size // 8)
  local large = math.min(math.tointeger(R.size or (gpu and 256 or 64) * 2^20), cap) // 4 * 4
  local stop = math.min(R.args["end"] or large, cap) // 4 * 4
  local start = math.min(R.args.start, stop)
  local sizes = sweep_sizes(R.args.mode, start, stop, R.args.increment)
  local maxbytes = math.max(large, stop)
  if maxbytes < 4 then error("--size must be at least 4 bytes") end
  local n = maxbytes // 4

  -- Host memory. Pageable: cl.array (malloc'd, 4 KiB-aligned). Pinned: an
  -- alloc_host_ptr buffer mapped once, its view the host array of write/read
  -- on a plain device buffer (guide 3.1.1, oclBandwidthTest). Mapped: an
  -- alloc_host_ptr buffer the host maps, fills or reads, and unmaps each time.
  local function pinned()
    local b = ctx:buffer(maxbytes, "alloc_host_ptr")
    return q:map(b, { type = "float" }), b
  end
  local host = { pageable = {}, pinned = {} }
  host.pageable.src, host.pageable.dst = cl.array("float", n), cl.array("float", n)
  host.pinned.src, host.pinned.srcbuf = pinned()
  host.pinned.dst, host.pinned.dstbuf = pinned()
  local src = host.pageable.src
  src:random(1, -1, 1)
  host.pinned.src:copy(src)
  local check = cl.array("float", n) -- read-backs for verification
  local d1, d2 = ctx:buffer(maxbytes), ctx:buffer(maxbytes)
  local mapped = ctx:buffer(maxbytes, "alloc_host_ptr")

  -- One transfer of `bytes` per series: run(bytes, blocking) returns the event
  -- to time; poison(bytes) and result(bytes) surround the measurement, result
  -- returning what must equal src's first bytes/4 floats. The mapped series
  -- return nothing and are timed by the host clock (map + host copy + unmap +
  -- clFinish), as bandwidthTest's mapped mode: a map that moves no data need
  -- not carry profiling times (NVIDIA's write_invalidate map reports START 0).
  local function read_back(buf, bytes)
    local v = check:slice(0, bytes // 4)
    v:fill(SENTINEL)
    q:read(buf, v)
    return v
  end
  local function host_dst(h)
    return {
      poison = function(bytes) h.dst:slice(0, bytes // 4):fill(SENTINEL) end,
      result = function(bytes) return h.dst:slice(0, bytes // 4) end,
    }
  end
  local function series(s)
    s.name = s.dir .. " " .. s.mem
    return s
  end
  local list = {
    series{ dir = "H2D", mem = "pageable", host = true,
      run = function(b, blocking) return q:write(d1, host.pageable.src, { size = b, blocking = blocking }) end,
      poison = function(b) q:fill(d1, POISON, { type = "uint", size = b }); q:finish() end,
      result = function(b) return read_back(d1, b) end },
    series{ dir = "H2D", mem = "pinned", host = true,
      run = function(b, blocking) return q:write(d1, host.pinned.src, { size = b, blocking = blocking }) end,
      poison = function(b) q:fill(d1, POISON, { type = "uint", size = b }); q:finish() end,
      result = function(b) return read_back(d1, b) end },
    series{ dir = "H2D", mem = "mapped",
      run = function(b)
        local view = q:map(mapped, { map = "write_invalidate", size = b, type = "float" })
        view:copy(src:slice(0, b // 4))
        q:unmap(view)
      end,
      poison = function(b) q:fill(mapped, POISON, { type = "uint", size = b }); q:finish() end,
      result = function(b) return read_back(mapped, b) end },
    series{ dir = "D2H", mem = "pageable", host = true,
      setup = function() q:write(d1, src) end,
      run = function(b, blocking) return q:read(d1, host.pageable.dst, { size = b, blocking = blocking }) end,
      poison = host_dst(host.pageable).poison, result = host_dst(host.pageable).result },
    series{ dir = "D2H", mem = "pinned", host = true,
      setup = function() q:write(d1, src) end,
      run = function(b, blocking) return q:read(d1, host.pinned.dst, { size = b, blocking = blocking }) end,
      poison = host_dst(host.pinned).poison, result = host_dst(host.pinned).result },
    series{ dir = "D2H", mem = "mapped",
      setup = function() q:write(mapped, src) end,
      run = function(b)
        local view = q:map(mapped, { map = "read", size = b, type = "float" })
        host.pageable.dst:slice(0, b // 4):copy(view)
        q:unmap(view)
      end,
      poison = host_dst(host.pageable).poison, result = host_dst(host.pageable).result },
    series{ dir = "D2D", mem = "device", device = true,
      setup = function() q:write(d1, src) end,
      run = function(b) return q:copy(d1, d2, { size = b }) end,
      poison = function(b) q:fill(d2, POISON, { type = "uint", size = b }); q:finish() end,
      result = function(b) return read_back(d2, b) end },
  }

  -- Poison, time (events), verify.
  local corrupted = false
  local function verified(s, b, what, got)
    if not corrupted then corrupted = R:corrupt_one(got) end
    R:verify(("%s, %s (%s)"):format(s.name, units.format_size(b), what), got, src:slice(0, b // 4))
  end
  local function measure(s, b, step, opts, what)
    s.poison(b)
    local t = R:time(step, opts)
    q:finish()
    verified(s, b, what, s.result(b))
    return t
  end

  -- 1. The sweep: blocking calls timed by events (mapped: by the host clock).
  -- The smallest size is also timed by the host clock (call + clFinish).
  local sweep, host_latency = {}, {}
  for _, s in ipairs(list) do
    if s.setup then s.setup() end
    sweep[s.name] = {}
    for _, b in ipairs(sizes) do
      local label = ("%s %s"):format(s.name, units.format_size(b))
      sweep[s.name][b] = measure(s, b, function() return s.run(b, true) end, { label = label }, "sweep")
      if b == sizes[1] then
        host_latency[s.name] = measure(s, b, function() s.run(b, true) end, { label = label }, "host clock")
      end
    end
  end

  -- 2. At the large size: blocking vs non-blocking calls, by events and by the
  -- host clock (around the call + clFinish), and when the call returns.
  local function returns_after(run)
    local times = {}
    for i = 1 - R.warmup, R.reps do
      q:finish()
      local t0 = cl.now()
      run()
      local dt = cl.now() - t0
      if i >= 1 then times[#times + 1] = dt end
    end
    q:finish()
    table.sort(times)
    return times[(#times + 1) // 2]
  end
  local calls = {}
  for _, s in ipairs(list) do
    if not s.device then
      if s.setup then s.setup() end
      for _, blocking in ipairs(s.host and { true, false } or { true }) do
        local what = s.host and (blocking and "blocking" or "non-blocking") or "map/unmap"
        local c = { s = s, call = what }
        c.host = measure(s, large, function() s.run(large, blocking) end,
          { label = s.name .. " " .. what .. " host" }, what .. ", host clock")
        c.events = s.host and measure(s, large, function() return s.run(large, blocking) end,
          { label = s.name .. " " .. what }, what .. ", events") or c.host
        if s.host then
          s.poison(large)
          c.returns = returns_after(function() s.run(large, blocking) end)
          verified(s, large, what .. ", call return", s.result(large))
        end
        calls[#calls + 1] = c
      end
    end
  end
  local d2d = list[#list]
  d2d.setup()
  local d2d_large = measure(d2d, large, function() return d2d.run(large) end, { label = "D2D" }, "large")

  -- 3. Many small transfers against one batched transfer of the same bytes:
  -- k non-blocking writes of batch/k bytes each, then the queue finished.
  local batch = math.min(maxbytes, R.args.batch or (R.quick and 256 * 1024) or (gpu and 16 or 4) * 2^20) // 4 * 4
  local maxchunks = R.args.chunks or (R.quick and 256 or 4096)
  local chunk_counts, count = {}, 1
  while count <= maxchunks and batch % (4 * count) == 0 do -- equal chunks of whole floats
    chunk_counts[#chunk_counts + 1] = count
    count = count * 16
  end
  local batched = {}
  for _, mem in ipairs({ "pinned", "pageable" }) do
    local s = list[mem == "pinned" and 2 or 1]
    local h = host[mem].src
    for _, k in ipairs(chunk_counts) do
      local each = batch // k // 4 * 4
      local views = {}
      for c = 0, k - 1 do views[c + 1] = h:slice(c * each // 4, each // 4) end
      local t = measure(s, each * k, function()
        local evs = {}
        for c = 1, k do
          evs[c] = q:write(d1, views[c], { offset = (c - 1) * each, blocking = false })
        end
        return evs
      end, { host = true, label = ("%d x %s %s"):format(k, units.format_size(each), mem) }, k .. " transfers")
      batched[#batched + 1] = { mem = mem, k = k, each = each, t = t }
    end
  end

  -- Everything verified: the figures.
  local us = function(v) return units.format_time(v) end
  local names = {}
  for i, s in ipairs(list) do names[i] = s.name end

  if #sizes > 1 then
    local cols = { { name = "size", key = true, format = function(v) return units.format_size(v) end } }
    for _, nm in ipairs(names) do cols[#cols + 1] = R:bw_column(nm, { theoretical = false }) end
    local t = R:table{ title = "Bandwidth by transfer size (median; events, mapped by host clock)", id = "sweep", columns = cols }
    for _, b in ipairs(sizes) do
      local row = { size = b }
      for _, s in ipairs(list) do
        row[s.name] = R:bw((s.device and 2 or 1) * b, sweep[s.name][b].median)
      end
      t:add(row)
    end
    t:note("blocking clEnqueueWrite/ReadBuffer (pageable: cl.array; pinned: a mapped alloc_host_ptr buffer), "
      .. "mapped: map + host copy + unmap of an alloc_host_ptr buffer + clFinish, host clock; "
      .. "D2D: clEnqueueCopyBuffer, bytes read + written")
    R:emit(t)

    local lat = R:table{
      title = "Latency and asymptotic bandwidth",
      id = "latency",
      columns = { { name = "series", key = true },
        { name = "latency", format = us, ns = true, compare = true }, { name = "host latency", format = us, ns = true },
        R:bw_column("asymptotic", { theoretical = "pcie", compare = false }),
        { name = "n1/2", format = function(v) return units.format_size(v) end } },
    }
    local small, big = sizes[1], sizes[#sizes]
    for _, s in ipairs(list) do
      if not s.device then
        local t0 = sweep[s.name][small].median
        local bw = R:bw(big, sweep[s.name][big].median)
        lat:add{ series = s.name, latency = t0, ["host latency"] = host_latency[s.name].median,
          asymptotic = bw, ["n1/2"] = math.floor(t0 * 1e-9 * bw * R.divisor + 0.5) }
      end
    end
    lat:note(("latency: median time of the smallest transfer (%s); asymptotic: bandwidth at the largest (%s)")
      :format(units.format_size(small), units.format_size(big)))
    lat:note("n1/2: latency x asymptotic bandwidth, the size at which a transfer reaches half the asymptote "
      .. "(Hockney)")
    R:emit(lat)

    local p = plot.new{ title = "Host<->device bandwidth by transfer size", x = { name = "size", unit = "bytes",
      log2 = true }, y = { name = "bandwidth", unit = R.bw_unit } }
    local pd = plot.new{ title = "Device-to-device copy bandwidth by size", x = { name = "size", unit = "bytes",
      log2 = true }, y = { name = "bandwidth", unit = R.bw_unit } }
    for _, s in ipairs(list) do
      for _, b in ipairs(sizes) do
        (s.device and pd or p):add(s.name, b, R:bw((s.device and 2 or 1) * b, sweep[s.name][b].median))
      end
    end
    R:plot(p)
    R:plot(pd)
  end

  local t = R:table{
    title = ("Host<->device transfers of %s"):format(units.format_size(large)),
    id = "transfers",
    columns = { { name = "direction", key = true }, { name = "memory", key = true }, { name = "call", key = true },
      R:bw_column("bandwidth", { theoretical = "pcie" }),
      R:bw_column("min", { theoretical = false, compare = false }),
      R:bw_column("max", { theoretical = false, compare = false }),
      R:bw_column("host clock", { theoretical = false, compare = false }),
      { name = "call returns", format = us, ns = true }, { name = "returns", unit = "% of host", format = "%.0f" } },
  }
  for _, c in ipairs(calls) do
    t:add{ direction = c.s.dir, memory = c.s.mem, call = c.call,
      bandwidth = R:bw(large, c.events.median), min = R:bw(large, c.events.max), max = R:bw(large, c.events.min),
      ["host clock"] = R:bw(large, c.host.median), ["call returns"] = c.returns,
      returns = c.returns and 100 * c.returns / c.host.median }
  end
  t:note("bandwidth: events (END - START; mapped: host clock around map + host copy + unmap + clFinish), "
    .. "median of the repetitions; min/max from the slowest/fastest")
  t:note("host clock: around the call + clFinish; call returns: host time until the call returned "
    .. "(the queue finished before and after)")
  R:emit(t)

  local dt = R:table{
    title = "Device-to-device copy (clEnqueueCopyBuffer)",
    id = "d2d",
    columns = { { name = "size", key = true, format = function(v) return units.format_size(v) end },
      { name = "time", format = us, ns = true, compare = false }, R:bw_column("bandwidth"),
      R:bw_column("min", { theoretical = false, compare = false }),
      R:bw_column("max", { theoretical = false, compare = false }) },
  }
  local function d2d_row(b, tm)
    dt:add{ size = b, time = tm.median, bandwidth = R:bw(2 * b, tm.median), min = R:bw(2 * b, tm.max),
      max = R:bw(2 * b, tm.min) }
  end
  if #sizes > 1 then d2d_row(sizes[1], sweep[d2d.name][sizes[1]]) end
  d2d_row(large, d2d_large)
  dt:note("bytes read + written (2 x size), as BabelStream's copy; events, median")
  R:emit(dt)

  local bt = R:table{
    title = ("Many small transfers vs one batched transfer (%s host to device)"):format(units.format_size(batch)),
    id = "batched",
    columns = { { name = "memory", key = true }, { name = "transfers", key = true },
      { name = "each", format = function(v) return units.format_size(v) end },
      { name = "events", format = us, ns = true }, { name = "host clock", format = us, ns = true, compare = true },
      R:bw_column("bandwidth", { theoretical = "pcie", compare = false }),
      { name = "slowdown", unit = "x", format = "%.2f" } },
  }
  local one = {}
  for _, r in ipairs(batched) do
    if r.k == 1 then one[r.mem] = r.t.host.median end
    bt:add{ memory = r.mem, transfers = r.k, each = r.each, events = r.t.median, ["host clock"] = r.t.host.median,
      bandwidth = R:bw(r.k * r.each, r.t.host.median), slowdown = r.t.host.median / one[r.mem] }
  end
  bt:note("k non-blocking clEnqueueWriteBuffer of size/k bytes, then clFinish; events: first START to last END; "
    .. "host clock: from the first enqueue to the end; bandwidth from the host clock")
  R:emit(bt)
end)
