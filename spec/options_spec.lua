-- Options tables are strict: a key the call does not read raises an argument
-- error naming the call, the key and the valid names, before anything runs,
-- so that a typo never changes what is measured (`q:write(b, a, {blockin =
-- false})` was a blocking write with no word). An explicit nil in place of an
-- optional argument before the options keeps them (`ctx:queue(nil, opts)`).
package.path = "lua/?.lua;" .. package.path
local cl = require("cl")

local function err_of(f, ...)
  local ok, e = pcall(f, ...)
  assert.is_false(ok, "no error raised")
  return tostring(e)
end

describe("cl options", function()
  local ctx, q, b, a
  setup(function()
    ctx = cl.context()
    q = ctx:queue()
    b = ctx:buffer(64)
    a = cl.array("int", 16)
  end)

  it("ctx:queue(nil, opts) reads the options, as ctx:queue(opts) does", function()
    local quiet = ctx:queue(nil, { profiling = false })
    assert.falsy(tostring(quiet):find("profiling", 1, true), tostring(quiet))
    local e = quiet:fill(b, 1, { type = "int" })
    quiet:finish()
    assert.matches("CL_PROFILING_INFO_NOT_AVAILABLE", err_of(function() return e.start end))
    assert.truthy(tostring(ctx:queue(nil)):find("profiling", 1, true))
    assert.truthy(tostring(ctx:queue(cl.device(), { profiling = true })):find("profiling", 1, true))
  end)

  it("a typo raises before anything is enqueued, and changes nothing", function()
    q:fill(b, 7, { type = "int" })
    q:finish()
    local before = cl.debug_counts().event.created
    a:fill(1)
    local e = err_of(function() return q:write(b, a, { blockin = false }) end)
    assert.matches("bad argument #3 to 'write' (unknown option 'blockin'; valid: offset, size, blocking, wait)", e, 1,
      true)
    assert.are.equal(before, cl.debug_counts().event.created, "an event was made: the write was enqueued")
    q:read(b, a)
    assert.are.equal(7, a[0])
  end)

  -- each C call that takes options, with its valid names
  local cases = {
    { "queue", function(o) return ctx:queue(o) end, "#1 to 'queue'", "profiling, out_of_order" },
    { "read", function(o) return q:read(b, a, o) end, "#3 to 'read'", "offset, size, blocking, wait" },
    { "copy", function(o) return q:copy(b, ctx:buffer(64), o) end, "#3 to 'copy'", "src_offset, dst_offset, size, wait" },
    { "fill", function(o) return q:fill(b, 0, o) end, "#3 to 'fill'", "type, offset, size, wait" },
    { "map", function(o) return q:map(ctx:buffer(64, "alloc_host_ptr"), o) end, "#2 to 'map'",
      "map, type, offset, size, blocking, wait" },
    { "unmap", function(o)
      local v = q:map(ctx:buffer(64, "alloc_host_ptr"))
      local ok, e = pcall(q.unmap, q, v, o)
      q:unmap(v)
      if not ok then error(e, 0) end
    end, "bad argument #3 to '?'", "wait" },
    { "write_rect", function(o)
      o.region = { 4, 1, 1 }
      return q:write_rect(b, a, o)
    end, "#3 to 'write_rect'", "region, buffer_origin, host_origin, buffer_row_pitch, buffer_slice_pitch, " ..
      "host_row_pitch, host_slice_pitch, blocking, wait" },
    { "copy_rect", function(o)
      o.region = { 4, 1, 1 }
      return q:copy_rect(b, ctx:buffer(64), o)
    end, "#3 to 'copy_rect'", "region, src_origin, dst_origin, src_row_pitch, src_slice_pitch, dst_row_pitch, " ..
      "dst_slice_pitch, wait" },
    { "launch", function(o)
      local k = ctx:program("kernel void f(global int *x) { x[0] = 1; }"):build():kernel("f"):args(b)
      return q:launch(k, 1, nil, o)
    end, "#4 to 'launch'", "offset, wait, event" },
  }
  for _, c in ipairs(cases) do
    local name, call, arg, valid = c[1], c[2], c[3], c[4]
    it(("%s refuses an unknown option, naming it and the valid ones"):format(name), function()
      local e = err_of(call, { tpyo = 1 })
      assert.matches(arg, e, 1, true)
      assert.matches(("unknown option 'tpyo'; valid: %s)"):format(valid), e, 1, true)
      assert.matches("option names are strings, got a number key; valid: " .. valid, err_of(call, { [1] = true }), 1,
        true)
    end)
  end

  it("images and samplers refuse unknown options where the device has images", function()
    if not cl.device().info.image_support then return end
    assert.matches("bad argument #1 to 'image2d' (unknown option 'hieght'; valid: width, height, format, flags, data)",
      err_of(function() return ctx:image2d({ width = 4, hieght = 4 }) end), 1, true)
    assert.matches("bad argument #1 to 'sampler' (unknown option 'filtr'; valid: normalized, address, filter)",
      err_of(function() return ctx:sampler({ filtr = "linear" }) end), 1, true)
    local img = ctx:image2d({ width = 4, height = 4 })
    assert.matches("unknown option 'pitch'; valid: origin, region, row_pitch, blocking, wait",
      err_of(function() return q:write_image(img, cl.array("float", 16), { pitch = 16 }) end), 1, true)
  end)

  it("program:build's defines are macro names, not options: any name goes", function()
    local p = ctx:program("kernel void f(global int *x) { x[0] = ANY_NAME_AT_ALL; }")
    assert.truthy(p:build(nil, { ANY_NAME_AT_ALL = 3 }))
  end)
end)

describe("clua.* options", function()
  local options = require("clua.options")
  local report = require("clua.report")
  local plot = require("clua.plot")
  local timeline = require("clua.timeline")
  local timing = require("clua.timing")
  local verify = require("clua.verify")
  local device = require("clua.device")
  local occupancy = require("clua.occupancy")
  local recipe = require("clua.recipe")

  it("options.check raises at the caller's caller, naming the call, the key and the valid names", function()
    local function f(opts) return options.check(opts, "demo.f", { "a", "b" }) end
    assert.are.same({}, f(nil))
    assert.are.same({ a = 1 }, f({ a = 1 }))
    local e = err_of(f, { c = 1 })
    assert.are.equal("demo.f: unknown option 'c'; valid: a, b", e:gsub("^[^:]*:%d+: ", ""))
    assert.matches("demo.f: options must be a table, got string", err_of(f, "a"), 1, true)
  end)

  local cases = {
    { "report.new", function() return report.new{ title = "t", colour = 1 } end, "colour" },
    { "report.new: column 'x'", function() return report.new{ columns = { { name = "x", fromat = "%d" } } } end,
      "fromat" },
    { "report.csv", function() return report.csv(report.new{ columns = { "a" } }, { comment = false }) end, "comment" },
    { "report.compare", function() return report.compare(report.new{ columns = { "a" } }, {}, { fiel = "x" }) end,
      "fiel" },
    { "plot.new", function() return plot.new{ titel = "x" } end, "titel" },
    { "plot.new: x", function() return plot.new{ x = { log = true } } end, "log" },
    { "Plot:svg", function() return plot.new{}:svg({ widht = 10 }) end, "widht" },
    { "Timeline:trace", function() return timeline.new("t"):trace({ proc = "x" }) end, "proc" },
    { "timing.run", function() return timing.run(function() end, { repetitions = 3, finish = function() end }) end,
      "repetitions" },
    { "verify.arrays", function() return verify.arrays("x", { 1 }, { 1 }, { tolerance = 1 }) end, "tolerance" },
    { "device.facts", function() return device.facts(cl.device(), { nvlm = false }) end, "nvlm" },
    { "occupancy.limits", function() return occupancy.limits(cl.device(), { compute_capability = "9.0" }) end,
      "compute_capability" },
    { "recipe.new", function() return recipe.new{ name = "d", args = {}, quick_rep = 1 } end, "quick_rep" },
    { "R:time", function()
      local R = recipe.new{ name = "d", args = {} }
      return R:time(function() end, { rep = 3, finish = function() end })
    end, "rep" },
    { "R:bw_column", function() return recipe.new{ name = "d", args = {} }:bw_column("x", { theoretic = "pcie" }) end,
      "theoretic" },
  }
  for _, c in ipairs(cases) do
    local where, call, key = c[1], c[2], c[3]
    it(("%s refuses an unknown option"):format(where), function()
      assert.matches(("%s: unknown option '%s'; valid: "):format(where, key), err_of(call), 1, true)
    end)
  end

  it("what the calls read still goes through", function()
    assert.truthy(report.csv(report.new{ title = "t", columns = { { name = "a", format = "%d" } } }, { comments = true }))
    assert.truthy(plot.new{ title = "p", x = { name = "n", log2 = true }, y = { name = "t", from = 0 } }:svg({ width = 300 }))
    local limits = occupancy.limits(cl.device(), { cc = "9.0", threads = 1024 })
    assert.are.equal(1024, limits.threads)
    local R = recipe.new{ name = "d", args = {} }
    assert.truthy(R:time(function() end, { reps = 1, warmup = 0, label = "x", finish = function() end }))
  end)
end)
