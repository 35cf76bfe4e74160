-- multigpu: every device of a platform alone, then all at once, and the
-- device-to-device matrix. Host<->device bandwidth (H2D, D2H, both directions
-- at once) from pinned memory and a device copy kernel, first on each device
-- alone, then started on every device at once from one host thread and
-- flushed together: the aggregate against the sum of the alones is the cost
-- of sharing host memory and the PCIe switches. Then, in one context holding
-- every device, nvbandwidth's matrix (rows the source, columns the
-- destination, GB/s): a kernel on the source writes the buffer (so that only
-- the source holds its latest copy), then the migration to the destination is
-- timed, and the bytes are checked there. With one device (PoCL in CI) the
-- tables have one row and a note says so.
local cl = require("cl")
local recipe = require("clua.recipe")
local units = require("clua.units")
local timeline = require("clua.timeline")
local devicemod = require("clua.device")
local figures = require("clua.figures")
local proc = require("clua.proc")

local R = recipe.new{
  name = "multigpu",
  description = [[Each device alone and all at once (H2D, D2H, both, device copy), and the device-to-device
    matrix.]],
  seed = "nvbandwidth's host and device-to-device matrices; the guide's 3.1 on host transfers",
  size = "256MiB", quick_size = "1MiB", check_size = "64KiB",
}

local CHUNKS = 8 -- the double-buffered staged path's chunks
-- Repetitions of each device-to-device path (unless --reps says otherwise):
-- 12 pairs x 5 paths of 256 MiB at ~1-10 GB/s on four GPUs, each checked.
local PAIR_REPS = 3

R:main(function(R, dev)
  local devices = devicemod.platform_devices(dev)
  local bytes = math.tointeger(R.size) // 4 * 4
  local n = bytes // 4
  local src = cl.array("float", n):random(11, -1, 1)

  -- One context and queue per device (the alone and all-at-once runs), each
  -- with its pinned host memory, its device buffers and a copy kernel: da
  -- holds src (H2D's destination, then read by D2H and the copy), db is
  -- written by both's H2D and by the copy; two pinned chunks for the staged
  -- device-to-device path.
  local rigs, chunk = {}, (n + CHUNKS - 1) // CHUNKS * 4
  for i, d in ipairs(devices) do
    local ctx = cl.context(d)
    local q = ctx:queue(d, { profiling = true })
    local function pinned(b) return q:map(ctx:buffer(b, "alloc_host_ptr"), { type = "float" }) end
    local r = { device = d, index = devicemod.index(d) or tostring(i - 1), ctx = ctx, q = q, hin = pinned(bytes):copy(src),
      q2 = ctx:queue(d, { profiling = true }), -- the second direction of "both"
      hout = pinned(bytes), pins = { pinned(chunk), pinned(chunk) }, facts = d == dev and R.facts or devicemod.facts(d) }
    R:on(r, function() r.da, r.db = R:input("a", src, "read_write"), R:output("b", "float", n) end)
    r.k = ctx:program_file("copy.cl"):build():kernel("copy"):args(r.db, r.da)
    rigs[i] = r
  end
  local pcie = function(r, k) return R:limit("pcie", r.facts) * k end

  -- The operations on a rig, each enqueued without waiting (`go` returns its
  -- events). Their contracts: k x the bytes moved, the buffer written (`dest`;
  -- `host`: the host array too, checked after), what they read, their bound
  -- (a link per direction, or the memory).
  local OPS = {
    { name = "H2D", k = 1, dest = "da", go = function(r) return { r.q:write(r.da, r.hin, { blocking = false }) } end },
    { name = "D2H", k = 1, host = true, reads = true,
      go = function(r) return { r.q:read(r.da, r.hout, { blocking = false }) } end },
    { name = "both", k = 2, dest = "db", host = true, reads = true, go = function(r)
      return { r.q:write(r.db, r.hin, { blocking = false }), r.q2:read(r.da, r.hout, { blocking = false }) } end },
    { name = "copy", k = 2, dest = "db", reads = true, memory = true, go = function(r) return { r.q:launch(r.k, n) } end },
  }
  local function check_host(r, op)
    if op.host then R:verify(("%s on %s: the host array"):format(op.name, r.device.name), r.hout, src, { exact = true }) end
  end

  local alone_cols = { { name = "device", key = true }, { name = "index", key = true } }
  for i, op in ipairs(OPS) do
    alone_cols[#alone_cols + 1] = R:cache_column{ name = op.name, unit = R.bw_unit, format = "%.1f", compare = i == 1 }
    alone_cols[#alone_cols + 1] = R:spread_column(op.name .. " spread")
  end
  local alone = R:table{ title = ("Each device alone (%s per transfer, pinned host memory)"):format(units.format_size(bytes)),
    id = "alone", columns = alone_cols }
  local sum = {} -- of the alones by the host clock, as the all-at-once aggregate is taken
  for _, r in ipairs(rigs) do
    local row = { device = r.device.name, index = r.index }
    R:on(r, function()
      for _, op in ipairs(OPS) do
        if op.host then r.hout:fill(0 / 0) end
        local d = r[op.dest]
        local res = R:measure{ label = ("%s on %s"):format(op.name, r.device.name), queue = r.q,
          run = function() return op.go(r) end, finish = function() r.q:finish(); r.q2:finish() end,
          outputs = d and { { d, expect = src, exact = true } } or nil, reads = op.reads and { r.da } or nil,
          bytes = op.k * bytes, bound = op.memory and "memory" or pcie(r, op.k),
          figures = { { "host", clock = "host", bytes = op.k * bytes } } }
        check_host(r, op)
        row[op.name] = res
        sum[op.name] = (sum[op.name] or 0) + res.figures.host.bw
      end
    end)
    R:add_row(alone, nil, row)
  end
  alone:note("each figure: bytes moved / the median span of the operation's events (" .. R.reps .. " runs); both: an "
    .. "H2D and a D2H at once on two queues, their bytes added; copy: a kernel reading and writing the buffer; "
    .. "every destination poisoned first and checked after, exactly")
  R:emit(alone)

  -- The same all-at-once transfers in plain C (bench/multigpu.c: the same
  -- calls, from one thread and from a thread per device), in this run.
  local cfig, cwhy, csv = {}, nil, os.tmpname()
  local cmd = ("--device %s --size %d --reps %d --warmup %d --kernels %s --csv %s"):format(
    proc.quote(devicemod.index(dev) or "0:0"), bytes, R.reps, R.warmup, proc.quote((cl.root or ".") .. "/kernels"),
    proc.quote(csv))
  local out, cerr = proc.run((cl.root or ".") .. "/build/bench/multigpu", cmd)
  for line in io.lines(csv) do
    local k, v = line:match("^([^,]+),([%d.]+),")
    if k then cfig[k] = tonumber(v) end
  end
  os.remove(csv)
  if cerr == "not built" then cwhy = "build/bench/multigpu is not built (make -f bench/Makefile)"
  elseif not out or not next(cfig) then cwhy = ("build/bench/multigpu %s: %s"):format(out and "gave no figure" or cerr, cmd) end
  local function cbw(k) return cfig[k] and R:bw(cfig[k] * 1e9, 1e9) end -- C prints GB/s (10^9)

  local bw = function(name, compare) return { name = name, unit = R.bw_unit, format = "%.1f", compare = compare } end
  local together = R:table{ title = "All at once: every device started from one host thread, flushed together",
    id = "together", columns = { { name = "operation", key = true }, bw("aggregate", true), bw("sum of alone"),
      { name = "aggregate / sum", unit = "x", format = "%.2f" }, R:spread_column(), bw("slowest device"),
      { name = "enqueue", unit = "% of span", format = "%.0f" }, bw("C one thread"), bw("C thread per device"),
      { name = "clua / C", unit = "x", format = "%.2f" } } }
  local tl = timeline.new(("multigpu: H2D on %d device%s at once"):format(#rigs, #rigs == 1 and "" or "s"))
  for _, op in ipairs(OPS) do
    -- each repetition: enqueue on every device, flush every queue (the host
    -- clock from here), then wait for all (R:measure's finish); every
    -- device's destination (on its own queue) poisoned first and checked
    -- after; a figure of each device, its events' span, and of the enqueue
    local evs, kept, enq, cur, bound, outs, figs = {}, {}, {}, 0, 0, {}, {}
    for i, r in ipairs(rigs) do
      if op.host then r.hout:fill(0 / 0) end
      local b = op.memory and R:limit("memory", r.facts) or pcie(r, op.k)
      bound = bound + b
      if op.dest then outs[#outs + 1] = { r[op.dest], queue = r.q, expect = src, exact = true } end
      figs[i] = { "device " .. i, bytes = op.k * bytes, bound = b, value = function(_, rep) return kept[rep][i] end }
    end
    figs[#figs + 1] = { "enqueue", value = function(_, rep, span) return enq[rep] / span * 100 end }
    local res = R:measure{ label = op.name .. " on every device", bytes = op.k * bytes * #rigs, bound = bound,
      outputs = outs, figures = figs,
      run = function(rep)
        local t0 = cl.now()
        evs = {}
        for i, r in ipairs(rigs) do evs[i] = op.go(r) end
        local tq = cl.now()
        for _, r in ipairs(rigs) do r.q:flush(); r.q2:flush() end
        cur = rep
        if rep >= 1 then enq[rep] = tq - t0 end
      end,
      -- the wait alone inside the host clock's span: the events' times are read after it
      finish = function()
        for _, e in ipairs(evs) do cl.wait(e) end
        if cur >= 1 then kept[cur] = evs end
      end }
    for _, r in ipairs(rigs) do check_host(r, op) end
    local slowest = math.huge
    for i = 1, #rigs do slowest = math.min(slowest, res.figures[i].bw) end
    local c1 = cbw(op.name .. "_one_thread")
    R:add_row(together, res, { operation = op.name, aggregate = res.bw, ["sum of alone"] = sum[op.name],
      ["aggregate / sum"] = res.bw / sum[op.name], ["slowest device"] = slowest, enqueue = res.figures.enqueue.median,
      ["C one thread"] = c1, ["C thread per device"] = cbw(op.name .. "_thread_per_device"),
      ["clua / C"] = c1 and res.bw / c1 })
    for i, e in ipairs(op.name == "H2D" and evs or {}) do
      for _, x in ipairs(e) do tl:add(("%s %s"):format(rigs[i].index, rigs[i].device.name), "write", "H2D", x) end
    end
  end
  together:note("aggregate: bytes moved on every device / the host-clock span from the first enqueue to the last "
    .. "wait's return (median of " .. R.reps .. "); sum of alone: each device's figure taken the same way when it ran "
    .. "alone; slowest device: by its own events; enqueue: the host-clock time until every enqueue of the "
    .. "repetition had returned, in % of its span (median): near 0 when the enqueues return at once and the devices "
    .. "work after the flush, near 100 when an enqueue meant not to block waited for its transfer; every device's "
    .. "destination poisoned first and checked after")
  together:note(cwhy and ("C: " .. cwhy) or ("C one thread, C thread per device: bench/multigpu.c, the same calls in "
    .. "plain C (same size, reps and warm-up, every destination checked), the aggregate from one host thread and from "
    .. "a thread per device started together, run just before this table; clua / C: the aggregate against C's from "
    .. "one thread"))
  if #rigs == 1 then
    together:note("one device on this platform: all at once is the same run as alone, and aggregate / sum differs "
      .. "from 1 by its noise only (on a host with several GPUs the aggregate tells whether they moved data at the "
      .. "same time)")
  end
  R:emit(together)
  R:timeline(tl)

  -- Device to device, by every path a user can take: one context holding
  -- every device (q_dst:copy of the source's buffer, q_dst:migrate of it),
  -- or a context per device staged through host memory (pinned, in one piece
  -- or in double-buffered chunks whose reads and writes overlap; pageable).
  -- Each repetition a kernel on the source writes the buffer (only the source
  -- holds its latest copy) and is waited for; the host clock then runs from
  -- the source's completion to the destination's, a clock that saw the
  -- bytes: NVIDIA's migration event lasts 0 ns and its copy event claims
  -- ~1800 GB/s where the host clock sees ~1 GB/s. An event is shown only
  -- where it is not 0 ns and agrees with the host clock. Every destination is
  -- checked, each figure held against the pair's link (NVLink from NVML, else
  -- PCIe; a staged path against PCIe).
  local ctx = cl.context(devices)
  local qs = {}
  for i, d in ipairs(devices) do qs[i] = ctx:queue(d, { profiling = true }) end
  local sbuf, abuf, bbuf = R:on({ device = devices[1], ctx = ctx, q = qs[1], facts = R.facts }, function()
    return R:input("src", src), R:output("a", "float", n), R:output("b", "float", n)
  end)
  local write = ctx:program_file("copy.cl"):build():kernel("copy"):args(abuf, sbuf)
  local page = cl.array("float", n) -- pageable host memory
  local function part(k) -- chunk k of the staged x CHUNKS path
    local lo, hi = k * n // CHUNKS, (k + 1) * n // CHUNKS
    return { offset = lo * 4, size = (hi - lo) * 4, blocking = false }
  end
  local function staged(host) -- read into host memory from the source, then write from it to the destination
    return function(i, j)
      rigs[i].q:read(rigs[i].db, host or rigs[i].hout)
      rigs[j].q:write(rigs[j].db, host or rigs[i].hout)
    end
  end
  -- each path: the transfer (returning its event where it is one command),
  -- whether it runs in the shared context, and its note
  local PATHS = {
    { name = "copy", shared = true, note = "q_dst:copy(a, b) in one context holding every device",
      go = function(_, j) return qs[j]:copy(abuf, bbuf) end },
    { name = "migrate", shared = true, note = "q_dst:migrate(a) (clEnqueueMigrateMemObjects) in that context",
      go = function(_, j) return qs[j]:migrate(abuf) end },
    { name = "staged", note = "a context per device: q_src:read into pinned host memory, then q_dst:write from it",
      go = staged() },
    { name = "staged x" .. CHUNKS, note = ("the same in %d chunks through two pinned buffers, chunk k+1 read while "
      .. "chunk k is written"):format(CHUNKS),
      go = function(i, j)
        local ri, rj, p = rigs[i], rigs[j], rigs[i].pins
        local rd, wr = ri.q:read(ri.db, p[1], part(0)), nil
        for k = 0, CHUNKS - 1 do
          rd:wait()
          if wr then wr:wait() end -- the other pinned buffer is free again
          wr = rj.q:write(rj.db, p[k % 2 + 1], part(k))
          rj.q:flush()
          if k + 1 < CHUNKS then rd = ri.q:read(ri.db, p[(k + 1) % 2 + 1], part(k + 1)); ri.q:flush() end
        end
        wr:wait()
      end },
    { name = "pageable", note = "a context per device: q_src:read into a cl.array (pageable), q_dst:write from it",
      go = staged(page) },
  }
  local paths = R:table{ title = ("Device to device by each path (%s, host clock from the source's completion to the "
    .. "destination's)"):format(units.format_size(bytes)), id = "paths", columns = {
      { name = "source", key = true }, { name = "destination", key = true }, { name = "path", key = true },
      { name = "bandwidth", unit = R.bw_unit, format = "%.2f", compare = true }, R:spread_column(),
      { name = "event", unit = R.bw_unit, format = "%.2f" },
      { name = "bound", unit = R.bw_unit, format = "%.1f" }, { name = "of bound", unit = "%", format = "%.1f" } } }
  local links = R:table{ title = "Device to device: what joins each pair, its bound and the fastest path", id = "links",
    columns = { { name = "source", key = true }, { name = "destination", key = true }, { name = "link" },
      { name = "NUMA" }, { name = "bound", unit = R.bw_unit, format = "%.1f" }, { name = "fastest path" },
      { name = "fastest", unit = R.bw_unit, format = "%.2f", compare = true },
      { name = "of bound", unit = "%", format = "%.1f" } } }
  local matrix = R:table{ title = "Device to device: the fastest path (rows: source, columns: destination)",
    id = "matrix", columns = { { name = "source", key = true } } }
  for j, r in ipairs(rigs) do
    matrix.columns[#matrix.columns + 1] = { name = r.index, unit = R.bw_unit, format = "%.2f", compare = j == 1 }
  end
  if #rigs > 1 then matrix.columns[#matrix.columns + 1] = R:spread_column("widest spread") end
  local claims, zero, unknown_link = {}, {}, nil
  for i, ri in ipairs(rigs) do
    local row = { source = ("%s %s"):format(ri.index, ri.device.name) }
    for j, rj in ipairs(rigs) do
      if i ~= j then
        local lk, best = devicemod.link(ri.facts, rj.facts), nil
        local link_bound = R:link_limit(ri.facts, rj.facts, lk.nvlinks)
        for _, p in ipairs(PATHS) do
          local q = p.shared and qs[j] or rj.q
          local dst = p.name == "migrate" and abuf or (p.shared and bbuf or rj.db)
          local bound = R:link_limit(ri.facts, rj.facts, lk.nvlinks, not p.shared)
          local label = ("%s -> %s %s"):format(ri.index, rj.index, p.name)
          -- the host clock's span, and the transfer's own event (a path of one
          -- command), shown where every repetition's agrees with the host clock
          local res = R:on({ device = rj.device, ctx = p.shared and ctx or rj.ctx, q = q, facts = rj.facts }, function()
            return R:measure{ label = label, queue = q, bytes = bytes, bound = bound, reps = PAIR_REPS, warmup = 1,
              reads = p.shared and { sbuf } or nil, outputs = { { dst, expect = src, exact = true } },
              figures = { { "event", bytes = bytes, agree = true, value = function(r) return r.event end } },
              run = function()
                if p.shared then qs[i]:launch(write, n):wait() else ri.q:launch(ri.k, n):wait() end
                local t0 = cl.now()
                local e = p.go(i, j)
                if e then e:wait() end
                return { start = t0, ["end"] = cl.now(), event = e and e["end"] - e.start or nil }
              end }
          end)
          local ev = res.figures.event
          local agree, why, evm = ev.agrees, ev.disagree, ev.median
          if why == "0 ns" then zero[p.name] = true end
          if why == "short" and evm > 0 then
            local c = claims[p.name] or { pairs = 0 }
            claims[p.name], c.pairs = c, c.pairs + 1
            c.eg = c.eg or ("%s: its event claims %s GB/s where the host clock saw %s GB/s"):format(label,
              units.format_number(R:bw(bytes, evm)), units.format_number(res.bw))
          end
          R:add_row(paths, res, { source = ri.index, destination = rj.index, path = p.name,
            event = agree and ev.bw or nil, bound = R:bw(bound, 1e9), ["of bound"] = res.per_s / bound * 100 })
          if not best or res.bw > best.bw then best = { bw = res.bw, per_s = res.per_s, path = p.name, spread = res.spread } end
        end
        links:add{ source = ri.index, destination = rj.index, link = lk.text,
          NUMA = lk.numa_a and ("%d, %d"):format(lk.numa_a, lk.numa_b or -1) or nil, bound = R:bw(link_bound, 1e9),
          ["fastest path"] = best.path, fastest = best.bw, ["of bound"] = best.per_s / link_bound * 100 }
        unknown_link = unknown_link or lk.why
        row[rj.index] = best.bw
        row["widest spread"] = math.max(row["widest spread"] or 0, best.spread or 0)
      end
    end
    matrix:add(row)
  end
  paths:note("each figure: " .. units.format_size(bytes) .. " / the median host-clock span of "
    .. (R.reps_given and R.reps or PAIR_REPS) .. " runs from the source's "
    .. "completion (a kernel on the source wrote the buffer, and was waited for) to the destination's (the path's "
    .. "last command waited for); the destination poisoned first and checked after, exactly")
  for _, p in ipairs(PATHS) do paths:note(("%s: %s"):format(p.name, p.note)) end
  paths:note(("event: bytes / the median of the transfer's own event, shown only where every repetition's event "
    .. "lasted between %g and 1x the host clock's span (a path of one command only)"):format(figures.AGREE))
  for name in pairs(zero) do
    paths:note(("%s: the driver's event lasted 0 ns: it does not time this command"):format(name))
  end
  for _, p in ipairs(PATHS) do
    local c = claims[p.name]
    if c then
      paths:note(("%s: on %d pair%s the event lasted less than %g of the host clock's span: it does not time the "
        .. "bytes' movement, and is no result (%s)"):format(p.name, c.pairs, c.pairs == 1 and "" or "s",
        figures.AGREE, c.eg))
    end
  end
  paths:note("bound: the pair's link per direction (NVLink from NVML, else PCIe; a path staged through host memory: "
    .. "PCIe), or the sanity cap for any link where neither is known")
  links:note("link: as nvidia-smi topo -m names it, from NVML (NVn: n NVLinks, through NVSwitches the fewer of the "
    .. "two's; PIX one PCIe switch, PXB several, PHB the host bridge, NODE within a NUMA node, SYS across nodes); "
    .. "NUMA: the nodes of the two devices' PCIe functions; bound: the link's per direction; fastest: the best path "
    .. "of the paths table")
  if unknown_link then links:note("link unknown: " .. unknown_link) end
  matrix:note("each cell: the fastest path's figure from the paths table (host clock from the source's completion "
    .. "to the destination's); the diagonal is empty")
  if #rigs == 1 then
    matrix:note("one device: no pair to measure")
    paths:note("one device: no pair to measure")
  else
    R:emit(paths)
    R:emit(links)
  end
  R:emit(matrix)
end)
