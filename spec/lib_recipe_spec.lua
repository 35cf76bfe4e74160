package.path = "lua/?.lua;" .. package.path
local recipe = require("clua.recipe")
local device = require("clua.device")
local json = require("dkjson")

-- A stream that keeps what is written.
local function sink()
  local s = { text = "" }
  function s:write(...) for _, x in ipairs({ ... }) do self.text = self.text .. tostring(x) end return self end
  function s:flush() return self end
  return s
end

local fake_device = { info = { name = "Fake GPU", vendor = "Fake", platform = "Fake CL",
  driver_version = "9.9", version = "OpenCL 3.0", compute_units = 4, max_clock_mhz = 1000,
  global_mem_size = 2 ^ 30, local_mem_size = 65536, max_work_item_sizes = { 256, 256, 64 },
  timer_resolution_ns = 1 } }

-- A recipe with test streams, a fake device and an exit that records its status.
local function make(args, extra)
  local spec = { name = "demo", description = "A demo.", seed = "guide 0.0", args = args,
    size = "64MiB", quick_size = "1MiB" }
  for k, v in pairs(extra or {}) do spec[k] = v end
  local R = recipe.new(spec)
  R.out, R.err = sink(), sink()
  R.exit = function(code) R.exit_code = code end
  R.facts = device.facts(fake_device, { nvml = { memory_clock_mhz = 1000, bus_width = 256,
    pcie_gen = 4, pcie_width = 16 } })
  rawset(R, "device", fake_device)
  return R
end

local function bw_table(R, bw)
  local t = R:table{ title = "Copy", columns = { { name = "size", key = true },
    R:bw_column("copy") } }
  t:add{ size = 1024, copy = bw }
  t:add{ size = 2048, copy = bw * 2 }
  return t
end

local function tmp() return os.tmpname() end
local function slurp(path)
  local f = assert(io.open(path)); local s = f:read("a"); f:close(); return s
end

describe("clua.recipe", function()
  it("parses the shared options with defaults", function()
    local R = make({})
    assert.is_false(R.quick)
    assert.equal(10, R.reps)
    assert.equal(2, R.warmup)
    assert.equal(64 * 2 ^ 20, R.size)
    assert.equal(1e9, R.divisor)
    assert.equal("GB/s", R.bw_unit)
    R = make({ "--quick", "--gib", "--warmup", "0" })
    assert.is_true(R.quick)
    assert.equal(3, R.reps)
    assert.equal(0, R.warmup)
    assert.equal(2 ^ 20, R.size)
    assert.equal("GiB/s", R.bw_unit)
    R = make({ "--quick", "--reps", "7", "--size", "256 MiB", "--md" })
    assert.equal(7, R.reps)
    assert.equal(256 * 2 ^ 20, R.size)
    assert.is_true(R.args.md)
  end)

  it("adds the recipe's own options", function()
    local R = make({ "--queues", "3" }, { options = function(p)
      p:option("--queues", "Queues."):convert(tonumber):default("2")
    end })
    assert.equal(3, R.args.queues)
  end)

  it("declares a whole-number option with p:int: its default, its argname, a refusal naming it", function()
    local spec = { options = function(p)
      p:int("--local", "Work-group size.", "256")
      p:int("--per", "Adds per work-item.", nil, "K")
    end }
    local R = make({ "--per", "4" }, spec)
    assert.equal(256, R.args["local"])
    assert.equal(4, R.args.per)
    local help = require("clua.cli").parser({ name = "demo", description = "A demo.", options = spec.options })
      :get_help()
    assert.matches("%-%-per K ", help)
    assert.matches("%-%-local N ", help)
    local err, code = sink(), nil
    assert.is_false((pcall(recipe.new, { name = "demo", args = { "--per", "0" }, err = err,
      exit = function(c) code = c end, options = spec.options })))
    assert.equal(2, code)
    assert.matches("%-%-per 0", err.text)
  end)

  it("reads description, seed and student written as long strings as prose: white space folded", function()
    local R = make({}, { description = [[
      Copies a buffer,
        twice.  ]], seed = "guide\n  1.2", student = [[a kernel
      with the arguments of copy.]] })
    assert.are.equal("Copies a buffer, twice.", R.spec.description)
    assert.are.equal("guide 1.2", R.spec.seed)
    assert.are.equal("a kernel with the arguments of copy.", R.spec.student)
  end)

  it("refuses a bad option with status 2", function()
    local err, code = sink(), nil
    local ok, msg = pcall(recipe.new, { name = "demo", args = { "--size", "lots" }, err = err,
      exit = function(c) code = c end })
    assert.is_false(ok)
    assert.equal(2, code)
    assert.matches("recipe demo: .*bad size 'lots'", err.text)
    assert.matches("bad size", msg)
  end)

  it("catches an error, prints recipe NAME: message, exits 1, prints no figure", function()
    local R = make({})
    R:main(function()
      local got = { 1, 2, 3 }
      R:verify("C", got, { 1, 2, 4 })
      R:emit(bw_table(R, 10))
    end)
    assert.equal(1, R.exit_code)
    assert.equal("", R.out.text)
    assert.matches("^recipe demo: verify C: 1 of 3 elements differ", R.err.text)
  end)

  it("corrupts one element on request, and verification catches it", function()
    assert.is_true(recipe.corrupt_requested("demo", "1"))
    assert.is_true(recipe.corrupt_requested("demo", "overlap,demo"))
    assert.is_false(recipe.corrupt_requested("demo", "overlap"))
    assert.is_false(recipe.corrupt_requested("demo", "0"))
    local R = make({})
    local xs = { 0, 1.5, 2.5, 3 }
    assert.is_false(R:inject(xs))
    R.corrupt = true
    assert.is_true(R:inject(xs))
    assert.same({ 0, 1.5, 5.0, 3 }, xs)
    R:main(function() R:verify("x", xs, { 0, 1.5, 2.5, 3 }) end)
    assert.equal(1, R.exit_code)
    assert.matches("worst at index 2", R.err.text)
  end)

  it("hands the body the device and its info", function()
    local R = make({})
    local got_dev, got_info
    assert.is_true(R:main(function(_, dev, info) got_dev, got_info = dev, info end))
    assert.equal(fake_device, got_dev)
    assert.equal(fake_device.info, got_info)
  end)

  it("prints a table with metadata and a % of theoretical column", function()
    local R = make({})
    assert.is_true(R:main(function() R:emit(bw_table(R, 16)) end))
    assert.is_nil(R.exit_code)
    local out = R.out.text
    assert.matches("Copy", out)
    assert.matches("device Fake GPU", out)
    assert.matches("driver 9.9", out)
    assert.matches("reps 10", out)
    assert.matches("copy %%", out)
    -- theoretical: 2 x 1000 MHz x 256 bit / 8 = 64 GB/s; 16 GB/s is 25 %
    assert.matches("25.0", out)
  end)

  it("marks a cache figure's value with c in a cache column and a bandwidth column", function()
    local R = make({})
    local t = R:table{ title = "Chase", columns = { { name = "ws", key = true },
      R:cache_column{ name = "latency", unit = "ns", format = "%.2f", compare = true }, R:bw_column("bw") } }
    assert.is_true(t:column("latency").compare)
    local cached = { median = 1, cache = true, footprint = 4096, cache_note = "c: a cache figure", notes = {} }
    R:add_row(t, cached, { ws = 4096, latency = 1.5, bw = 10 })
    R:add_row(t, { median = 1, notes = {} }, { ws = 2 ^ 30, latency = 300, bw = 1 })
    local text = require("clua.report").text(t)
    assert.truthy(text:find("1.50 c", 1, true), text)
    assert.truthy(text:find("10.0 c", 1, true), text)
    assert.truthy(text:find("300.00", 1, true), text)
    assert.falsy(text:find("300.00 c", 1, true), text)
    assert.falsy(text:find("1.0 c", 1, true), text)
    local ok, err = pcall(R.cache_column, R, { name = "latency", format = function(v) return tostring(v) end })
    assert.is_false(ok)
    assert.truthy(err:find("R:cache_column: a column spec with a printf format expected", 1, true), err)
  end)

  it("writes CSV and JSON, and compares a later run with the saved JSON", function()
    local j, c = tmp(), tmp()
    local R = make({ "--json", j, "--csv", c })
    R:main(function() R:emit(bw_table(R, 10)) end)
    local d = json.decode(slurp(j))
    assert.equal("demo", d.recipe)
    assert.equal(1, #d.tables)
    assert.equal(10, d.tables[1].rows[1].copy)
    assert.equal("Fake GPU", d.tables[1].meta.device)
    assert.matches("^size,copy %(GB/s%),copy %% %(of mem peak%)\r\n", slurp(c))
    local meta = json.decode(slurp(recipe.meta_path(c)))
    assert.equal("demo", meta.recipe)
    assert.equal("Fake GPU", meta.meta.device)
    assert.is_nil(meta.rows)
    os.remove(recipe.meta_path(c))

    local R2 = make({ "--compare", j })
    R2:main(function() R2:emit(bw_table(R2, 15)) end)
    assert.is_nil(R2.exit_code)
    assert.matches("vs saved", R2.out.text)
    local ratios = 0
    for v in R2.out.text:gmatch("1%.500") do ratios = ratios + 1; assert.truthy(v) end
    assert.equal(2, ratios)
    os.remove(j); os.remove(c)
  end)

  it("gives a table with time, min and max a spread column, and flags its noisy rows", function()
    local R = make({})
    local t
    R:main(function()
      t = R:table{ id = "t", columns = { { name = "k", key = true }, { name = "time", ns = true },
        { name = "min", ns = true }, { name = "max", ns = true } } }
      t:add{ k = "steady", time = 100, min = 99, max = 102 }
      t:add{ k = "noisy", time = 100, min = 80, max = 150 }
      R:emit(t)
    end)
    local c = t:column("spread")
    assert.truthy(c)
    assert.near(3, c.value(t.rows[1]), 1e-9)
    assert.near(70, c.value(t.rows[2]), 1e-9)
    assert.matches("70.0 !", R.out.text, 1, true)
    assert.matches("! 1 of 2 rows", R.out.text, 1, true)
  end)

  it("names one output file per table when there are several", function()
    assert.equal("out.csv", recipe.output_path("out.csv", "copy", 1))
    assert.equal("out.copy.csv", recipe.output_path("out.csv", "copy", 2))
    assert.equal("dir.x/out.2", recipe.output_path("dir.x/out", "2", 2))
    assert.equal("out.copy.meta.json", recipe.meta_path("out.copy.csv"))
    assert.equal("dir.x/out.meta.json", recipe.meta_path("dir.x/out"))
  end)

  it("merges the tables of several devices with a device column", function()
    local R = make({})
    local a = bw_table(R, 10); a.device_name = "A"
    local b = bw_table(R, 20); b.device_name = "B"
    local m = recipe.merge_by_device({ a, b })
    assert.equal(1, #m)
    assert.equal(4, #m[1].rows)
    assert.equal("device", m[1].columns[1].name)
    assert.equal("B", m[1].rows[3].device)
    assert.equal(20, m[1].rows[3].copy)
    assert.near(31.25, m[1].rows[3]["copy %"], 1e-9)
  end)

  it("labels the rows of two devices of one name with their P:D index", function()
    local R = make({})
    local a = bw_table(R, 10); a.device_name, a.device_index = "NVIDIA H200", "1:0"
    local b = bw_table(R, 20); b.device_name, b.device_index = "NVIDIA H200", "1:1"
    local c = bw_table(R, 30); c.device_name, c.device_index = "pthread-cpu", "0:0"
    local m = recipe.merge_by_device({ a, b, c })[1]
    assert.same({ "NVIDIA H200 [1:0]", "NVIDIA H200 [1:0]", "NVIDIA H200 [1:1]", "NVIDIA H200 [1:1]", "pthread-cpu",
      "pthread-cpu" }, { m.rows[1].device, m.rows[2].device, m.rows[3].device, m.rows[4].device, m.rows[5].device,
      m.rows[6].device })
    assert.equal("NVIDIA H200 [1:0] | NVIDIA H200 [1:1] | pthread-cpu", m.meta.device)
  end)

  it("times with the recipe's repetitions", function()
    local R = make({ "--reps", "4", "--warmup", "1" })
    local now = 0
    local r = R:time(function() now = now + 10; return { start = now, ["end"] = now + 5 } end,
      { target_ms = 100, clock = function() return now end })
    assert.equal(4, r.reps)
    assert.equal(1, r.warmup)
    assert.equal(5, r.median)
  end)
end)

local has_cl, cl = pcall(require, "cl")
if has_cl then
  -- A small recipe: copy a buffer on the device, verify it, time it, report it.
  local demo = [[
local cl = require("cl")
local recipe = require("clua.recipe")
local R = recipe.new{ name = "copydemo", description = "Copies a buffer.", size = "1MiB" }
R:main(function(R)
  local n = R.size // 4
  local a, back = cl.array("uint", n), cl.array("uint", n)
  a:random(7, 0, 1000)
  local src, dst = R.ctx:buffer(a), R.ctx:buffer(R.size)
  R.queue:copy(src, dst)
  R.queue:read(dst, back)
  R:inject(back)
  R:verify("copy", back, a)
  local r = R:time(function() return R.queue:copy(src, dst) end)
  local t = R:table{ title = "Copy", columns = { { name = "size", key = true }, R:bw_column("copy") } }
  t:add{ size = R.size, copy = R:bw(2 * R.size, r.median) }
  R:emit(t)
end)
]]

  describe("R:try_launch", function()
    local R, q, ctx, buf, prog
    setup(function()
      R = make({})
      local dev = cl.device()
      ctx = cl.context(dev)
      q = ctx:queue(dev)
      buf = ctx:buffer(64 * 4)
      prog = ctx:program([[
kernel void plain(global int *o) { o[get_global_id(0)] = 1; }
__attribute__((reqd_work_group_size(4, 1, 1))) kernel void four(global int *o) { o[get_global_id(0)] = 4; }
]]):build()
    end)

    it("runs an accepted configuration once and says true", function()
      local k = prog:kernel("four"):args(buf)
      assert.is_true(R:try_launch(k, 8, 4, { queue = q }))
      local back = cl.array("int", 8)
      q:read(buf, back, { size = 32 })
      assert.are.same({ 4, 4, 4, 4, 4, 4, 4, 4 }, back:totable())
    end)

    it("gives the driver's refusal of a local size as a value", function()
      local ok, why = R:try_launch(prog:kernel("four"):args(buf), 8, 8, { queue = q })
      assert.is_false(ok)
      assert.matches("^CL_INVALID_WORK_GROUP_SIZE %(", why)
      local max = cl.device().info.max_work_group_size
      ok, why = R:try_launch(prog:kernel("plain"):args(buf), 2 * max, 2 * max, { queue = q })
      assert.is_false(ok)
      assert.matches("exceeds the device's maximum", why)
    end)

    it("raises any other error", function()
      assert.has_error(function() R:try_launch(prog:kernel("plain"), 8, 4, { queue = q }) end)
    end)
  end)

  describe("clua.recipe on the default device", function()
    local script
    setup(function()
      script = os.tmpname() .. ".lua"
      local f = assert(io.open(script, "w")); f:write(demo); f:close()
    end)
    teardown(function() os.remove(script) end)

    local function run(env, args)
      local out, err = os.tmpname(), os.tmpname()
      local clua = arg and arg[-1] or "build/clua" -- the interpreter running the specs
      local ok, how, code = os.execute(("%s %s %s %s >%s 2>%s"):format(env, clua, script, args, out, err))
      local o, e = slurp(out), slurp(err)
      os.remove(out); os.remove(err)
      return ok and 0 or (how == "exit" and code or -1), o, e
    end

    it("runs, verifies and prints a table with the device's facts", function()
      local code, out, err = run("CLUA_CORRUPT=0", "--quick --reps 3")
      assert.equal(0, code, err)
      assert.matches("Copy", out)
      assert.matches("device " .. cl.device().info.name:gsub("%p", "%%%0"), out)
      assert.matches("reps 3", out)
    end)

    it("exits non-zero and prints no figure when CLUA_CORRUPT corrupts the output", function()
      local code, out, err = run("CLUA_CORRUPT=1", "--quick")
      assert.equal(1, code)
      assert.equal("", out)
      assert.matches("^recipe copydemo: verify copy: 1 of 262144 elements differ", err)
    end)

    it("runs once per device with --device all, one table with a device column", function()
      local j = os.tmpname()
      local code, out, err = run("", "--quick --device all --json " .. j)
      assert.equal(0, code, err)
      local d = json.decode(slurp(j))
      os.remove(j)
      assert.equal(#cl.devices(), #d.tables[1].rows)
      assert.equal("device", d.tables[1].columns[1].name)
      assert.matches("device", out)
    end)
  end)
end
