-- Assignment mode (--kernel FILE, docs/assignments.md) in recipes/matmul.lua,
-- recipes/aat.lua, recipes/stencil.lua and recipes/particles.lua: the worked
-- examples of docs/examples/ are verified and ranked; a wrong kernel exits
-- non-zero naming the first wrong element, with no table; a kernel writing
-- one element past its output exits non-zero ("past the end", clua.guard);
-- --help shows the contract. Runs the recipes --quick (sweeps cut down with
-- their options) on the default device (PoCL in CI).
local support = require("spec.support.recipe")

local run, tables_of = support.run, support.tables_of

-- A kernel source in a temporary .cl file, removed by `finally`.
local function kernel_file(src)
  local path = require("spec.support.shell").write_temp(src, ".cl")
  finally(function() os.remove(path); os.remove((path:gsub("%.cl$", ""))) end)
  return path
end

-- Runs the recipe with --kernel FILE and checks a correct kernel: exit 0, its
-- row in table `id` (a `key` column naming it, a rank), the rank note.
local function ranks(name, args, id, key, label, nrows)
  local path = os.tmpname()
  local out, code, err = run(name, args .. " --json " .. path)
  assert.are.equal(0, code, err)
  local t = tables_of(path)[id]
  local row
  for _, r in ipairs(t.rows) do if r[key] == label then row = r end end
  assert.truthy(row, "no row " .. label)
  assert.is_true(row.rank >= 1 and row.rank <= nrows)
  assert.truthy(out:find(label .. " ranks " .. row.rank .. " of " .. nrows .. " by ", 1, true), out)
  return t, row, out
end

-- A wrong kernel: exit 1, nothing on stdout (no table), the first wrong element named.
local function wrong(name, args, what, first)
  local out, code, err = run(name, args)
  assert.are.equal(1, code, err)
  assert.are.equal("", out)
  assert.truthy(err:find("recipe " .. name .. ": verify " .. what, 1, true), err)
  assert.truthy(err:find("first at index " .. first .. ": got ", 1, true), err)
end

-- A kernel writing one element past its output: exit 1, no table, the guard's message.
local function past_end(name, args, buffer, bytes)
  local out, code, err = run(name, args)
  assert.are.equal(1, code, err)
  assert.are.equal("", out)
  assert.truthy(err:find(("student: %s: 4 bytes written at offset %d, past the end (%d bytes)"):format(buffer,
    bytes, bytes), 1, true), err)
end

local function help_has(name, ...)
  local out, code = run(name, "--help")
  assert.are.equal(0, code)
  out = out:gsub("%s+", " ")
  assert.truthy(out:find("Assignment mode (--kernel FILE): ", 1, true), out)
  for _, s in ipairs({ ... }) do assert.truthy(out:find(s, 1, true), s) end
end

describe("assignment mode, matmul", function()
  local body = [[
__kernel void matmul(__global const float *a, __global const float *b, __global float *c, int N)
{
    int x = get_global_id(0), y = get_global_id(1);
    float sum = 0.0f;
    for (int i = 0; i < TILE_DIM%s; i++) sum += a[y * TILE_DIM + i] * b[i * N + x];
    c[y * N + x] = sum;
    %s
}]]

  it("ranks the example among the guide's kernels of its tile", function()
    local t, row = ranks("matmul", "--tile 16 --n 16 --kernel docs/examples/matmul_student.cl", "table_3_2", "kernel",
      "student: matmul (matmul_student.cl)", 4)
    assert.are.equal(4, #t.rows)
    assert.are.equal(16, row.tile)
    assert.is_true(row.time > 0 and row["GFLOP/s"] > 0)
  end)

  it("fails a wrong product (one term short) at its first element, and a write past C", function()
    wrong("matmul", "--tile 16 --n 16 --reps 1 --kernel " .. kernel_file(body:format(" - 1", "")),
      "student: matmul (", 0)
    -- C is 256 x 256 floats with --quick
    past_end("matmul", "--tile 16 --n 16 --reps 1 --kernel " .. kernel_file(body:format("",
      "if (x == N - 1 && y == get_global_size(1) - 1) c[y * N + x + 1] = sum;")), "c", 4 * 256 * 256)
  end)

  it("shows the contract in --help", function()
    help_has("matmul", "__global const float *b, __global float *c, int N), built with -DTILE_DIM=T",
      "on {N, M} work-items in {T, T} groups", "c[y * N + x] = sum over i < T of a[y * T + i] * b[i * N + x]")
  end)
end)

describe("assignment mode, aat", function()
  local body = [[
__kernel void aat(__global const float *a, __global float *c, int M)
{
    int x = get_global_id(0), y = get_global_id(1);
    float sum = 0.0f;
    for (int i = 0; i < TILE_DIM; i++) sum += a[y * TILE_DIM + i] * a[%s * TILE_DIM + i];
    c[y * M + x] = sum;
    %s
}]]

  it("ranks the example among the guide's kernels of its tile", function()
    local t, row = ranks("aat", "--tile 16 --kernel docs/examples/aat_student.cl", "table_3_3", "kernel",
      "student: aat (aat_student.cl)", 4)
    assert.are.equal(4, #t.rows)
    assert.are.equal(16, row.tile)
  end)

  it("fails A^T A's mistake (a column where a row is due) at its first element, and a write past C", function()
    -- y for x: c[y][x] = |row y|^2 everywhere, right on the diagonal only: element (0, 0) is right
    wrong("aat", "--tile 16 --reps 1 --kernel " .. kernel_file(body:format("y", "")), "student: aat (", 1)
    past_end("aat", "--tile 16 --reps 1 --kernel " .. kernel_file(body:format("x", "if (x == M - 1 && y == M - 1) c[M * M] = sum;")),
      "c", 4 * 256 * 256)
  end)

  it("shows the contract in --help", function()
    help_has("aat", "(__global const float *a, __global float *c, int M), built with -DTILE_DIM=T",
      "c[y * M + x] = sum over i < T of a[y * T + i] * a[x * T + i]")
  end)
end)

describe("assignment mode, stencil", function()
  local body = [[
typedef float real;
__kernel void jacobi(__constant const real *c, __global const real *u, __global const real *f,
                     __global real *out, int N)
{
    int x = get_global_id(0), y = get_global_id(1);
    if (x >= N || y >= N) return;
    int i = y * N + x;
    if (x == 0 || y == 0 || x == N - 1 || y == N - 1) out[i] = u[i];
    else out[i] = (-c[5] * f[i] - (c[1] * u[i - 1] + c[2] * u[i + 1] + c[3] * u[i - N] + c[4] * u[i + N]))%s;
    %s
}]]

  it("ranks the example among the variants of each grid", function()
    local t, row, out = ranks("stencil", "--grids 50 --kernel docs/examples/stencil_student.cl", "stencil",
      "variant", "student: jacobi (stencil_student.cl)", 5)
    assert.are.equal(5, #t.rows)
    assert.are.equal("50x50", row.grid)
    assert.truthy(out:find("float 50x50: student: jacobi", 1, true))
  end)

  it("fails a sweep without its division at the first interior point, and a write past the grid", function()
    wrong("stencil", "--grids 40 --reps 1 --kernel " .. kernel_file(body:format("", "")),
      "u after 3 sweeps (float, 40x40, student: jacobi (", 41)
    -- N = 40: the launch is 48 x 48 work-items and out holds 48 x 48 points; one writes out[48 * 48]
    past_end("stencil", "--grids 40 --reps 1 --kernel " .. kernel_file(body:format(" / c[0]",
      "if (x == N - 1 && y == N - 1) out[get_global_size(0) * get_global_size(1)] = u[i];")), "u/out 1", 4 * 48 * 48)
  end)

  it("shows the contract in --help", function()
    help_has("stencil", "(__constant const real *c, __global const real *u, __global const real *f, "
      .. "__global real *out, int N)", "G = N rounded up to a multiple of 16",
      "out[i] = u[i] on the boundary")
  end)
end)

describe("assignment mode, particles", function()
  local soa = [[
__kernel void euler(__global const float *in, __global float *out, int n, float dt, float k)
{
    size_t i = get_global_id(0), s = (size_t)n;
    for (int d = 0; d < 3; d++) {
        out[d * s + i] = in[d * s + i] + in[(3 + d) * s + i] * %s;
        out[(3 + d) * s + i] = in[(3 + d) * s + i] + in[(6 + d) * s + i] * k;
    }
    %s
}]]

  it("ranks the example (SoA) among the layouts", function()
    local t, row = ranks("particles", "--kernel docs/examples/particles_student.cl", "layouts", "layout",
      "student: euler (particles_student.cl)", 6)
    assert.are.equal(6, #t.rows)
    assert.are.equal(36, row.stored)
    assert.truthy(row.kernel > 0)
  end)

  it("gives a kernel with eulerAoS's arguments the array of structs", function()
    local out, code, err = run("particles", "--reps 1 --kernel particles.cl --kernel-name eulerAoS")
    assert.are.equal(0, code, err)
    assert.truthy(out:find("student: eulerAoS (particles.cl): the array of structs", 1, true), out)
  end)

  it("fails a step with k for dt at its first element, and a write past out", function()
    wrong("particles", "--reps 1 --kernel " .. kernel_file(soa:format("k", "")), "student: euler (", 0)
    -- out holds 9 n floats, as in does (the step owns the first 6 n)
    past_end("particles", "--reps 1 --kernel " .. kernel_file(soa:format("dt", "if (i == s - 1) out[9 * s] = 1.0f;")),
      "out", 4 * 9 * 65536)
  end)

  it("shows the contract in --help", function()
    help_has("particles", "those of eulerSoA (__global const float *in, __global float *out, int n, float dt, "
      .. "float k)", "those of eulerAoS", "n work-items, one per particle")
  end)
end)
