-- cl programs: from source and files, build options, defines,
-- CLUA_BUILD_OPTIONS and CLUA_BUILD_LOG (subprocess), try_build, the build log
-- with line numbers mapped back to the kernel file (and to the right file when
-- files are concatenated), kernels() and kernel lookup errors.
local cl = require("cl")

local CLUA = os.getenv("CLUA") or "build/clua"

local quote = require("spec.support.shell").quote

local function err_of(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  return tostring(err)
end

local tmpdir
local function write_file(name, text)
  local path = tmpdir .. "/" .. name
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
  return path
end

-- Runs `clua script` with env; returns exit code, stdout, stderr.
local function run_script(script, env)
  local path = write_file("script.lua", script)
  local err = tmpdir .. "/stderr"
  local parts = { "env", "-u", "CLUA_BUILD_LOG", "-u", "CLUA_BUILD_OPTIONS" }
  for k, v in pairs(env or {}) do parts[#parts + 1] = quote(k .. "=" .. v) end
  parts[#parts + 1] = quote(CLUA)
  parts[#parts + 1] = quote(path)
  local p = io.popen(table.concat(parts, " ") .. " 2>" .. quote(err))
  local out = p:read("a")
  local _, _, code = p:close()
  local f = io.open(err)
  local e = f:read("a")
  f:close()
  return code, out, e
end

-- Builds `src` with options/defines, runs kernel `k(global int *out)` once and
-- returns out[0..n-1].
local function run_int_kernel(ctx, q, src, n, options, defines)
  local p = ctx:program(src, "probe.cl"):build(options, defines)
  local out = ctx:buffer(4 * n)
  q:fill(out, 0)
  local k = p:kernel("probe")
  k:arg(0, out)
  q:launch(k, 1)
  local r = cl.array("int", n)
  q:read(out, r)
  return r:totable()
end

local PROBE = [[
kernel void probe(global int *out) {
#ifdef USE_X
  out[0] = 1;
#endif
#ifdef N
  out[1] = N;
#endif
#ifdef M
  out[2] = M;
#endif
#ifdef OFF
  out[3] = 1;
#endif
}
]]

describe("cl programs", function()
  local ctx, q
  setup(function()
    ctx = cl.context()
    q = ctx:queue()
    local p = io.popen("mktemp -d")
    tmpdir = p:read("l")
    p:close()
  end)
  teardown(function() os.execute("rm -rf " .. quote(tmpdir)) end)

  it("builds a program from source and lists its kernels", function()
    local p = ctx:program("kernel void a(global int *x) { x[0] = 1; }\nkernel void b(void) {}\n", "two.cl")
    assert.equal("two.cl", p.name)
    assert.equal(ctx, p.context)
    assert.matches("^cl.program: two.cl %(0x", tostring(p))
    assert.equal(p, p:build())
    local names = p:kernels()
    table.sort(names)
    assert.same({ "a", "b" }, names)
    assert.is_string(p.log)
    assert.equal("<source>", ctx:program("kernel void z(void) {}").name)
  end)

  it("applies build options and defines", function()
    assert.same({ 1, 16, 0, 0 }, run_int_kernel(ctx, q, PROBE, 4, nil, { USE_X = true, N = 16, OFF = false }))
    assert.same({ 0, 0, 4, 0 }, run_int_kernel(ctx, q, PROBE, 4, "-DM=4"))
    assert.same({ 0, 3, 9, 0 }, run_int_kernel(ctx, q, PROBE, 4, "-D M=9", { N = "3" }))
    assert.same({ 0, 0, 0, 0 }, run_int_kernel(ctx, q, PROBE, 4))
  end)

  it("rejects bad defines", function()
    local p = ctx:program(PROBE)
    assert.matches("program:build: define M must be a number, string or boolean, got table",
      err_of(p.build, p, nil, { M = {} }), 1, true)
    assert.matches("program:build: define names must be strings", err_of(p.build, p, nil, { 5 }), 1, true)
    assert.matches("table expected, got string", err_of(p.build, p, nil, "N=1"), 1, true)
  end)

  it("CLUA_BUILD_OPTIONS is appended to every build", function()
    local code, out = run_script([[
      local cl = require("cl")
      local ctx = cl.context()
      local q = ctx:queue()
      local p = ctx:program("kernel void k(global int *o) { o[0] = FROM_ENV; }"):build()
      local b = ctx:buffer(4)
      local k = p:kernel("k")
      k:arg(0, b)
      q:launch(k, 1)
      local r = cl.array("int", 1)
      q:read(b, r)
      print(r[0])
    ]], { CLUA_BUILD_OPTIONS = "-DFROM_ENV=77" })
    assert.equal(0, code)
    assert.equal("77\n", out)
  end)

  it("shows a successful build's log only with CLUA_BUILD_LOG=1", function()
    local script = [[
      local cl = require("cl")
      local p = cl.context():program("#warning note from the build\nkernel void k(void) {}\n", "warn.cl"):build()
      print(p.log:match("warn.cl:1:%d+: note from the build") ~= nil)
    ]]
    local code, out, err = run_script(script)
    assert.equal(0, code)
    if out == "false\n" and not cl.device().info.platform:match("Portable") then
      return -- this driver keeps no log of a successful build
    end
    assert.equal("true\n", out) -- the log is always readable
    assert.not_matches("note from the build", err)
    code, out, err = run_script(script, { CLUA_BUILD_LOG = "1" })
    assert.equal(0, code)
    assert.matches("warn.cl:1:%d+: note from the build", err)
  end)

  describe("failed builds", function()
    it("raise with the log, naming the call and the error", function()
      local p = ctx:program("kernel void k(global int *o) {\n  o[0] = 1\n}\n", "inline.cl")
      local err = err_of(p.build, p)
      assert.matches("program:build: clBuildProgram failed: CL_BUILD_PROGRAM_FAILURE\n", err, 1, true)
      assert.matches("inline.cl:2:%d+:", err)
      assert.matches("expected ';'", err, 1, true)
      assert.matches("inline.cl:2:", p.log, 1, true)
    end)

    it("try_build returns false and the log", function()
      local p = ctx:program("kernel void k(void) { int q = ; }\n", "inline.cl")
      local ok, log = p:try_build()
      assert.is_false(ok)
      assert.matches("inline.cl:1:%d+:", log)
      assert.matches("expected expression", log, 1, true)
      assert.equal(log, p.log)
      assert.is_true(ctx:program("kernel void k(void) {}"):try_build())
      local q2 = ctx:program("kernel void k(void) { int x = N; }")
      assert.is_true(q2:try_build("-DN=1"))
    end)

    it("map a file's error to file.cl:LINE", function()
      local path = write_file("bad.cl", "// a kernel with an error on line 5\n\nkernel void k(global int *x)\n{\n  x[0] = undefined_thing;\n}\n")
      local err = err_of(function() ctx:program_file(path):build() end)
      assert.matches(path .. ":5:10:", err, 1, true)
      assert.matches("undefined_thing", err, 1, true)
      assert.not_matches("tempfile", err)
    end)

    it("map two concatenated files to the right file and line", function()
      local good = write_file("good.cl", "kernel void a(global int *x)\n{\n  x[0] = 1;\n}\n")     -- 4 lines
      local bad = write_file("bad2.cl", "// second file\nkernel void b(global int *x)\n{\n  x[0] = nope;\n}") -- no final newline
      local p = ctx:program_file(good, bad)
      assert.equal(good, p.name)
      local ok, log = p:try_build()
      assert.is_false(ok)
      assert.matches(bad .. ":4:10:", log, 1, true)
      assert.matches("'nope'", log, 1, true)
      assert.not_matches(good .. ":8", log, 1, true)
      -- the error in the first file
      local bad1 = write_file("bad1.cl", "kernel void a(global int *x)\n{\n  x[0] = first_bad;\n}\n")
      ok, log = ctx:program_file(bad1, good):try_build()
      assert.is_false(ok)
      assert.matches(bad1 .. ":3:10:", log, 1, true)
      assert.matches("'first_bad'", log, 1, true)
      -- and after a file without a final newline
      local third = write_file("third.cl", "kernel void c(global int *x)\n{\n  x[0] = third_bad;\n}\n")
      ok, log = ctx:program_file(good, write_file("nonl.cl", "// no newline"), third):try_build()
      assert.is_false(ok)
      assert.matches(third .. ":3:10:", log, 1, true)
    end)
  end)

  it("program_file finds kernels under clua's kernels/ folder", function()
    local p = ctx:program_file("copy.cl"):build()
    local names = p:kernels()
    table.sort(names)
    assert.same({ "copy", "empty", "offsetCopy", "strideCopy" }, names)
    assert.matches("kernels/copy.cl$", p.name)
    assert.matches("ctx:program_file: cannot open kernel file 'no_such_file.cl'",
      err_of(ctx.program_file, ctx, "no_such_file.cl"), 1, true)
    assert.matches("cannot open kernel file '/nonexistent/x.cl'", err_of(ctx.program_file, ctx, "/nonexistent/x.cl"), 1, true)
    assert.matches("string expected", err_of(ctx.program_file, ctx), 1, true)
  end)

  it("lists no kernel for a program without any (empty, only a comment, only a function)", function()
    -- a driver may report one byte of names and write none: no name made of that byte
    for _, src in ipairs({ "", "// nothing\n", "void f(void) {}\n" }) do
      local p = ctx:program(src)
      p:build()
      assert.same({}, p:kernels(), ("%q"):format(src))
    end
  end)

  it("raises for kernels before a build and for unknown kernel names", function()
    local p = ctx:program("kernel void only(void) {}\n")
    assert.matches("program:kernel: clCreateKernel failed: CL_INVALID_PROGRAM_EXECUTABLE (build the program first (program:build()))",
      err_of(p.kernel, p, "only"), 1, true)
    assert.matches("program:kernels: clGetProgramInfo failed: CL_INVALID_PROGRAM_EXECUTABLE (build the program first)",
      err_of(p.kernels, p), 1, true)
    p:build()
    assert.matches("program:kernel: clCreateKernel failed: CL_INVALID_KERNEL_NAME (no kernel 'nope' in the program; it has: only)",
      err_of(p.kernel, p, "nope"), 1, true)
    local k = p:kernel("only")
    assert.equal("only", k.name)
    -- rebuilding with a kernel attached is refused by OpenCL, and says so
    assert.matches("program:build: clBuildProgram failed: CL_INVALID_OPERATION", err_of(p.build, p), 1, true)
    assert.matches("string expected, got table", err_of(ctx.program, ctx, {}), 1, true)
  end)
end)
