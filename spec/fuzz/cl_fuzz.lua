-- Random calls of the whole `cl` module with random (often wrong) arguments.
--
--   clua spec/fuzz/cl_fuzz.lua        (spec/fuzz_spec.lua and `make fuzz` run it)
--
-- Environment: FUZZ_SEED (default: from the clock; printed first, so that a
-- failing run can be repeated), FUZZ_CALLS (stop after this many calls),
-- FUZZ_SECONDS (stop after this long; default 20), FUZZ_VERBOSE=1 (print
-- every call before making it: the last line names the call that crashed).
-- FUZZ_SEED=S FUZZ_CALLS=N repeats the first N calls of a run exactly.
--
-- Every call must return or raise a Lua error that names the call: the
-- message holds "queue:write", "cl.array", ... or is Lua's own "bad argument
-- #N to 'write'" / "calling 'write' on bad self"; reading a field names the
-- type ("cl.buffer"). Anything else is a violation. The process must not
-- crash, abort, hang or corrupt memory (run it with the ASan build too).
-- Prints the counts, every distinct message (numbers and addresses folded)
-- and the violations; exits 1 when there is any violation.
--
-- What it avoids, on purpose: work sizes that would run for minutes, host
-- allocations between 256 MiB and 128 TiB (they would succeed, slowly),
-- kernels that write anywhere but byte 0 of their buffer (PoCL runs kernels
-- in this process: an out-of-bounds kernel write is host memory corruption,
-- which no runtime check can stop), and blocking while a user event is
-- incomplete (nothing could complete it: user events are completed or failed
-- before any call that may block).
local cl = require("cl")

local function env_int(name)
  return math.tointeger(tonumber(os.getenv(name) or ""))
end
local SEED = env_int("FUZZ_SEED") or cl.now() % 1000000007
local MAX_CALLS = env_int("FUZZ_CALLS") or math.maxinteger
local SECONDS = tonumber(os.getenv("FUZZ_SECONDS") or "") or 20
local VERBOSE = os.getenv("FUZZ_VERBOSE") == "1"
print(("fuzz: seed %d (FUZZ_SEED=%d reproduces this run)"):format(SEED, SEED))
io.stdout:flush()
math.randomseed(SEED)

local R = math.random
local function chance(p) return R() < p end
local function pick(t) return t[R(#t)] end

local dev = cl.device()
local info = dev.info
local MAXALLOC = info.max_mem_alloc_size
local MAXWG = info.max_work_group_size

-- ---------------------------------------------------------------- the pool
-- Live objects by kind; released ones stay in the pool too (uses of released
-- objects are part of the test). Each kind holds at most CAP objects: a new
-- one replaces a random old one, which the garbage collector then finds.
local CAP = 12
local pool = {}
local KINDS = { "ctx", "queue", "buffer", "image", "sampler", "program", "kernel", "event", "uevent", "array", "launcher",
  "view", "scalar" }
for _, k in ipairs(KINDS) do pool[k] = {} end
local uevents = {} -- user events that may still be incomplete

local function add(kind, obj)
  local list = pool[kind]
  if #list < CAP then list[#list + 1] = obj else list[R(CAP)] = obj end
  return obj
end

-- Each call is clean (BAD = 0: every argument valid, as far as the fuzzer
-- knows) or mutated (each argument bad with probability BAD), so that both
-- the checks and the OpenCL calls behind them are reached.
local BAD = 0
local function bad() return BAD > 0 and R() < BAD end

local function live(o)
  local ok, s = pcall(tostring, o)
  return ok and not s:find("released", 1, true) and not s:find("unmapped", 1, true)
end

-- An object of a kind: live unless this argument is a bad one.
local function any(kind, want)
  local list = pool[kind]
  if #list == 0 then return nil end
  if bad() then return list[R(#list)] end
  for _ = 1, 12 do
    local o = list[R(#list)]
    if live(o) and (want == nil or want(o)) then return o end
  end
  return list[R(#list)]
end

local function context_of(o)
  local ok, c = pcall(function()
    if tostring(o):match("^cl%.kernel") then return o.program.context end
    return o.context
  end)
  return ok and c or nil
end
-- A live object of a kind from context ctx (usually).
local function of_ctx(kind, ctx)
  return any(kind, function(o) return rawequal(context_of(o), ctx) end)
end

-- Completes, fails or releases every user event that may be incomplete.
local function settle_user_events()
  for i = #uevents, 1, -1 do
    local e = uevents[i]
    local c = R(3)
    if c == 1 then pcall(function() e:complete() end)
    elseif c == 2 then pcall(function() e:set_status(-R(60)) end)
    else pcall(function() e:release() end) end
    uevents[i] = nil
  end
end

-- ---------------------------------------------------------------- values

local function some_object()
  local kind = pick(KINDS)
  local list = pool[kind]
  return #list > 0 and list[R(#list)] or nil
end

local junk_list = {
  function() return nil end, function() return true end, function() return false end,
  function() return 0 end, function() return -1 end, function() return 1 end, function() return 7 end,
  function() return 1 << 31 end, function() return 1 << 32 end, function() return (1 << 32) + 1 end,
  function() return 1 << 53 end, function() return 1 << 62 end, function() return math.maxinteger end,
  function() return math.mininteger end, function() return 0.5 end, function() return -0.0 end,
  function() return 1e308 end, function() return math.huge end, function() return -math.huge end,
  function() return 0 / 0 end, function() return 2.0 ^ 64 end,
  function() return "" end, function() return "abc" end, function() return "read_write" end,
  function() return "float" end, function() return "16" end, function() return "0:0" end,
  function() return string.rep("x", 300) end, function() return "%s%d%n" end,
  function() return {} end, function() return { 1, 2, 3 } end, function() return { -1 } end,
  function() return { 1, 2, 3, 4 } end, function() return { wait = "x" } end, function() return { 0.5 } end,
  function() return print end, function() return coroutine.create(print) end, function() return io.stdout end,
  function() return cl.int(3) end, function() return cl.localmem(16) end, function() return cl.double(2) end,
  function() return dev end, function() return cl.platforms()[1] end,
  some_object, some_object, some_object,
}
local function junk() return pick(junk_list)() end

-- An integer size around n: the edges, past them, negative, huge, not an
-- integer, or junk.
local function size_near(n)
  n = math.tointeger(n) or 64
  local c = R(20)
  if c <= 8 then return pick { 0, 1, n - 1, n, n + 1, n // 2, n * 2, n + 4096 }
  elseif c <= 10 then return R(0, math.max(n, 1))
  elseif c == 11 then return -R(1000)
  elseif c == 12 then
    return pick { 1 << 31, 1 << 32, (1 << 32) + n, 1 << 53, 1 << 62, (1 << 62) + 1, math.maxinteger,
      math.maxinteger - n + 1, math.mininteger, -(1 << 62) }
  elseif c == 13 then return n + 0.5
  elseif c == 14 then return tostring(n)
  elseif c == 15 then return 2.0 ^ 63
  else return junk() end
end
-- A size in [0, n] (an edge or inside), or, for a bad argument, around n.
local function size_in(n)
  n = math.tointeger(n) or 64
  if bad() then return size_near(n) end
  return pick { 0, 1, n // 2, n, R(0, math.max(n, 0)) }
end
local function size_of(o, field)
  local ok, v = pcall(function() return o[field] end)
  return ok and math.tointeger(v) or 64
end

local ARRAY_TYPES = cl.types
local function array_type()
  if not bad() then return pick(ARRAY_TYPES) end
  return pick { "bogus", "Float", "float3", "", 4, "int ", nil, junk() }
end

-- An array length: small, or so large that allocating fails at once.
local function array_length()
  if not bad() then return pick { 0, 1, 2, 3, 4, 7, 16, 64, 256, 1000, 4096 } end
  return pick { -1, -(1 << 40), 1 << 50, 1 << 59, 1 << 60, 1 << 62, math.maxinteger, 0.5, "8", 2.0 ^ 70,
    0 / 0, nil, {} }
end

-- A buffer size: small, or at or past the device's limit (which fails).
-- A size that would allocate GiBs (the device's limit varies with free
-- memory on PoCL) becomes one past the limit, which fails at once.
local function not_big(v)
  if type(v) == "number" and v > 65536 and v <= cl.device().info.max_mem_alloc_size then
    return cl.device().info.max_mem_alloc_size + 1
  end
  return v
end

local function buffer_size()
  if not bad() then return pick { 1, 2, 4, 16, 64, 100, 256, 1024, 4096, 65536 } end
  return not_big(pick { 0, -1, MAXALLOC + 1, 1 << 40, math.maxinteger, 1.5, "64", nil, junk() })
end

local function flags()
  if not bad() then
    return pick { nil, "read_write", "read_only", "write_only", "alloc_host_ptr", "read_write alloc_host_ptr",
      "read_only,host_read_only", "write_only|host_no_access", "host_write_only" }
  end
  return pick { "bogus", "read_write bogus", "  ", ",,|", "READ_WRITE", 42, {}, true, string.rep("read_only ", 50),
    "use_host_ptr", "copy_host_ptr", "read_write read_only", "" }
end

local function an_event()
  if bad() then
    if #uevents > 0 and chance(0.5) then return uevents[R(#uevents)] end
    return chance(0.5) and some_object() or junk()
  end
  return any("event")
end

local function waitlist()
  if chance(0.5) then return nil end
  if chance(0.3) then return an_event() end
  local list = {}
  for i = 1, R(0, 3) do list[i] = an_event() end
  if bad() then list[#list + 1] = junk() end
  return list
end

local function opts_table(t)
  if bad() then return junk() end
  if chance(0.6) then t.wait = waitlist() end
  return t
end

-- A global work size that never makes a long launch (at most 4096
-- work-items), and a local size: nil, one that divides it, or a bad one.
local function launch_sizes()
  local dims = R(3)
  local g, l = {}, {}
  for i = 1, dims do
    g[i] = pick { 1, 2, 4, 8, 16 }
    l[i] = pick { 1, 2, 4, 8, 16 }
    while g[i] % l[i] ~= 0 do l[i] = l[i] // 2 end
  end
  if dims == 1 and chance(0.5) then g, l = g[1] * 16, l[1] end
  if chance(0.3) then l = nil end
  if bad() then
    g = pick { 0, -1, 1.5, "16", { 0 }, { 1, 0 }, {}, { 1, 2, 3, 4 }, { -4 }, { "x" }, 3, 100, 4096, junk() }
  end
  if bad() then
    l = pick { 0, -1, 3, 7, MAXWG, MAXWG + 1, MAXWG * 2, { 1, 1, MAXWG + 1 }, { 64, 64, 2 }, { 4096, 1 }, { 1 },
      { 2, 2, 2 }, junk() }
  end
  -- between 2^16 and 2^32 work-items a launch would run for minutes (one of
  -- 2^32 or more is refused); more than 4096 in all, likewise
  local function tame(v)
    if math.type(v) == "integer" and v > 65536 and v < 1 << 32 then return 4096 end
    return v
  end
  if type(g) == "table" then
    local t, total = {}, 1
    for i, v in ipairs(g) do
      t[i] = tame(v)
      if math.type(t[i]) == "integer" and t[i] > 0 then total = total * t[i] end
    end
    g = total > 1 << 16 and { 16, 16 } or t
  else
    g = tame(g)
  end
  return g, l
end

local function scalar_value()
  if not bad() then return pick { 0, 1, 7, 100, 1.5, cl.int(1), cl.float(1.5), cl.uchar(3), cl.double(2) } end
  return pick { -1, 255, 256, -129, 65535, 1 << 31, 1 << 32, math.maxinteger, math.mininteger, 0.5, -2.5,
    1e40, 0 / 0, math.huge, "3", cl.int(1), cl.uint(7), cl.float(1.5), cl.double(2), cl.long(-3), cl.uchar(3),
    cl.short(2), cl.size_t(4), cl.localmem(4), cl.localmem(1 << 30), junk() }
end

-- The host array type and scalars per pixel of each image format.
local IMAGE_HOST = { float = { "float", 1 }, float2 = { "float", 2 }, float4 = { "float", 4 }, half = { "half", 1 },
  half4 = { "half", 4 }, int = { "int", 1 }, int4 = { "int", 4 }, uint = { "uint", 1 }, uint4 = { "uint", 4 },
  short = { "short", 1 }, ushort = { "ushort", 1 }, uchar = { "uchar", 1 }, uchar4 = { "uchar", 4 },
  unorm_uchar = { "uchar", 1 }, unorm_uchar4 = { "uchar", 4 }, unorm_ushort = { "ushort", 1 },
  unorm_ushort4 = { "ushort", 4 } }

-- ---------------------------------------------------------------- setup

local SRC = [[
kernel void k0(void) {}
kernel void k1(global uchar *x, float a) { if (get_global_id(0) == 0) x[0] = (uchar)a; }
kernel void k2(global uchar *x, local uchar *t, int n) {
  t[0] = (uchar)n; barrier(CLK_LOCAL_MEM_FENCE);
  if (get_global_id(0) == 0) x[0] = t[0];
}
kernel void k3(constant uchar *c, global uchar *x, long l, double d, uint u, short s, char ch, ulong ul,
               uchar uc, ushort us, ulong z) {
  if (get_global_id(0) == 0) x[0] = c[0] + (uchar)(l + (long)d + u + s + ch + ul + uc + us + z);
}
kernel void k4(read_only image2d_t im, sampler_t s, global uchar *x) {
  float4 v = read_imagef(im, s, (float2)(0.5f, 0.5f));
  if (get_global_id(0) == 0) x[0] = (uchar)v.x;
}
kernel void k5(global uchar *x, float4 v, global uchar *y) { if (get_global_id(0) == 0) x[0] = y[0] + (uchar)v.x; }
]]
local BAD_SRC = {
  "kernel void broken( {",
  "kernel void k(global float *x) { x[0] = undefined_name; }",
  "",
  "#error deliberate",
  "kernel void k(global float *x) { x[0] = 1.0f }",
}
local KERNEL_NAMES = { "k0", "k1", "k2", "k3", "k4", "k5" }

local ctxA = cl.context(dev)
local ctxB = cl.context(dev)
local progA = ctxA:program(SRC, "fuzz.cl"):build()
local progB = ctxB:program(SRC, "fuzz.cl"):build()
add("ctx", ctxA)
add("ctx", ctxB)
add("program", progA)
add("program", progB)
for _, c in ipairs { ctxA, ctxB } do
  add("queue", c:queue())
  add("queue", c:queue { out_of_order = true })
  add("buffer", c:buffer(64))
  add("buffer", c:buffer(4096, "alloc_host_ptr"))
  add("image", c:image2d { width = 4, height = 4, format = "float4" })
  add("sampler", c:sampler { normalized = true, filter = "linear" })
end
add("array", cl.array("uchar", 64))
add("array", cl.array("float", 16))
add("event", pool.queue[1]:marker())

-- A valid argument list for a kernel of the fuzz program (a bad one now and then).
local function valid_args(k)
  local ok, name = pcall(function() return k.name end)
  local okc, ctx = pcall(function() return k.program.context end)
  if not ok or not okc then return { n = 0 } end
  local function b() return of_ctx("buffer", ctx) or ctx:buffer(16) end
  local t
  if name == "k1" then t = { b(), R(0, 255) + 0.5 }
  elseif name == "k2" then t = { b(), cl.localmem(pick { 1, 16, 256 }), R(0, 255) }
  elseif name == "k3" then t = { b(), b(), 1, 2.0, 3, 4, 5, 6, 7, 8, 9 }
  elseif name == "k4" then t = { of_ctx("image", ctx) or junk(), of_ctx("sampler", ctx) or junk(), b() }
  elseif name == "k5" then t = { b(), cl.float(1), b() } -- float4 by value: clua has no way to pass it
  else t = {} end
  t.n = #t
  if t.n > 0 and bad() then t[R(t.n)] = junk() end
  return t
end

-- ---------------------------------------------------------------- operations
-- name: how the call is named in messages; method/fn: the name Lua's argument
-- errors use; kind: the pool the receiver comes from; args: a function
-- returning the arguments (nils allowed, count in .n); blocks: may wait for
-- the device (user events are settled first); keep: the pool its result joins.

local function pack(...) return { n = select("#", ...), ... } end

local ops = {}
local function op(t)
  t.weight = t.weight or 1
  ops[#ops + 1] = t
end

local function arr() return bad() and (chance(0.5) and any("view") or junk()) or any("array") end
local function arr_or_view() return chance(0.7) and any("array") or any("view") or any("array") end

-- module functions
op { name = "cl.platforms", fn = "platforms", args = function() return pack() end, weight = 0.2 }
op { name = "cl.devices", fn = "devices", args = function() return pack() end, weight = 0.2 }
op { name = "cl.device", fn = "device", args = function()
  return pack(pick { nil, "0:0", "pthread", "PoCL", "nvidia", "9:9", "0:", ":0", "", 0, -1, 1e9, {}, "%d%s" })
end, weight = 0.3 }
op { name = "cl.context", fn = "context", args = function()
  if not bad() then return pack(pick { dev, { dev } }) end
  return pack(pick { { dev, dev }, {}, { "x" }, "x", 3, junk() })
end, weight = 0.3, keep = "ctx" }
op { name = "cl.array", fn = "array", args = function() return pack(array_type(), array_length()) end,
  weight = 3, keep = "array" }
op { name = "cl.wait", fn = "wait", args = function() return pack(waitlist()) end, blocks = true }
op { name = "cl.now", fn = "now", args = function() return pack(junk()) end, weight = 0.1 }
op { name = "cl.error_name", fn = "error_name", args = function() return pack(size_near(-30)) end, weight = 0.2 }
op { name = "cl.nvml", fn = "nvml", args = function() return pack(chance(0.5) and dev or junk()) end, weight = 0.1 }
op { name = "cl.localmem", fn = "localmem", args = function() return pack(size_in(64)) end, keep = "scalar",
  weight = 0.3 }
for _, t in ipairs { "int", "uint", "long", "ulong", "float", "double", "short", "ushort", "char", "uchar",
  "size_t" } do
  op { name = "cl." .. t, fn = t, args = function() return pack(scalar_value()) end, weight = 0.1,
    keep = "scalar" }
end

-- contexts
op { name = "ctx:queue", kind = "ctx", method = "queue", args = function()
  local o = pick { nil, { profiling = false }, { out_of_order = true }, {} }
  if bad() then o = pick { { profiling = "x" }, 5, "x", junk() } end
  if chance(0.3) then return pack(bad() and junk() or dev, o) end
  return pack(o)
end, keep = "queue" }
op { name = "ctx:buffer", kind = "ctx", method = "buffer", args = function()
  if chance(0.25) then
    local f = flags()
    if not bad() then f = pick { nil, "use_host_ptr", "copy_host_ptr", "read_only copy_host_ptr" } end
    return pack(not_big(arr()), f)
  end
  return pack(buffer_size(), flags())
end, weight = 2, keep = "buffer" }
op { name = "ctx:program", kind = "ctx", method = "program", args = function()
  return pack(bad() and pick(BAD_SRC) or SRC, pick { nil, "x.cl", "" })
end, weight = 0.5, keep = "program" }
op { name = "ctx:program_file", kind = "ctx", method = "program_file", args = function()
  if not bad() then return pack(pick { "copy.cl", "timing.cl" }) end
  return pack(pick { "nonexistent.cl", "", "/", "/nonexistent/x.cl", 5, nil, {} }, chance(0.2) and "timing.cl" or nil)
end, weight = 0.3, keep = "program" }
op { name = "ctx:user_event", kind = "ctx", method = "user_event", args = function() return pack() end,
  keep = "uevent" }
op { name = "ctx:image2d", kind = "ctx", method = "image2d", args = function()
  if bad() and chance(0.2) then return pack(junk()) end
  local fmt = pick { "float", "float4", "uchar", "uchar4", "int4", "half", "unorm_uchar4", "uint" }
  local t = { width = pick { 1, 4, 16 }, height = pick { 1, 4, 8 }, format = fmt, flags = flags() }
  if bad() then t.width = size_near(16) end
  if bad() then t.height = size_near(8) end
  if bad() then t.format = pick { "bogus", 3, "float3", nil } end
  if bad() then t.width = pick { 1 << 20, 8193, 0 } end
  -- past the device's largest image, or small: never hundreds of MiB
  local iw, ih = math.tointeger(t.width), math.tointeger(t.height)
  if iw and ih and iw > 64 and ih > 1 then t.height = pick { 1, 0, -1 } end
  if iw and ih and ih > 64 and iw > 1 then t.width = pick { 1, 0, -1 } end
  if chance(0.2) then
    local h, w, ht = IMAGE_HOST[fmt], math.tointeger(t.width), math.tointeger(t.height)
    local small = w and ht and w >= 0 and ht >= 0 and w <= 16 and ht <= 16
    t.data = (bad() or not small) and arr() or cl.array(h[1], w * ht * h[2])
  end
  return pack(t)
end, keep = "image" }
op { name = "ctx:sampler", kind = "ctx", method = "sampler", args = function()
  if bad() and chance(0.2) then return pack(junk()) end
  local n = pick { nil, true, false }
  local a = pick { nil, "none", "clamp_to_edge", "clamp" }
  if n then a = pick { nil, "none", "clamp_to_edge", "clamp", "repeat", "mirrored_repeat" } end
  local t = { normalized = n, address = a, filter = pick { nil, "nearest", "linear" } }
  if bad() then t[pick { "normalized", "address", "filter" }] = pick { "bogus", "x", 3, "repeat" } end
  return pack(t)
end, keep = "sampler" }
op { name = "cl.context", kind = "ctx", prop = function() return pick { "devices", "device", "nope", 1 } end }
op { name = "ctx:release", kind = "ctx", method = "release", args = function() return pack() end, weight = 0.03 }

-- buffers
op { name = "buffer:sub", kind = "buffer", method = "sub", args = function()
  local n = size_of(any("buffer"), "size")
  return pack(bad() and size_near(n) or pick { 0, 1024, 2048 }, size_in(n // 2), flags())
end, weight = 0.5, keep = "buffer" }
op { name = "cl.buffer", kind = "buffer", prop = function() return pick { "size", "flags", "context", "parent", "x" } end,
  weight = 0.5 }
op { name = "buffer:release", kind = "buffer", method = "release", args = function() return pack() end, weight = 0.2 }

-- queues: the receiver's buffers, arrays and events come from its context,
-- unless the argument is a bad one
local QUEUE
local function qbuf()
  if bad() then return junk() end
  local ctx = context_of(QUEUE)
  local b = of_ctx("buffer", ctx)
  if (not b or not rawequal(context_of(b), ctx)) and ctx and live(ctx) then b = add("buffer", ctx:buffer(pick { 64, 256, 4096 })) end
  return b or any("buffer")
end
local function transfer_args()
  local b, a = qbuf(), arr()
  local bn, an = size_of(b, "size"), size_of(a, "size")
  local size = size_in(math.min(an, bn))
  return pack(b, a, opts_table { offset = chance(0.5) and size_in(bn - (math.tointeger(size) or 0)) or nil,
    size = chance(0.7) and size or nil, blocking = bad() and pick { 0, "x" } or pick { nil, true, false, false } })
end
op { name = "queue:write", kind = "queue", method = "write", args = transfer_args, weight = 3, blocks = true,
  keep = "event" }
op { name = "queue:read", kind = "queue", method = "read", args = transfer_args, weight = 3, blocks = true,
  keep = "event" }
op { name = "queue:copy", kind = "queue", method = "copy", args = function()
  local s, d = qbuf(), qbuf()
  local n = math.min(size_of(s, "size"), size_of(d, "size"))
  local size = size_in(n)
  return pack(s, d, opts_table { src_offset = chance(0.4) and size_in(n - (math.tointeger(size) or 0)) or nil,
    dst_offset = chance(0.4) and size_in(n - (math.tointeger(size) or 0)) or nil, size = chance(0.7) and size or nil })
end, weight = 2, keep = "event" }
op { name = "queue:fill", kind = "queue", method = "fill", args = function()
  local b = qbuf()
  local n = size_of(b, "size")
  local v, ty = scalar_value(), nil
  if chance(0.3) then v = bad() and arr() or cl.array(pick { "uchar", "ushort", "uint", "float4" }, 1) end
  if type(v) == "number" then ty = bad() and array_type() or pick { nil, "uchar", "int", "float", "double" } end
  if not bad() and type(v) == "number" then v, ty = R(0, 100), pick { nil, "uchar", "int" } end
  return pack(b, v, opts_table { offset = chance(0.3) and (bad() and size_near(n) or 0) or nil,
    size = chance(0.5) and (bad() and size_near(n) or n // 8 * 8) or nil, type = ty })
end, weight = 2, keep = "event" }
local function a_triple(n)
  if bad() then
    return pick { { size_near(n), R(0, 3), R(0, 1) }, { size_near(n) }, { 0, size_near(4) }, junk(),
      { 1 << 62, 1 << 62, 1 << 62 } }
  end
  return pick { nil, { 0, 0, 0 }, { R(0, 3), 0, 0 } }
end
local function rect_args(both)
  local s, d = qbuf(), both and qbuf() or arr()
  local n = math.min(size_of(s, "size"), size_of(d, "size"))
  local w = math.max(1, n // 16)
  local o = { region = { w, pick { 1, 2, 4 }, 1 } }
  if both then
    o.src_origin, o.dst_origin = a_triple(n), a_triple(n)
    if bad() then o.src_row_pitch = size_near(w) end
    if bad() then o.dst_slice_pitch = size_near(n) end
  else
    o.buffer_origin, o.host_origin = a_triple(n), a_triple(n)
    if bad() then o.buffer_row_pitch = size_near(w) end
    if bad() then o.host_slice_pitch = size_near(n) end
    o.blocking = pick { nil, true, false }
  end
  if bad() then o.region = a_triple(16) end
  return pack(s, d, opts_table(o))
end
op { name = "queue:write_rect", kind = "queue", method = "write_rect", args = function() return rect_args(false) end,
  blocks = true, keep = "event" }
op { name = "queue:read_rect", kind = "queue", method = "read_rect", args = function() return rect_args(false) end,
  blocks = true, keep = "event" }
op { name = "queue:copy_rect", kind = "queue", method = "copy_rect", args = function() return rect_args(true) end,
  keep = "event" }
op { name = "queue:map", kind = "queue", method = "map", args = function()
  local b = qbuf()
  local n = size_of(b, "size")
  local o = { map = pick { nil, "read", "write", "read_write", "write_invalidate" }, type = pick { nil, "uchar", "char" },
    offset = chance(0.4) and size_in(n // 2) or nil, size = chance(0.4) and n // 2 or nil,
    blocking = pick { nil, true, false } }
  if bad() then o.map = pick { "bogus", 1 } end
  if bad() then o.type = array_type() end
  if bad() then o.offset = size_near(n) end
  if bad() then o.size = size_near(n) end
  return pack(b, opts_table(o))
end, weight = 2, blocks = true, keep = "view" }
op { name = "queue:unmap", kind = "queue", method = "unmap", args = function()
  return pack(bad() and arr() or any("view"), opts_table {})
end, weight = 2, keep = "event" }
local progs_of = setmetatable({}, { __mode = "k" }) -- the fuzz program built in other contexts
-- Kernels come from the two first contexts' programs (or one built in the
-- queue's context): launches go mostly to their queues (made when the pool
-- has none), so that kernels run.
local function launch_queue()
  if bad() or chance(0.2) then return nil end
  local ctx = chance(0.8) and ctxA or ctxB
  local q = any("queue", function(o) return rawequal(context_of(o), ctx) end)
  if (not q or not rawequal(context_of(q), ctx)) and live(ctx) then q = add("queue", ctx:queue()) end
  return q
end
local function launch_args()
  local g, l = launch_sizes()
  local o = nil
  if chance(0.4) then
    local off = pick { { 0 }, { 1 } }
    if type(g) == "table" then off = {} for i = 1, #g do off[i] = R(0, 2) end end
    if bad() then off = pick { { -1 }, 3, { math.maxinteger }, { 1 << 40 }, "x", { 1, 1, 1, 1 } } end
    o = opts_table { offset = off }
  end
  local ctx = context_of(QUEUE)
  local kbad = bad()
  local k = kbad and junk() or of_ctx("kernel", ctx)
  if k and not kbad and not rawequal(context_of(k), ctx) then -- none of this context in the pool: make one
    local p = rawequal(ctx, ctxA) and progA or rawequal(ctx, ctxB) and progB or progs_of[ctx]
    if not (p and live(p)) and ctx and live(ctx) and chance(0.2) then -- a build takes milliseconds
      local ok, np = pcall(function() return ctx:program(SRC, "fuzz.cl"):build() end)
      if ok then p, progs_of[ctx] = add("program", np), np end
    end
    local ok, nk = pcall(function() return p and live(p) and p:kernel(pick(KERNEL_NAMES)) end)
    if ok and nk then k = add("kernel", nk) end
  end
  if not bad() and k and chance(0.5) then pcall(function() k:args(table.unpack(valid_args(k))) end) end
  return pack(k, g, l, o)
end
op { name = "queue:launch", kind = "queue", method = "launch", recv = launch_queue, args = launch_args, weight = 4,
  keep = "event" }
-- q:launcher: the same arguments (an options table with event or wait now
-- and then); its go() functions join their own pool, called with no
-- arguments (or bad ones) after the kernel's arguments, the queue or the
-- kernel may have changed or been released.
op { name = "queue:launcher", kind = "queue", method = "launcher", recv = launch_queue, args = function()
  local a = launch_args()
  if chance(0.3) and (a[4] == nil or type(a[4]) == "table") then
    local o = a[4] or {}
    if chance(0.5) then o.event = pick { false, true } else o.wait = {} end
    a[4] = o
  end
  return a
end, weight = 2, keep = "launcher" }
op { name = "launcher", kind = "launcher", call = true, args = function()
  if bad() then return pack(junk()) end
  return pack()
end, weight = 3, keep = "event" }
op { name = "queue:marker", kind = "queue", method = "marker", args = function() return pack(waitlist()) end,
  keep = "event" }
op { name = "queue:barrier", kind = "queue", method = "barrier", args = function() return pack(waitlist()) end,
  keep = "event" }
op { name = "queue:finish", kind = "queue", method = "finish", args = function() return pack() end, blocks = true }
op { name = "queue:flush", kind = "queue", method = "flush", args = function() return pack() end }
local function image_transfer_args()
  local img = bad() and junk() or of_ctx("image", context_of(QUEUE)) or any("image")
  local ok, fmt = pcall(function() return img.format end)
  local h = ok and IMAGE_HOST[fmt]
  local a
  local pixels = size_of(img, "width") * size_of(img, "height")
  if h and not bad() and pixels <= 1 << 16 then a = cl.array(h[1], pixels * h[2])
  else a = arr() end
  local o = {}
  if bad() then o.origin = pick { { 1, 1 }, { 16, 0 }, { -1, 0 }, { 1 << 62, 0 }, "x" } end
  if bad() then o.region = pick { { 1, 1 }, { 4, 4 }, { 16, 8 }, { 0, 1 }, { 17, 9 }, { 1, 1 << 40 } } end
  if bad() then o.row_pitch = pick { 0, 1, 4, 16, 64, 1 << 62, (1 << 62) + 4, math.maxinteger, -1 } end
  if bad() then o.blocking = false end
  return pack(img, a, opts_table(o))
end
op { name = "queue:write_image", kind = "queue", method = "write_image", args = image_transfer_args,
  blocks = true, keep = "event" }
op { name = "queue:read_image", kind = "queue", method = "read_image", args = image_transfer_args,
  blocks = true, keep = "event" }
op { name = "cl.queue", kind = "queue", prop = function() return pick { "context", "device", "pending", "x" } end,
  weight = 0.5 }
op { name = "queue:release", kind = "queue", method = "release", args = function() return pack() end,
  weight = 0.05, blocks = true }

-- programs and kernels
op { name = "program:build", kind = "program", method = "build", args = function()
  if not bad() then return pack(pick { nil, "", "-cl-fast-relaxed-math", "-DX=1" }, pick { nil, {}, { N = 4 } }) end
  return pack(pick { nil, "-bogus-option", "-cl-std=CL9.9", 5 },
    pick { nil, { FLAG = true, OFF = false }, { [1] = "x" }, { N = {} }, "x" })
end, weight = 0.03, blocks = true }
op { name = "program:try_build", kind = "program", method = "try_build", args = function()
  return pack(pick { nil, "-bogus-option" })
end, weight = 0.02, blocks = true }
op { name = "program:kernel", kind = "program", method = "kernel", recv = function()
  if not bad() and chance(0.7) then
    local p = chance(0.8) and progA or progB
    if live(p) then return p end
  end
end, args = function()
  if bad() then return pack(pick { "nope", "", "K1", "k1 ", junk() }) end
  return pack(pick(KERNEL_NAMES))
end, weight = 2, keep = "kernel" }
op { name = "program:kernels", kind = "program", method = "kernels", args = function() return pack() end,
  weight = 0.3 }
op { name = "cl.program", kind = "program", prop = function() return pick { "log", "context", "name", "x" } end,
  weight = 0.3 }
op { name = "program:release", kind = "program", method = "release", args = function() return pack() end,
  weight = 0.03 }
local function arg_value()
  local c = R(10)
  if c <= 4 then return any("buffer") end
  if c <= 7 then return scalar_value() end
  if c == 8 then return any("image") or any("sampler") or junk() end
  if c == 9 then return any("sampler") or junk() end
  return junk()
end
op { name = "kernel:arg", kind = "kernel", method = "arg", args = function()
  local i = bad() and pick { 10, -1, 1 << 32, math.maxinteger, 0.5, "1", nil } or R(0, 3)
  return pack(i, arg_value())
end, weight = 3 }
op { name = "kernel:args", kind = "kernel", method = "args", args = function(recv)
  if not bad() then return valid_args(recv) end
  local t = { n = R(0, 11) }
  for i = 1, t.n do t[i] = arg_value() end
  return t
end, weight = 3 }
op { name = "kernel:info", kind = "kernel", method = "info", args = function()
  return pack(bad() and junk() or pick { nil, dev })
end, weight = 0.5 }
op { name = "kernel:arg_info", kind = "kernel", method = "arg_info", args = function()
  if not bad() then return pack(R(0, 2)) end
  return pack(pick { 10, -1, 1 << 32, (1 << 32) + 1, math.maxinteger, math.mininteger, 0.5, nil })
end, weight = 0.5 }
op { name = "cl.kernel", kind = "kernel", prop = function() return pick { "name", "nargs", "program", "x" } end,
  weight = 0.5 }
op { name = "kernel:release", kind = "kernel", method = "release", args = function() return pack() end, weight = 0.1 }

-- events
op { name = "event:wait", kind = "event", method = "wait", args = function() return pack() end, blocks = true }
op { name = "event:complete", kind = "event", method = "complete", recv = function()
  if not bad() then return any("uevent") end
end, args = function()
  if not bad() then return pack(pick { nil, "complete", -1, -5 }) end
  return pack(pick { 1, 0, math.mininteger, -(1 << 32), "x", junk() })
end, weight = 0.5 }
op { name = "event:complete", kind = "event", method = "set_status", args = function() -- an alias of complete
  return pack(pick { "complete", -3, 2 })
end, weight = 0.2 }
op { name = "cl.event", kind = "event", blocks = true, prop = function()
  return pick { "status", "command", "queued", "submit", "start", "end", "duration", "user", "x" }
end, weight = 2 }
op { name = "event:release", kind = "event", method = "release", args = function() return pack() end, weight = 0.2 }

-- arrays and views
local function index_args(a)
  local n = size_of(a, "size") // math.max(size_of(a, "elem_size"), 1)
  if not bad() then return R(0, math.max(n - 1, 0)) end
  return pick { size_near(n), n, -1, "x", nil, true, 0.5 }
end
op { name = "cl.array", kind = "array", index = true, args = function(a) return pack(index_args(a)) end, weight = 2 }
op { name = "cl.array", kind = "array", newindex = true, args = function(a)
  return pack(index_args(a), bad() and scalar_value() or R(0, 100))
end, weight = 2 }
op { name = "cl.array", kind = "view", index = true, args = function(a) return pack(index_args(a)) end, weight = 2 }
op { name = "cl.array", kind = "view", newindex = true, args = function(a)
  return pack(index_args(a), bad() and scalar_value() or R(0, 100))
end, weight = 2 }
op { name = "cl.array", kind = "array", prop = function()
  return pick { "type", "n", "size", "elem_size", "lanes", "valid", "x" }
end, weight = 0.5 }
-- A partner for a: the same type and length (a fresh one), or another array.
local function partner(a)
  local ok, t, n = pcall(function() return a.type, a.n end)
  if ok and not bad() then return cl.array(t, n) end
  return arr_or_view()
end
for _, kind in ipairs { "array", "view" } do
  local w = kind == "array" and 0.4 or 0.25
  op { name = "array:fill", kind = kind, method = "fill", args = function()
    return pack(bad() and scalar_value() or R(0, 100))
  end, weight = w }
  op { name = "array:ramp", kind = kind, method = "ramp", args = function()
    if not bad() then return pack(R(0, 9), R(0, 3)) end
    return pack(pick { nil, 0, 1.5, 1e300, math.maxinteger, "x" }, pick { nil, 1, -1, 0.25, math.mininteger })
  end, weight = w }
  op { name = "array:random", kind = kind, method = "random", args = function()
    if not bad() then return pack(R(100)) end
    return pack(pick { 1, 7, -1, 0.5, nil, "x" }, pick { nil, 0, -5, 1e300, math.mininteger },
      pick { nil, 1, 100, -10, math.maxinteger, 0 / 0 })
  end, weight = w }
  op { name = "array:copy", kind = kind, method = "copy", args = function(a) return pack(partner(a)) end, weight = w }
  op { name = "array:slice", kind = kind, method = "slice", args = function(a)
    local n = size_of(a, "size") // math.max(size_of(a, "elem_size"), 1)
    local first = size_in(n)
    return pack(first, size_in(n - (math.tointeger(first) or 0)))
  end, weight = w, keep = "array" }
  op { name = "array:gather", kind = kind, method = "gather", args = function(a)
    if not bad() then
      local ok, t, n = pcall(function() return a.type, a.n end)
      if ok then return pack(cl.array(t, 2 * n + 1), R(0, 1), pick { nil, 1, 2 }) end
    end
    return pack(arr_or_view(), size_near(8), pick { nil, 0, 1, 2, 3, 1 << 40, math.maxinteger, -1 })
  end, weight = w }
  op { name = "array:transpose", kind = kind, method = "transpose", args = function(a)
    local n = size_of(a, "size") // math.max(size_of(a, "elem_size"), 1)
    if not bad() then
      local rows = pick { 1, 2, 4 }
      return pack(partner(a), rows, n // rows)
    end
    return pack(arr_or_view(), size_near(4), pick { 0, 1, 4, 16, 1 << 33, math.maxinteger, -2 })
  end, weight = w }
  op { name = "array:compare", kind = kind, method = "compare", args = function(a)
    return pack(partner(a), bad() and pick { -1, 0 / 0, "x" } or pick { nil, 0, 1e-3 })
  end, weight = w }
  op { name = "array:sum", kind = kind, method = "sum", args = function() return pack() end, weight = w / 2 }
  op { name = "array:min", kind = kind, method = "min", args = function() return pack() end, weight = w / 2 }
  op { name = "array:max", kind = kind, method = "max", args = function() return pack() end, weight = w / 2 }
  op { name = "array:totable", kind = kind, method = "totable", args = function(a)
    local n = size_of(a, "size") // math.max(size_of(a, "elem_size"), 1)
    if not bad() then return pack(pick { nil, 0, 1 }, pick { nil, 0, 1 }) end
    return pack(size_near(n), size_near(n))
  end, weight = w }
  op { name = "array:release", kind = kind, method = "release", args = function() return pack() end, weight = 0.05 }
end

-- images and samplers
op { name = "cl.image", kind = "image", prop = function()
  return pick { "width", "height", "format", "pixel_size", "size", "flags", "context", "x" }
end, weight = 0.3 }
op { name = "image:release", kind = "image", method = "release", args = function() return pack() end, weight = 0.05 }
op { name = "cl.sampler", kind = "sampler", prop = function()
  return pick { "normalized", "address", "filter", "context", "x" }
end, weight = 0.3 }
op { name = "sampler:release", kind = "sampler", method = "release", args = function() return pack() end,
  weight = 0.05 }

-- tostring of anything, and the garbage collector
op { name = "tostring", special = "tostring", weight = 0.3 }
op { name = "collectgarbage", special = "gc", weight = 0.1 }

local total_weight = 0
for _, o in ipairs(ops) do total_weight = total_weight + o.weight end
local function choose_op()
  local r = R() * total_weight
  for _, o in ipairs(ops) do
    r = r - o.weight
    if r <= 0 then return o end
  end
  return ops[#ops]
end

-- ---------------------------------------------------------------- calling
-- Calls are compiled as a user writes them (o:write(...), cl.array(...),
-- o.size, a[i]), so that Lua's own messages name them the way users see.

local compiled = {}
local function caller(code)
  local f = compiled[code]
  if not f then
    f = assert(load(code, "=fuzz"))
    compiled[code] = f
  end
  return f
end

-- The methods table of a kind, for calls with a receiver of the wrong type.
local function methods_of(kind)
  local o = pool[kind][1]
  local mt = o and getmetatable(o)
  if not mt then return nil end
  return type(mt.__index) == "table" and mt.__index or mt.methods
end

local function describe(v, depth)
  depth = depth or 0
  local t = type(v)
  if t == "string" then return ("%q"):format(#v > 40 and v:sub(1, 40) .. "..." or v) end
  if t == "userdata" then
    local ok, s = pcall(tostring, v)
    return ok and s:gsub(" %(0x%x+%)", "") or "userdata"
  end
  if t == "table" then
    local parts = {}
    for k, x in pairs(v) do
      if #parts > 8 then parts[#parts + 1] = "..." break end
      parts[#parts + 1] = (type(k) == "string" and k .. "=" or "") ..
        ((type(x) == "table" and depth > 0) and "{...}" or describe(x, depth + 1))
    end
    return "{" .. table.concat(parts, ", ") .. "}"
  end
  return tostring(v)
end

local stats = { calls = 0, ok = 0, errors = 0, by_op = {}, slowest = 0 }
local messages = {} -- folded message -> count
local nmessages = 0
local violations = {}

-- Messages with numbers and addresses folded (each counted once), and their
-- shapes: also the values, types, error names and kernel names folded, to
-- print a readable list of what the runtime says.
local function fold(msg)
  return (msg:gsub("0x%x+", "0x#"):gsub("%-?%d+%.?%d*e?[%+%-]?%d*", "#"))
end
local SCALAR_TYPES = { "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "half", "float", "double",
  "size_t" }
local function shape(key)
  key = key:gsub("^fuzz:#: ", ""):gsub("\n.*", " …")
  key = key:gsub("got [^)]*", "got …"):gsub("CL_[%u_%d]+", "CL_*")
  key = key:gsub("argument # %([^)]*%) of '[^']*'", "argument # of '…'"):gsub("kernel '[^']*'", "kernel '…'")
  key = key:gsub("cl%.(%l+)[^,)]*", function(t) return "cl." .. t end)
  for _, t in ipairs(SCALAR_TYPES) do
    key = key:gsub("%f[%w_]" .. t .. "#?%f[^%w_]", "T")
  end
  key = key:gsub("'%%s%%d%%n'", "'…'"):gsub("'x+'", "'…'")
  return key
end

local function named(msg, o, key)
  if type(msg) ~= "string" then return false end
  if msg:find(o.name, 1, true) then return true end
  if key ~= nil and msg:find(o.name:gsub("^cl%.", "") .. "." .. tostring(key), 1, true) then return true end
  local short = o.method or o.fn
  if short and (msg:find("to '" .. short .. "'", 1, true) or msg:find("calling '" .. short .. "'", 1, true)) then
    return true
  end
  return false
end

local function record(o, ok, err, argdesc, field, nargs)
  stats.calls = stats.calls + 1
  local s = stats.by_op[o.name] or { ok = 0, err = 0 }
  stats.by_op[o.name] = s
  if ok then
    stats.ok = stats.ok + 1
    s.ok = s.ok + 1
    return
  end
  stats.errors = stats.errors + 1
  s.err = s.err + 1
  local text = type(err) == "string" and err or ("(a " .. type(err) .. " error object)")
  local key = fold(text)
  if not messages[key] then
    messages[key] = 0
    nmessages = nmessages + 1
  end
  messages[key] = messages[key] + 1
  -- "bad argument #N" past the arguments given must be about a missing one
  -- (a higher N names a slot of the C function's stack, not an argument)
  local argn = type(err) == "string" and math.tointeger(tonumber(err:match("bad argument #(%d+)")))
  if argn and nargs and argn > nargs and not err:find("got no value", 1, true) then
    key = "argument number past the arguments: " .. key
    field = nil
    err = nil
  end
  if not named(err, o, field) then
    local vkey = o.name .. " | " .. key
    if not violations[vkey] then
      violations[vkey] = ("%s(%s) -> %s"):format(o.name, argdesc(), text)
      violations[#violations + 1] = vkey
    end
  end
end

local function args_text(args)
  return function()
    local parts = {}
    for i = 1, args.n do parts[i] = describe(args[i]) end
    return table.concat(parts, ", ")
  end
end

local function run(o)
  if o.special == "gc" then
    if chance(0.5) then collectgarbage() else collectgarbage("step", R(0, 200)) end
    return
  end
  if o.special == "tostring" then
    local v = some_object()
    if v == nil then return end
    local ok = pcall(tostring, v)
    stats.calls = stats.calls + 1
    if ok then stats.ok = stats.ok + 1 else
      stats.errors = stats.errors + 1
      violations[#violations + 1] = "tostring"
      violations.tostring = "tostring(" .. type(v) .. ") raised"
    end
    return
  end
  if o.blocks then settle_user_events() end
  BAD = chance(0.4) and 0 or pick { 0.05, 0.15, 0.4 }
  local f, args, recv
  if o.fn then
    args = o.args()
    f = caller(("local cl = ...; return cl[%q](select(2, ...))"):format(o.fn))
    if o.fn:match("^[%a_][%w_]*$") and o.fn ~= "local" then
      f = caller(("local cl = ...; return cl.%s(select(2, ...))"):format(o.fn))
    end
    recv = cl
  else
    recv = o.recv and o.recv() or any(o.kind)
    if recv == nil then return end
    QUEUE = recv
    if o.prop then
      args = pack(o.prop())
      f = caller("local o, k = ...; return o[k]")
    elseif o.index then
      args = o.args(recv)
      f = caller("local a, i = ...; return a[i]")
    elseif o.newindex then
      args = o.args(recv)
      f = caller("local a, i, v = ...; a[i] = v")
    elseif o.call then
      args = o.args(recv)
      f = caller("local go = ...; return go(select(2, ...))")
    else
      args = o.args(recv)
      if chance(0.04) then -- the method with a receiver of the wrong type
        local m = methods_of(o.kind)
        if m and m[o.method] then
          recv = junk()
          f = caller(("local M, o = ...; return M.%s(o, select(3, ...))"):format(o.method))
          if VERBOSE then print(("call %d: %s on a wrong receiver"):format(stats.calls + 1, o.name)) io.stdout:flush() end
          local ok, res = pcall(f, m, recv, table.unpack(args, 1, args.n))
          record(o, ok, res, args_text(args), nil, args.n + 1) -- a plain call: self is argument 1
          return
        end
      end
      f = caller(("local o = ...; return o:%s(select(2, ...))"):format(o.method))
    end
  end
  if VERBOSE then
    print(("call %d: %s %s(%s)"):format(stats.calls + 1, o.name, describe(recv), args_text(args)()))
    io.stdout:flush()
  end
  local t0 = cl.now()
  local res = table.pack(pcall(f, recv, table.unpack(args, 1, args.n)))
  local dt = cl.now() - t0
  if dt > stats.slowest then
    stats.slowest = dt
    stats.slowest_call = ("%s %s(%s)"):format(o.name, describe(recv), args_text(args)())
  end
  record(o, res[1], res[2], args_text(args), o.prop and args[1], not (o.prop or o.index or o.newindex) and args.n)
  if VERBOSE then print("  -> " .. (res[1] and describe(res[2]) or "error: " .. tostring(res[2]))) end
  if res[1] then
    local keep = o.keep
    local v = res[2]
    if keep == "uevent" and v ~= nil then
      uevents[#uevents + 1] = v
      add("event", v)
      add("uevent", v)
    elseif keep == "view" then
      if v ~= nil then add("view", v) end
      if res[3] ~= nil then add("event", res[3]) end
    elseif keep == "launcher" and type(v) == "function" then
      add("launcher", v)
    elseif keep and v ~= nil and type(v) == "userdata" then
      local kind = keep
      if keep == "event" and not tostring(v):match("^cl%.event") then kind = nil end
      if keep == "array" and not tostring(v):match("^cl%.array") then kind = nil end
      if kind then add(kind, v) end
    end
  end
end

-- ---------------------------------------------------------------- main loop

local t0 = cl.now()
local deadline = t0 + math.floor(SECONDS * 1e9)
while stats.calls < MAX_CALLS do
  run(choose_op())
  if stats.calls % 32 == 0 and cl.now() > deadline then break end
end
settle_user_events()
for _, q in ipairs(pool.queue) do pcall(function() q:finish() end) end
local elapsed = (cl.now() - t0) / 1e9

-- ---------------------------------------------------------------- report

print(("fuzz: %d calls in %.1f s (%d returned, %d raised), %d distinct error messages, %d violations")
  :format(stats.calls, elapsed, stats.ok, stats.errors, nmessages, #violations))
print(("fuzz: repeat with FUZZ_SEED=%d FUZZ_CALLS=%d"):format(SEED, stats.calls))
print(("fuzz: the slowest call took %.3f s: %s"):format(stats.slowest / 1e9, stats.slowest_call or "none"))
local names = {}
for name in pairs(stats.by_op) do names[#names + 1] = name end
table.sort(names)
local line = {}
for _, name in ipairs(names) do
  local s = stats.by_op[name]
  line[#line + 1] = ("%s %d/%d"):format(name, s.ok, s.ok + s.err)
end
print("fuzz: returned/called by call: " .. table.concat(line, ", "))
local shapes, nshapes = {}, 0
for k, n in pairs(messages) do
  local sh = shape(k)
  if not shapes[sh] then nshapes = nshapes + 1 end
  shapes[sh] = (shapes[sh] or 0) + n
end
local keys = {}
for k in pairs(shapes) do keys[#keys + 1] = k end
table.sort(keys)
print(("fuzz: the %d distinct messages in %d shapes (values, types, error and kernel names folded; times seen):")
  :format(nmessages, nshapes))
for _, k in ipairs(keys) do print(("  [%d] %s"):format(shapes[k], k)) end
local out = os.getenv("FUZZ_MESSAGES")
if out and out ~= "" then -- every distinct message, for a closer look
  local f = assert(io.open(out, "w"))
  local all = {}
  for k in pairs(messages) do all[#all + 1] = k end
  table.sort(all)
  for _, k in ipairs(all) do f:write(("[%d] %s\n"):format(messages[k], k)) end
  f:close()
  print("fuzz: every distinct message written to " .. out)
end
if #violations > 0 then
  print("fuzz: VIOLATIONS (errors that do not name the call):")
  for _, k in ipairs(violations) do print("  " .. violations[k]) end
  os.exit(1)
end
print("fuzz: ok")
