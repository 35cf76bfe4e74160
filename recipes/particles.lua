-- particles: one Euler step of a million non-interacting particles in five
-- memory layouts, with the host<->device transfer of the particle data beside
-- the kernel. "Advanced CUDA - optimizing to get 20x performance": "Particle
-- Simulation Example" (struct { float3 pos, vel, force; }, "Worst Case for
-- Coalescing!"), "Coalesced Memory Access" (float3 arrays, "only using 1/3
-- bandwidth"), "Better Coalesced Access" (structure of arrays), "Measured
-- Performance" (15.3 ms of transfer against 1.32 ms of kernel); the lecture's
-- "Global Memory alignment" (float4-padded structs, one load instruction).
-- --size is the number of particles (1M; 64K with --quick).
local cl = require("cl")
local recipe = require("clua.recipe")

local R = recipe.new{
  name = "particles",
  description = [[Particle Euler step: array of structs (float3) vs structure of arrays vs float4-padded,
    kernel time and bandwidth beside the transfer time; --size is the number of particles.]],
  seed = "Advanced CUDA \"Particle Simulation\", \"Better Coalesced Access\"; lecture \"Global Memory alignment\"",
  size = "1M", quick_size = "64K", check_size = "1K", reps = 20, size_unit = 48,
  student = [[one Euler step of n particles, pos' = pos + vel * dt, vel' = vel + force * k (floats dt = 0.01,
    k = dt / m = 0.005), in one of two layouts, picked by the kernel's arguments: those of eulerSoA (__global
    const float *in, __global float *out, int n, float dt, float k), the structure of arrays: in = posx | posy
    | posz | velx | vely | velz | forcex | forcey | forcez, n floats each, and it must write out = posx' |
    posy' | posz' | velx' | vely' | velz' (the first 6 n floats of out, which holds 9 n as in: the force rows
    must not be written); or those of eulerAoS (__global const float *in, __global float *out, float dt, float
    k), the array of structs: particle i is in[9i .. 9i+8] = pos.xyz, vel.xyz, force.xyz, and it must write
    out[9i .. 9i+5] = pos'.xyz, vel'.xyz and leave out[9i+6 .. 9i+8] (the force fields) untouched. Launched as
    the recipe's kernels are: n work-items, one per particle (i = get_global_id(0)), in groups of --local L
    (default 256); n (--size, about 1M, 64K with --quick, 1K with --check-size) is rounded down to a multiple of L,
    so no work-item is past the end. in must stay unchanged, nothing outside out may be written. Every element of
    out is checked against a CPU step (tolerance 1e-6; untouched fields must still hold the poison) before any
    figure; ranked by kernel time among the layouts.]],
  student_name = "euler",
  options = function(p)
    p:int("--local", "Work-group size (capped by the device's maximum).", "256")
  end,
}

-- what the harness fills an output with (clua.harness.POISON bytes): the fields a kernel must leave
-- untouched still hold it
local POISON = require("clua.harness").POISON_FLOAT
local DT, MASS = 0.01, 2.0
local USEFUL = 60 -- bytes per particle the step needs: pos, vel, force read (36), pos, vel written (24)
local SEED = { h2d = 15.3e6, kernel = 1.32e6 } -- ns, GTX 280, 1M particles ("Measured Performance")

local function f32(x) return (string.unpack("<f", string.pack("<f", x))) end

R:main(function(R, dev, info)
  local q, ctx = R.queue, R.ctx
  local dt, kk = f32(DT), f32(DT / MASS)
  local L = math.min(math.max(1, R.args["local"]), info.max_work_group_size)
  local N = math.min(math.tointeger(R.size), info.max_mem_alloc_size // 48, info.global_mem_size // (4 * 48)) // L * L
  if N == 0 then error("--size is too small: at least " .. L .. " particles") end

  -- The particles, as 9 rows of N floats: pos.xyz, vel.xyz, force.xyz.
  local soa9 = cl.array("float", 9 * N):random(7, -1, 1)
  -- The CPU reference (once): 6 rows, pos'.xyz and vel'.xyz.
  local ref6 = cl.array("float", 6 * N)
  for c = 0, 2 do
    local po, vo, fo = c * N, (3 + c) * N, (6 + c) * N
    for i = 0, N - 1 do
      local v = soa9[vo + i]
      ref6[po + i] = soa9[po + i] + v * dt
      ref6[vo + i] = v + soa9[fo + i] * kk
    end
  end

  -- Layouts from rows: `parts` lists row sources (lists of arrays of N floats,
  -- or a number to fill one row with), grouped `per` rows to a record; the
  -- result interleaves each group's rows (a transpose), groups one after another.
  local function layout(parts, per)
    local rows = {}
    for _, x in ipairs(parts) do
      if type(x) == "table" then table.move(x, 1, #x, #rows + 1, rows) else rows[#rows + 1] = x end
    end
    local out, tmp = cl.array("float", #rows * N), cl.array("float", per * N)
    for g = 0, #rows // per - 1 do
      for r = 1, per do
        local src, dst = rows[g * per + r], tmp:slice((r - 1) * N, N)
        if type(src) == "number" then dst:fill(src) else dst:copy(src) end
      end
      out:slice(g * per * N, per * N):transpose(tmp, per, N)
    end
    return out
  end
  local function rows_of(a, first) -- three rows of N floats, from row `first`
    return { a:slice(first * N, N), a:slice((first + 1) * N, N), a:slice((first + 2) * N, N) }
  end
  local P, V, F, P1, V1 = rows_of(soa9, 0), rows_of(soa9, 3), rows_of(soa9, 6), rows_of(ref6, 0), rows_of(ref6, 3)
  local X = { POISON, POISON, POISON }

  local layouts = {
    { label = "AoS float3 (struct of 3 float3, 36 B)", id = "eulerAoS", stored = 36, written = 24,
      input = layout({ P, V, F }, 9), expect = layout({ P1, V1, X }, 9) },
    { label = "SoA float3 arrays (pos[], vel[], force[])", id = "eulerSoA3", stored = 36, written = 24, n = true,
      input = layout({ P, V, F }, 3), expect = layout({ P1, V1 }, 3) },
    { label = "SoA float arrays (posx[], posy[], ...)", id = "eulerSoA", stored = 36, written = 24, n = true,
      input = soa9, expect = ref6 },
    { label = "AoS float4-padded (struct of 3 float4, 48 B)", id = "eulerAoS4", stored = 48, written = 32,
      input = layout({ P, 0, V, 0, F, 0 }, 12), expect = layout({ P1, 0, V1, 0, X, POISON }, 12) },
    { label = "SoA float4 arrays (pos4[], vel4[], force4[])", id = "eulerSoA4", stored = 48, written = 32, n = true,
      input = layout({ P, 0, V, 0, F, 0 }, 4), expect = layout({ P1, 0, V1, 0 }, 4) },
  }

  -- Assignment mode (--kernel FILE): the student's step, last, in the layout its arguments pick (5: SoA
  -- float arrays, as eulerSoA; 4: AoS float3, as eulerAoS).
  local student = R:student_kernel()
  if student and student.nargs ~= 4 and student.nargs ~= 5 then
    error(("%s: %d arguments; the contract has 5 (in, out, n, dt, k: SoA) or 4 (in, out, dt, k: AoS)")
      :format(R.student_label, student.nargs))
  end
  layouts = R:with_student(layouts, nil, student and layouts[student.nargs == 5 and 3 or 1])

  -- Each layout: its input written (host -> device), the step, its results
  -- read back (device -> host), each checked. out is a state of the same
  -- layout as in (so that the two could swap from step to step); the step
  -- owns pos' and vel': the rows before force in the SoA layouts (the force
  -- rows past them must keep the poison), the whole of an AoS buffer (its force
  -- fields checked still poison); in is read and unchanged.
  -- A transfer's contract: a write's destination must hold the host array
  -- after it, a read's host array the results (it is zeroed first).
  local function write(label, buf, src)
    return R:measure{ label = label, bound = "pcie", bytes = #src * 4,
      outputs = { { buf, expect = src, exact = true } },
      run = function() return q:write(buf, src, { blocking = false }) end }
  end
  local function read(label, what, buf, dst, expect)
    dst:fill(0)
    return R:measure{ label = label, bound = "pcie", bytes = #dst * 4,
      outputs = { { buf, poison = false, check = function() R:verify(what, dst, expect, { tol = 1e-6 }) end } },
      run = function() return q:read(buf, dst, { size = #dst * 4, blocking = false }) end }
  end
  for li, l in ipairs(layouts) do
    local k = l.student and l.kernel or R:kernel("particles.cl", l.id)
    local din, dout = R:input("in", l.input), R:output("out", "float", #l.input, "write_only")
    l.moved = l.stored + l.written -- bytes the kernel reads + writes per particle
    l.h2d = write(l.id .. " write", din, l.input)
    if l.n then k:args(din, dout, N, dt, kk) else k:args(din, dout, dt, kk) end
    l.t = R:measure{ label = l.label, reads = { din }, outputs = { { dout, owns = { 0, #l.expect }, expect = l.expect,
      tol = 1e-6 } },
      -- per particle: pos + vel dt and vel + force k, two float3 multiply-adds: 12 operations
      bytes = l.moved * N, ops = 12 * N, run = function() return q:launch(k, N, L) end }
    l.d2h = read(l.id .. " read", l.label .. ", read back", dout, cl.array("float", #l.expect), l.expect)
    if li == 1 then l.din, l.dout = din, dout
    elseif not R.args.kernel then din:release(); dout:release() end -- in assignment mode the guard holds them
  end

  -- The seed's comparison, for the struct layout: pageable and pinned transfers.
  local aos = layouts[1]
  local bytes_in, bytes_out = #aos.input * 4, #aos.expect * 4
  local view_in = q:map(ctx:buffer(bytes_in, "read_only alloc_host_ptr"), { type = "float" }):copy(aos.input)
  local view_out = q:map(ctx:buffer(bytes_out, "alloc_host_ptr"), { type = "float" })
  local h2d_pinned = write("pinned write", aos.din, view_in)
  local d2h_pinned = read("pinned read", "AoS results through pinned memory", aos.dout, view_out, aos.expect)
  q:unmap(view_in)
  q:unmap(view_out)
  q:finish()

  -- Everything verified: the figures.
  local ms = function(v) return ("%.3f"):format(v / 1e6) end
  local t = R:table{
    title = ("One Euler step of %d particles, by memory layout"):format(N),
    id = "layouts",
    columns = { { name = "layout", key = true }, { name = "stored", unit = "B/particle" },
      { name = "moved", unit = "B/particle" }, R:time_columns("µs", { name = "kernel", compare = false }),
      R:bw_column("effective"), { name = "actual", unit = R.bw_unit, format = "%.1f" },
      { name = "vs AoS", unit = "x", format = "%.2f" }, { name = "H2D in", unit = "ms", format = ms, ns = true },
      { name = "D2H out", unit = "ms", format = ms, ns = true },
      { name = "transfer/kernel", unit = "x", format = "%.1f" } },
  }
  local best = layouts[1]
  for _, l in ipairs(layouts) do
    if l.t.median < best.t.median and not l.student then best = l end
    R:add_row(t, l.t, { layout = l.label, stored = l.stored, moved = l.moved, kernel = l.t.median,
      effective = R:bw(USEFUL * N, l.t.median), actual = l.t.bw, ["vs AoS"] = layouts[1].t.median / l.t.median,
      ["H2D in"] = l.h2d.median, ["D2H out"] = l.d2h.median,
      ["transfer/kernel"] = (l.h2d.median + l.d2h.median) / l.t.median })
  end
  t:note(("step: pos += vel*dt, vel += force*dt/m (dt = %g, m = %g); effective = %d useful bytes per particle "
    .. "(pos, vel, force read; pos, vel written); actual = the bytes the layout moves (padding included)")
    :format(DT, MASS, USEFUL))
  t:note(("kernel: median of %d (event timing), local size %d; H2D in / D2H out: pageable host arrays, the "
    .. "layout's input / output buffer"):format(R.reps, L))
  t:note("every output element checked against a CPU step (tolerance 1e-6), untouched fields still poison; "
    .. "every transfer's destination checked too")
  if student then
    t:note(("%s: %s (the arguments of %s)"):format(R.student_label, student.nargs == 5
      and "the structure of float arrays (posx[], posy[], ...)" or "the array of structs (3 float3, 36 B)",
      student.nargs == 5 and "eulerSoA" or "eulerAoS"))
    R:rank(t, "kernel")
  end
  R:emit(t)

  local tt = R:table{
    title = ("Transfer against kernel: the struct (AoS) particles, %d of them"):format(N),
    id = "transfer",
    columns = { { name = "step", key = true }, { name = "data", unit = "MB", format = "%.1f" },
      R:time_columns("ms"), R:bw_column("bandwidth", { theoretical = false }),
      { name = "vs kernel", unit = "x", format = "%.1f" },
      { name = "seed (GTX 280)", unit = "ms", format = ms, ns = true } },
  }
  for _, r in ipairs({
    { "H2D pageable", bytes_in, aos.h2d, SEED.h2d },
    { "H2D pinned", bytes_in, h2d_pinned },
    { "kernel, AoS", USEFUL * N, aos.t, SEED.kernel },
    { ("kernel, fastest layout (%s)"):format((best.id:gsub("^euler", ""))), USEFUL * N, best.t },
    { "D2H pageable", bytes_out, aos.d2h },
    { "D2H pinned", bytes_out, d2h_pinned },
  }) do
    R:add_row(tt, r[3], { step = r[1], data = r[2] / 1e6, bandwidth = R:bw(r[2], r[3].median),
      ["vs kernel"] = r[3].median / aos.t.median, ["seed (GTX 280)"] = r[4] })
  end
  tt:note("kernel rows: data = the useful bytes; vs kernel: time / the AoS kernel's time")
  tt:note("seed: GTX 280 over PCIe gen 2, 1M particles, \"Measured Performance\" (15.3 ms one way, 1.32 ms kernel)")
  R:emit(tt)
end)
