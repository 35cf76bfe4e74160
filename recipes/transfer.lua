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
local cl = require("cl")
local recipe = require("clua.recipe")
local plot = require("clua.plot")
local units = require("clua.units")

local R = recipe.new{ name = "transfer", quick_size = "1MiB", check_size = "64KiB", size_share = 8,
  description = [[Host<->device and device<->device bandwidth by size: pageable vs pinned vs mapped, blocking
    vs non-blocking, many small vs one batched transfer.]],
  seed = "NVIDIA OpenCL Best Practices Guide 3.1, 3.1.1, 3.1.2; lecture \"Using host page-locked memory\"; "
    .. "slides \"Page-locked vs. Page-able memory\"",
  options = function(p)
    p:option("--mode", "Sizes of the sweep, as bandwidthTest: quick (the large size only), range "
      .. "(--start to --end by --increment), shmoo (powers of 2 from --start to --end).", "shmoo")
      :choices({ "quick", "range", "shmoo" })
    p:option("--start", "Smallest size of the sweep.", "1KiB"):argname("SIZE"):convert(units.parse_size)
    p:option("--end", "Largest size of the sweep (default: the large size, --size)."):argname("SIZE"):convert(units.parse_size)
    p:option("--increment", "Step of --mode range (default: (end - start) / 8)."):argname("SIZE"):convert(units.parse_size)
    p:option("--batch", "Bytes of the many-small vs one-batched test (default 16MiB on a GPU, 4MiB "
      .. "on other devices, 256KiB with --quick)."):argname("SIZE"):convert(units.parse_size)
    p:int("--chunks", "Largest number of small transfers (default 4096, 256 with --quick).")
  end }

local POISON = -7 -- host destinations' poison (device ones: R:measure's)

-- The sizes of the sweep, multiples of 4 bytes, ascending.
local function sweep_sizes(mode, start, stop, inc)
  local list = {}
  if mode == "range" then
    for s = start, stop, inc or math.max(4, (stop - start) // 8) do list[#list + 1] = s end
  elseif mode == "shmoo" then
    while start < stop do list[#list + 1], start = start, start * 2 end
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
  local info, q, ctx = dev.info, R.queue, R.ctx
  local gpu = info.type == "GPU"
  local cap = math.min(info.max_mem_alloc_size, info.global_mem_size // 8)
  local large = math.min(math.tointeger(R.size or (gpu and 256 or 64) * 2^20), cap) // 4 * 4
  local stop = math.min(R.args["end"] or large, cap) // 4 * 4
  local sizes = sweep_sizes(R.args.mode, math.min(R.args.start, stop), stop, R.args.increment)
  local maxbytes = math.max(large, stop)
  if maxbytes < 4 then error("--size must be at least 4 bytes") end
  local us, fs = units.format_time, units.format_size

  -- Host memory. Pageable: cl.array (malloc'd, 4 KiB-aligned). Pinned: an
  -- alloc_host_ptr buffer mapped once, its view the host array of write/read
  -- on a plain device buffer (guide 3.1.1, oclBandwidthTest). Mapped: an
  -- alloc_host_ptr buffer the host maps, fills or reads, and unmaps each time.
  local function pinned() return (q:map(ctx:buffer(maxbytes, "alloc_host_ptr"), { type = "float" })) end -- keeps its buffer
  local src = cl.array("float", maxbytes // 4):random(1, -1, 1)
  local host = { pageable = { src = src, dst = cl.array("float", maxbytes // 4) }, pinned = { src = pinned():copy(src), dst = pinned() } }
  -- One transfer of `bytes` per series: run(io, bytes, blocking) returns the
  -- event to time, `io` its device buffers: `io.dst` a destination of `bytes`
  -- (as bandwidthTest allocates per size; `to`: "device" or "mapped", an
  -- alloc_host_ptr buffer), `io.src` a source (`from`); `host_dst` a host
  -- destination. The mapped series return nothing and are timed by the host
  -- clock (map + host copy + unmap + clFinish), as bandwidthTest's mapped mode:
  -- a map that moves no data need not carry profiling times (NVIDIA's
  -- write_invalidate map reports START 0).
  local function write(h) return function(io, b, blocking) return q:write(io.dst, h, { size = b, blocking = blocking }) end end
  local function read(h) return function(io, b, blocking) return q:read(io.src, h, { size = b, blocking = blocking }) end end
  local list = {
    { dir = "H2D", mem = "pageable", host = true, to = "device", run = write(src) },
    { dir = "H2D", mem = "pinned", host = true, to = "device", run = write(host.pinned.src) },
    { dir = "H2D", mem = "mapped", to = "mapped", run = function(io, b)
      local view = q:map(io.dst, { map = "write_invalidate", size = b, type = "float" })
      view:copy(src:slice(0, b // 4))
      q:unmap(view)
    end },
    { dir = "D2H", mem = "pageable", host = true, from = "device", host_dst = host.pageable.dst, run = read(host.pageable.dst) },
    { dir = "D2H", mem = "pinned", host = true, from = "device", host_dst = host.pinned.dst, run = read(host.pinned.dst) },
    { dir = "D2H", mem = "mapped", from = "mapped", host_dst = host.pageable.dst, run = function(io, b)
      local view = q:map(io.src, { map = "read", size = b, type = "float" })
      host.pageable.dst:slice(0, b // 4):copy(view)
      q:unmap(view)
    end },
    { dir = "D2D", mem = "device", device = true, from = "device", to = "device",
      run = function(io, b) return q:copy(io.src, io.dst, { size = b }) end },
  }
  for _, s in ipairs(list) do s.name = s.dir .. " " .. s.mem end

  -- One measurement through the harness, run(io, i) its repetition, its repetitions fitted to a few hundred
  -- ms: the destination (R:output of b bytes, poisoned first; the API refuses a transfer past its end) must
  -- hold src's first b bytes (checked on the device against the device source), the source (the first b
  -- bytes of one R:input of src per kind, made once) be unchanged; the figure is held against PCIe
  -- (D2D: the memory, bytes read + written, b each way). A host destination is poisoned here and verified
  -- right after. `figures`, R:measure's, those the repetition yields besides.
  local sources = { device = R:input("device source", src), mapped = R:input("mapped source", src, "read_only alloc_host_ptr") }
  local on_device = R:device_strided(sources.device, 1)
  local function measure(s, b, label, run, figures)
    local want, io = src:slice(0, b // 4), {}
    if s.to then io.dst = R:output(s.name .. " destination", "float", b // 4, s.to == "mapped" and "alloc_host_ptr" or nil) end
    io.src = sources[s.from]
    if s.host_dst then s.host_dst:slice(0, b // 4):fill(POISON) end
    local res = R:measure{ label = label, run = function(i) return run(io, i) end, reads = { io.src }, figures = figures,
      bytes = (s.device and 2 or 1) * b, bound = s.device and "memory" or "pcie", footprint = 2 * b, budget_ms = 100,
      outputs = io.dst and { { io.dst, expect = want, exact = true, device = on_device } } or nil }
    if s.host_dst then R:verify(label, s.host_dst:slice(0, b // 4), want, { exact = true }) end
    io = nil
    collectgarbage() -- the buffers and read-backs: memory the Lua collector does not see
    return res
  end

  -- 1. At the large size: blocking vs non-blocking calls, by events and by the host clock around the call
  -- + clFinish, and when the call returns (the queue finished before and after, outside that
  -- interval); the blocking call's (mapped: map/unmap) is also the sweep's point at that size.
  local calls, sweep, host_latency = {}, {}, {}
  for _, s in ipairs(list) do
    sweep[s.name] = {}
    for _, blocking in ipairs(s.device and {} or s.host and { true, false } or { true }) do
      local what, returned = s.host and (blocking and "blocking" or "non-blocking") or "map/unmap", {}
      local r = measure(s, large, ("%s %s"):format(s.name, what), function(io, i)
        local t0, ev = cl.now(), s.run(io, large, blocking)
        if i >= 1 then returned[i] = cl.now() - t0 end
        q:finish() -- the host clock: the call + clFinish
        return ev
      end, { { "host", clock = "host", bytes = large }, { "returns", value = function(_, rep) return returned[rep] end } })
      if blocking then sweep[s.name][large] = r end
      calls[#calls + 1] = { s = s, call = what, events = r, host = r.figures.host, returns = s.host and r.figures.returns }
    end
  end
  local d2d = list[#list]
  sweep[d2d.name][large] = measure(d2d, large, "D2D", function(io) return d2d.run(io, large) end)

  -- 2. The sweep: blocking calls timed by events (mapped: by the host clock).
  -- The smallest size is also timed by the host clock (call + clFinish).
  for _, s in ipairs(list) do
    for _, b in ipairs(sizes) do
      local label = ("%s %s"):format(s.name, fs(b))
      sweep[s.name][b] = sweep[s.name][b] or measure(s, b, label, function(io) return s.run(io, b, true) end)
      if b == sizes[1] then
        host_latency[s.name] = measure(s, b, label .. " (host clock)", function(io) s.run(io, b, true) end)
      end
    end
  end
  local d2d_large = sweep[d2d.name][large]

  -- 3. Many small transfers against one batched transfer of the same bytes:
  -- k non-blocking writes of batch/k bytes each, then the queue finished.
  local batch = math.min(maxbytes, R.args.batch or (R.quick and 256 * 1024) or (gpu and 16 or 4) * 2^20) // 4 * 4
  local maxchunks = R.args.chunks or (R.quick and 256 or 4096)
  local batched = {}
  for _, mem in ipairs({ "pinned", "pageable" }) do
    local k = 1
    while k <= maxchunks and batch % (4 * k) == 0 do -- equal chunks of whole floats
      local each, views = batch // k // 4 * 4, {}
      for c = 0, k - 1 do views[c + 1] = host[mem].src:slice(c * each // 4, each // 4) end
      local r = measure(list[mem == "pinned" and 2 or 1], each * k, ("%d x %s %s"):format(k, fs(each), mem), function(io)
        local evs = {}
        for c = 1, k do evs[c] = q:write(io.dst, views[c], { offset = (c - 1) * each, blocking = false }) end
        return evs
      end, { { "host", clock = "host" } })
      batched[#batched + 1] = { mem = mem, k = k, each = each, r = r, host = r.figures.host }
      k = k * 16
    end
  end

  -- Everything verified: the figures.
  if #sizes > 1 then
    local cols = { { name = "size", key = true, format = fs } }
    for _, s in ipairs(list) do
      cols[#cols + 1] = R:bw_column(s.name, { theoretical = false, cache = s.device and "D2D" or nil })
    end
    cols[#cols + 1] = R:spread_column()
    local t = R:table{ title = "Bandwidth by transfer size (median; events, mapped by host clock)", id = "sweep", columns = cols }
    t:note("blocking clEnqueueWrite/ReadBuffer (pageable: cl.array; pinned: a mapped alloc_host_ptr buffer), "
      .. "mapped: map + host copy + unmap of an alloc_host_ptr buffer + clFinish, host clock; "
      .. "D2D: clEnqueueCopyBuffer, bytes read + written")
    t:note("spread: the largest of the row's series")
    for _, b in ipairs(sizes) do
      local row = { size = b }
      for _, s in ipairs(list) do row[s.name] = sweep[s.name][b] end
      R:add_row(t, nil, row)
    end
    R:emit(t)

    local lat = R:table{ title = "Latency and asymptotic bandwidth", id = "latency",
      columns = { { name = "series", key = true }, { name = "latency", format = us, ns = true, compare = true },
        R:spread_column("latency spread"), { name = "latency by" }, { name = "host latency", format = us, ns = true },
        R:spread_column("host spread"), R:bw_column("asymptotic", { theoretical = "pcie", compare = false }),
        { name = "n1/2", format = fs } } }
    local small, big = sizes[1], sizes[#sizes]
    for _, s in ipairs(list) do
      if not s.device then
        local r0, h0, bw = sweep[s.name][small], host_latency[s.name], sweep[s.name][big].bw
        lat:add{ series = s.name, latency = r0.median, ["latency spread"] = r0.spread,
          ["latency by"] = r0.clock == "event" and "events" or "host clock",
          ["host latency"] = h0.median, ["host spread"] = h0.spread,
          asymptotic = bw, ["n1/2"] = math.floor(r0.median * 1e-9 * bw * R.divisor + 0.5) }
      end
    end
    lat:note(("latency: median time of the smallest transfer (%s) by the clock 'latency by' names: events "
      .. "(the copy on the device alone) or the host clock (mapped: map + copy + unmap + clFinish); host "
      .. "latency: the host clock around the blocking call + clFinish, the overhead of a call included; "
      .. "asymptotic: bandwidth at the largest (%s)"):format(fs(small), fs(big)))
    lat:note("n1/2: latency x asymptotic bandwidth, the size at which a transfer reaches half the asymptote (Hockney)")
    R:emit(lat)

    local function chart(title) return plot.new{ title = title, x = { name = "size", unit = "bytes", log2 = true },
      y = { name = "bandwidth", unit = R.bw_unit } } end
    local p, pd = chart("Host<->device bandwidth by transfer size"), chart("Device-to-device copy bandwidth by size")
    for _, s in ipairs(list) do
      for _, b in ipairs(sizes) do (s.device and pd or p):add(s.name, b, sweep[s.name][b].bw) end
    end
    R:plot(p)
    R:plot(pd)
  end

  local function plain(name) return R:bw_column(name, { theoretical = false, compare = false }) end
  local t = R:table{ title = ("Host<->device transfers of %s"):format(fs(large)), id = "transfers",
    columns = { { name = "direction", key = true }, { name = "memory", key = true }, { name = "call", key = true },
      R:bw_column("bandwidth", { theoretical = "pcie" }), plain("min"), plain("max"), R:spread_column(),
      plain("host clock"), R:spread_column("host spread"), { name = "call returns", format = us, ns = true },
      R:spread_column("returns spread"), { name = "returns", unit = "% of host", format = "%.0f" } } }
  for _, c in ipairs(calls) do
    local e, h, r = c.events, c.host, c.returns
    R:add_row(t, e, { direction = c.s.dir, memory = c.s.mem, call = c.call, min = R:bw(large, e.max),
      max = R:bw(large, e.min), ["host clock"] = h.bw, ["host spread"] = h.spread,
      ["call returns"] = r and r.median, ["returns spread"] = r and r.spread,
      returns = r and 100 * r.median / h.median })
  end
  t:note("bandwidth: events (END - START; mapped: host clock around map + host copy + unmap + clFinish), "
    .. "median of the repetitions; min/max from the slowest/fastest")
  t:note("host clock: around the call + clFinish; call returns: host time until the call returned "
    .. "(the queue finished before and after)")
  R:emit(t)

  local dt = R:table{ title = "Device-to-device copy (clEnqueueCopyBuffer)", id = "d2d",
    columns = { { name = "size", key = true, format = fs }, { name = "time", format = us, ns = true, compare = false },
      R:bw_column("bandwidth"), plain("min"), plain("max"), R:spread_column() } }
  local function d2d_row(b, r) R:add_row(dt, r, { size = b, min = R:bw(2 * b, r.max), max = R:bw(2 * b, r.min) }) end
  if #sizes > 1 then d2d_row(sizes[1], sweep[d2d.name][sizes[1]]) end
  d2d_row(large, d2d_large)
  dt:note("bytes read + written (2 x size), as BabelStream's copy; events, median")
  R:emit(dt)

  local bt = R:table{ title = ("Many small transfers vs one batched transfer (%s host to device)"):format(fs(batch)),
    id = "batched", columns = { { name = "memory", key = true }, { name = "transfers", key = true },
      { name = "each", format = fs }, { name = "events", format = us, ns = true }, R:spread_column("events spread"),
      { name = "host clock", format = us, ns = true, compare = true }, R:spread_column("host spread"),
      R:bw_column("bandwidth", { theoretical = "pcie", compare = false }), { name = "slowdown", unit = "x", format = "%.2f" } } }
  local one = {}
  for _, b in ipairs(batched) do
    if b.k == 1 then one[b.mem] = b.host.median end
    R:add_row(bt, b.r, { memory = b.mem, transfers = b.k, each = b.each, events = b.r.median,
      ["events spread"] = b.r.spread, ["host clock"] = b.host.median, ["host spread"] = b.host.spread,
      bandwidth = R:bw(b.k * b.each, b.host.median), slowdown = b.host.median / one[b.mem] })
  end
  bt:note("k non-blocking clEnqueueWriteBuffer of size/k bytes, then clFinish; events: first START to last END; "
    .. "host clock: from the first enqueue to the end; bandwidth from the host clock")
  R:emit(bt)
end)
