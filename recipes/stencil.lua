-- stencil: 2D Poisson relaxation with a 5-point stencil (Jacobi sweeps).
-- "Advanced CUDA - optimizing to get 20x performance", Finite Differences:
-- keep the grid in device memory, buffer u in shared (local) memory in 16x16
-- blocks with ghost cells, put the stencil {4, -1, -1, -1, -1} in constant
-- memory; "512x512 grid ... executes in 0.23 ms on GTX280". Here: one sweep
-- from global memory (coefficients in __global, then in __constant), and from
-- local-memory tiles (16x16 computed from an 18x18 tile with a halo; the
-- seed's 16x16 tile of which 14x14 is computed), by grid size, in float and
-- double (kernels/stencil.cl).
local cl = require("cl")
local recipe = require("clua.recipe")
local plot = require("clua.plot")
local units = require("clua.units")
local commalist = require("clua.commalist")

local R = recipe.new{
  name = "stencil",
  description = [[Jacobi sweeps of a 5-point Poisson stencil: global memory vs local-memory tiles with a halo,
    coefficients in __constant; time per sweep and GB/s by grid size.]],
  seed = "Advanced CUDA \"Finite Differences\" (512x512 in 0.23 ms on a GTX 280)",
  student = [[a kernel with the arguments of jacobi_global (__constant const real *c, __global const real *u,
    __global const real *f, __global real *out, int N), where real is float, or double when the file is built
    with -DUSE_DOUBLE (--type double or both: the kernel must then define real as double and enable
    cl_khr_fp64; -DTILE=16 is defined too). It is launched as the recipe's kernels are, for each grid N
    (--grids) and type: on {G, G} work-items in {16, 16} groups, G = N rounded up to a multiple of 16, so the
    work-items with x >= N or y >= N (x = get_global_id(0), y = get_global_id(1)) must write nothing. One
    Jacobi sweep of the N x N row-major grid u: c = {4, -1, -1, -1, -1, 1} (s0 .. s4 = centre, west, east,
    north, south; h2); it must write every point of out, i = y * N + x: out[i] = u[i] on the boundary (x or y
    0 or N - 1), else out[i] = (-c[5] * f[i] - (c[1] * u[i - 1] + c[2] * u[i + 1] + c[3] * u[i - N] + c[4] *
    u[i + N])) / c[0]; u, f and c must stay unchanged. out holds G x G points, of which the kernel owns the N
    x N grid: the padding past out[N * N - 1] must not be written; u and out are two such buffers that swap at
    every sweep. Checked before any figure: --sweeps sweeps from the same start against the CPU (double;
    tolerance 1e-5 for float, 1e-12 for double) and against the global-memory sweep, --batch sweeps against
    the global-memory sweep's; ranked by time among the variants of its grid and type.]],
  student_name = "jacobi",
  options = function(p)
    p:option("--grids", "Grid sizes N (N x N points), comma-separated (default: 256..8192 on a GPU, "
      .. "128..1024 on a CPU; 64,100 with --quick; 20,33 with --check-size).") :argname("N,N,...")
    p:option("--type", "Element type: float, double or both (default: both; float with --quick).")
      :choices({ "float", "double", "both" })
    p:int("--sweeps", "Sweeps verified against the CPU (default 3, 2 with --check-size).", nil, "K")
    p:int("--batch", "Sweeps launched back to back for the back-to-back time (default 20, 2 with --check-size).", nil, "B")
    p:option("--full-check", "Largest N checked in full on the CPU; larger grids are checked on 16 rows "
      .. "(on the CPU) and everywhere against the global-memory sweep.", "512"):argname("N"):convert(require("clua.argcheck").whole)
  end,
}

local TILE = 16
local STENCIL = { 4, -1, -1, -1, -1 } -- centre, west, east, north, south (the seed's __constant__ stencil[5])
local H2 = 1                          -- grid spacing 1: f weighs as much as u

local VARIANTS = {
  { id = "global-gcoef", label = "global, coefficients in __global", kernel = "jacobi_global", coef = "__global" },
  { id = "global", label = "global", kernel = "jacobi_global" },
  { id = "local", label = "local 18x18 tile with halo", kernel = "jacobi_local" },
  { id = "overlap", label = "local 16x16 tile, 14x14 computed (seed)", kernel = "jacobi_overlap" },
}

local function roundup(a, b) return (a + b - 1) // b * b end

-- K Jacobi sweeps on the CPU of rows lo..hi (0-based) of an N x N grid, from
-- those rows of u and f (Lua lists, row-major, 1-based). Rows lo and hi, when
-- not the grid's boundary, lack a neighbour and are carried unchanged, so
-- after K sweeps the rows farther than K from them are exact; the caller
-- picks lo = r - K, hi = r + K for row r (or the whole grid).
local function cpu_sweeps(u, f, N, lo, hi, K)
  local s0, s1, s2, s3, s4 = table.unpack(STENCIL)
  local rows = hi - lo + 1
  local cur, nxt = u, {}
  for _ = 1, K do
    for r = 0, rows - 1 do
      local y, base = lo + r, r * N
      nxt[base + 1], nxt[base + N] = cur[base + 1], cur[base + N] -- the boundary columns
      local carried = y == 0 or y == N - 1 or r == 0 or r == rows - 1 -- a boundary row, or an end of the band
      for i = base + 2, base + N - 1 do
        nxt[i] = carried and cur[i]
          or (-H2 * f[i] - (s1 * cur[i - 1] + s2 * cur[i + 1] + s3 * cur[i - N] + s4 * cur[i + N])) / s0
      end
    end
    cur, nxt = nxt, (cur == u and {} or cur)
  end
  return cur
end

R:main(function(R, dev, info)
  local grids = R.args.grids and commalist.integers(R.args.grids, "--grids", 3)
    or (R.check_size and { 20, 33 }) or (R.quick and { 64, 100 }) or (info.type == "GPU" and { 256, 512, 1024, 2048, 4096, 8192 })
    or { 128, 256, 512, 1024 }
  local want = R.args.type or (R.quick and "float" or "both")
  local types = want ~= "both" and { want } or info.double_support and { "float", "double" } or { "float" }
  if want == "double" and not info.double_support then
    error("the device has no double precision (try --type float)")
  end
  local K, B = math.max(1, R.args.sweeps or (R.check_size and 2 or 3)), math.max(1, R.args.batch or (R.check_size and 2 or 20))
  local full_check = R.args.full_check
  local q = R.queue
  local results, skipped = {}, {}

  if TILE * TILE > info.max_work_group_size then
    error(("work-groups of %d work-items are too large for this device (at most %d)"):format(TILE * TILE,
      info.max_work_group_size))
  end
  -- u, f and the two padded u/out buffers must fit
  local function fits(N, esize)
    local padded = roundup(N, TILE) ^ 2 * esize
    return padded <= info.max_mem_alloc_size and 2 * N * N * esize + 2 * padded <= info.global_mem_size
  end
  for _, ty in ipairs(types) do
    local esize = ty == "double" and 8 or 4
    local tol = ty == "double" and 1e-12 or 1e-5
    local defines = { TILE = TILE, USE_DOUBLE = ty == "double" or nil }
    -- Assignment mode (--kernel FILE): the student's sweep, built for this type, last, launched as "global".
    local variants = R:with_student(VARIANTS, defines, VARIANTS[2])
    local coef = cl.array(ty, 6)
    for i = 0, 5 do coef[i] = STENCIL[i + 1] or H2 end -- s0 .. s4, h2
    local largest = 0 -- the roofline gets the largest grid of each variant
    for _, N in ipairs(grids) do if fits(N, esize) then largest = math.max(largest, N) end end

    for gi, N in ipairs(grids) do
      local bytes = N * N * esize
      if not fits(N, esize) then
        skipped[#skipped + 1] = ("%s %dx%d (%s per array: too large for the device)"):format(ty, N, N,
          units.format_size(bytes))
      else
        local u0, f = cl.array(ty, N * N):random(100 + gi, 0, 1), cl.array(ty, N * N):random(200 + gi, -1, 1)
        -- The contract of a sweep: u, f and c read and unchanged; out, G x G elements (G = N rounded up
        -- to the work-group), owns its N x N points: the padding past them must keep its poison, so a
        -- work-item past the grid that writes is named. The sweeps from u run u -> 1 -> 2 -> 1 ...
        local G = roundup(N, TILE)
        local du0, df, dcoef = R:input("u", u0), R:input("f", f), R:input("c", coef)
        local du = { R:output("u/out 1", ty, G * G), R:output("u/out 2", ty, G * G) }

        -- The CPU reference: every point when N <= --full-check, else 16 rows.
        local full = N <= full_check
        local check_rows = full and { { lo = 0, hi = N - 1 } } or {}
        local picked, seen, rng = { 0, 1, N // 2, N - 2, N - 1 }, {}, 12345 + N
        while not full and #check_rows < math.min(16, N) do -- 16 distinct rows: the edges, the middle and random ones
          local r = table.remove(picked, 1)
          if not r then rng = (rng * 1103515245 + 12345) % 2147483648; r = rng % N end
          if not seen[r] then
            seen[r] = true
            check_rows[#check_rows + 1] = { lo = math.max(0, r - K), hi = math.min(N - 1, r + K), row = r }
          end
        end
        for _, c in ipairs(check_rows) do
          local first, count = c.lo * N, (c.hi - c.lo + 1) * N
          c.ref = cpu_sweeps(u0:slice(first, count):totable(), f:slice(first, count):totable(), N, c.lo, c.hi, K)
          if full then local a = cl.array("double", N * N); for i = 1, N * N do a[i - 1] = c.ref[i] end; c.ref = a end
        end

        local reference = {} -- the global-memory sweep's results, for the comparison of every point
        for _, v in ipairs(variants) do
          local k = v.student and v.kernel or R:kernel("stencil.cl", v.kernel, { TILE = TILE,
            USE_DOUBLE = defines.USE_DOUBLE, COEF = v.coef })
          local gsize = v.id == "overlap" and (N + TILE - 3) // (TILE - 2) * TILE or G
          local function sweep(s) -- sweep s (1-based) from u
            k:args(dcoef, s == 1 and du0 or du[(s - 2) % 2 + 1], df, du[(s - 1) % 2 + 1], N)
            return q:launch(k, { gsize, gsize }, { TILE, TILE })
          end
          local label = ("%s %dx%d"):format(v.label, N, N)
          -- The outputs of n sweeps from u: u/out 1 and 2 own their grids when
          -- written, the last is checked (`name` in messages) against the CPU's
          -- `rows` if given, and against the global-memory kernel's.
          local function outs(n, name, rows)
            local o = { { du[1], owns = { 0, N * N } }, { du[2], owns = { 0, n > 1 and N * N or 0 } } }
            o[(n - 1) % 2 + 1].check = function(got)
              for _, c in ipairs(rows or {}) do
                local ref, off = c.ref, c.row and (c.row - c.lo) * N + 1 or 1
                R:verify(c.row and ("%s, row %d"):format(name, c.row) or name, c.row and got:slice(c.row * N, N) or got,
                  c.row and function(i) return ref[off + i] end or ref, { tol = tol }) -- the whole grid: in C
              end
              local key = rows and "sweeps" or "back to back"
              if reference[key] then
                R:verify(name .. " vs the global-memory sweep", got, reference[key], { tol = tol })
              else
                reference[key] = cl.array(ty, N * N):copy(got)
              end
            end
            return o
          end
          -- Each repetition sweeps K times from u; the time is the last sweep's kernel. The result must
          -- be K Jacobi sweeps of u (the CPU's), and the global-memory sweep's.
          local t = R:measure{ label = label, reads = { du0, df, dcoef }, bytes = 3 * bytes,
            outputs = outs(K, ("u after %d sweeps (%s, %dx%d, %s)"):format(K, ty, N, N, v.label), check_rows),
            -- per interior point: h2 f (1), s1 w + s2 e + s3 n + s4 s (a multiply and 3 multiply-adds: 7), a
            -- subtraction and a division: 10 operations
            ops = N == largest and 10 * (N - 2) ^ 2 or nil, type = ty,
            target_ms = not R.quick and 50 or nil,
            run = function()
              for s = 1, K - 1 do sweep(s) end
              return sweep(K)
            end }
          -- B sweeps in a row from u: their span / B; the result checked against the global-memory kernel's.
          local tb = R:measure{ label = label .. " back to back", reads = { du0, df, dcoef }, bytes = 3 * bytes * B, budget_ms = 100,
            outputs = outs(B, ("u after %d sweeps back to back (%s, %dx%d, %s)"):format(B, ty, N, N, v.label)),
            run = function()
              local evs = {}
              for s = 1, B do evs[s] = sweep(s) end
              return evs
            end }
          results[#results + 1] = { type = ty, N = N, v = v, t = t, tb = tb,
            check = full and "full" or ("%d rows + all vs global"):format(#check_rows) }
        end
        -- assignment mode: the guard lets this grid's buffers go
        R:drop_student_buffers()
        for _, b in ipairs({ du0, df, dcoef, du[1], du[2] }) do b:release() end
      end
    end
  end

  -- Everything verified: the figures.
  local us = function(v) return ("%.2f"):format(v / 1e3) end
  local time = R:time_columns("µs")
  for _, c in ipairs(time) do c.format = us end
  local t = R:table{
    title = "Jacobi sweeps of the 5-point Poisson stencil: time per sweep by grid size",
    id = "stencil",
    columns = {
      { name = "type", key = true }, { name = "grid", key = true }, { name = "variant", key = true }, time,
      { name = "back to back", unit = "µs", format = us, ns = true }, R:bw_column("bandwidth", { compare = false }),
      { name = "vs global", unit = "x", format = "%.2f" }, { name = "checked" } },
  }
  local global_t = {}
  for _, r in ipairs(results) do if r.v.id == "global" then global_t[r.type .. r.N] = r.t.median end end
  local p = plot.new{ title = "Jacobi sweep bandwidth by grid size (" .. types[1] .. ")",
    x = { name = "grid side N", log2 = true }, y = { name = "effective bandwidth", unit = R.bw_unit } }
  for _, r in ipairs(results) do
    R:add_row(t, r.t, { type = r.type, grid = ("%dx%d"):format(r.N, r.N), variant = r.v.label,
      ["back to back"] = r.tb.median / B, ["vs global"] = global_t[r.type .. r.N] / r.t.median, checked = r.check })
    if r.type == types[1] then p:add(r.v.label, r.N, r.t.bw) end
  end
  t:note(("time: one sweep's kernel (event start to end; the last of each repetition's %d sweeps from the same "
    .. "start), median; back to back: the span of %d sweeps launched in a row from the same start / %d")
    :format(K, B, B))
  t:note("bandwidth: 3 N^2 elements per sweep (u and f read, u' written, each once) / time; small grids fit the caches")
  t:note(("checked: %d sweeps from the same start, outputs poisoned, against Jacobi sweeps on the CPU (in double): "
    .. "every point up to N = %d, else 16 rows (the CPU sweeping a band of 2x%d+1 rows around each) and every point "
    .. "against the global-memory sweep; the %d back-to-back sweeps against the global-memory kernel's; u/out hold "
    .. "G x G points (G = N rounded up to %d), the padding past N x N still poisoned")
    :format(K, full_check, K, B, TILE))
  t:note("stencil {4, -1, -1, -1, -1} and h^2 = 1 in __constant (in __global for the first variant); work-groups of "
    .. TILE .. "x" .. TILE)
  for _, s in ipairs(skipped) do t:note("skipped: " .. s) end
  -- assignment mode: ranked within each grid and type (the rows of different grids differ in work)
  local ranked = {}
  for _, r in ipairs(R.args.kernel and t.rows or {}) do
    local g = r.type .. " " .. r.grid
    ranked[g] = ranked[g] or R:rank(t, "time", function(row) return row.type .. " " .. row.grid == g end,
      { name = "variant", prefix = g .. ": " })
  end
  R:emit(t)
  R:plot(p)
end)
