-- clua.sweeptable: a copy kernel's sweep table (bandwidth, min and max from
-- the slowest and fastest run) and, in assignment mode, the student's columns
-- and the summary of both kernels over the sweep, ranked.
package.path = "lua/?.lua;" .. package.path
local recipe = require("clua.recipe")
local sweeptable = require("clua.sweeptable")

local function sink()
  local s = { text = "" }
  function s:write(...) for _, x in ipairs({ ... }) do self.text = self.text .. tostring(x) end return self end
  function s:flush() return self end
  return s
end

-- A measurement's result as far as the tables read it.
local function res(median, min, max, bytes)
  return { median = median, min = min, max = max, spread = 100 * (max - min) / median, bw = bytes / median }
end

local function run(student)
  local R = recipe.new{ name = "sweep", args = { "--csv", "/dev/null" } }
  R.out, R.err = sink(), sink()
  R.student_label = student
  local points = {}
  for i, s in ipairs({ 1, 2, 4 }) do
    local bytes = 800 // s
    points[i] = { stride = s, n = 100 // s, t = res(100, 90, 200, bytes), st = student and res(50 * i, 40 * i, 60 * i,
      bytes) }
  end
  local t = R:table{ title = "sweep", id = "sweep", columns = { { name = "stride", key = true }, sweeptable.columns(R) } }
  if student then sweeptable.student_columns(R, t) end
  for _, p in ipairs(points) do R:add_row(t, p.t, sweeptable.fields(R, p, 8 * p.n, { stride = p.stride })) end
  sweeptable.emit(R, t, { param = "stride", unit = "floats", first = "stride 1", kernel = "copy",
    reference = "copy (ref)", points = points, bytes = function(p) return 8 * p.n end, mean = true,
    title = "both", id = "sweep-student", note = "time: the mean" })
  return R, t
end

describe("clua.sweeptable", function()
  it("gives each point its bandwidth, the slowest and fastest run's, its time in µs", function()
    local R, t = run(nil)
    assert.are.equal(1, #R.emitted)
    local row = t.rows[1]
    assert.near(8.0, row.bandwidth, 1e-9)
    assert.near(4.0, row.min, 1e-9) -- 800 bytes in the slowest run's 200 ns
    assert.near(800 / 90, row.max, 1e-9)
    assert.near(0.1, row.time, 1e-9)
    assert.is_nil(row.student)
  end)

  it("adds the student's columns and a summary of both over the sweep, ranked", function()
    local R, t = run("student: k (k.cl)")
    assert.are.equal(2, #R.emitted)
    assert.truthy(t:column("student speed-up"))
    assert.near(2.0, t.rows[1]["student speed-up"], 1e-9)
    local s = R.emitted[2]
    assert.are.equal("sweep-student", s.id)
    local ref, stu = s.rows[1], s.rows[2]
    assert.are.equal("copy (ref)", ref.variant)
    assert.near(0.1, ref.time, 1e-9)
    assert.near(0.1, stu.time, 1e-9) -- the mean of 50, 100, 150 ns
    assert.near(800 / 50, stu["stride 1"], 1e-9)
    assert.are.equal(4, stu["worst stride"])
    assert.near(200 / 150, stu.worst, 1e-9)
    assert.truthy(s.rows[1].rank and s.rows[2].rank)
    local notes = table.concat(t.notes, "\n")
    assert.truthy(notes:find("student speed-up: copy's time / its time", 1, true), notes)
  end)
  it("summarises by time: the total, the first point's, the slowest point and its time; nothing without a student",
    function()
    local R = recipe.new{ name = "sweep", args = { "--csv", "/dev/null" } }
    R.out, R.err = sink(), sink()
    local points = { { name = "a", t = res(100, 90, 110, 1), st = res(50, 40, 60, 1) },
      { name = "b", t = res(300, 290, 310, 1), st = res(70, 60, 80, 1) },
      { name = "c", t = res(200, 190, 210, 1), st = res(70, 65, 75, 1) } }
    local spec = { times = true, param = "name", label = "pattern", first = "a", worst = "slowest",
      reference = "ref", points = points, title = "both", id = "by-time", note = "time: the sum" }
    assert.is_nil(sweeptable.summary(R, spec))
    R.student_label = "student: k (k.cl)"
    local s = sweeptable.summary(R, spec)
    assert.are.same({ "variant", "time", "a", "slowest", "slowest pattern", "rank" }, (function()
      local names = {}
      for i, c in ipairs(s.columns) do names[i] = c.name end
      return names
    end)())
    local ref, stu = s.rows[1], s.rows[2]
    assert.are.same({ 600, 100, 300, "b", 2 }, { ref.time, ref.a, ref.slowest, ref["slowest pattern"], ref.rank })
    -- a tie: the first slowest point
    assert.are.same({ 190, 50, 70, "b", 1 }, { stu.time, stu.a, stu.slowest, stu["slowest pattern"], stu.rank })
    assert.truthy(table.concat(s.notes, "\n"):find("student: k (k.cl) ranks 1 of 2 by time", 1, true))
    assert.are.equal(s, R.emitted[1])
  end)

  it("R:rank looks for the student's row by the label given, where its rows name more than the kernel", function()
    local R = recipe.new{ name = "sweep", args = { "--csv", "/dev/null" } }
    R.student_label = "student: k (k.cl)"
    local t = R:table{ title = "t", columns = { { name = "variant", key = true }, "time" } }
    t:add{ variant = "scope 1, plain", time = 2 }
    t:add{ variant = "scope 1, student: k (k.cl)", time = 1 }
    R:rank(t, "time", nil, { student = "scope 1, student: k (k.cl)" })
    assert.are.same({ "scope 1, student: k (k.cl) ranks 1 of 2 by time" }, t.notes)
    assert.are.equal("student: k (k.cl)", R.student_label)
  end)

  it("declares --local and reads it: capped by the device, nil for 0", function()
    local function R_with(args)
      local R = recipe.new{ name = "sweep", args = args, options = sweeptable.local_option }
      rawset(R, "device", { info = { max_work_group_size = 128 } })
      return R
    end
    assert.are.equal(128, sweeptable.local_size(R_with({})))
    assert.are.equal(64, sweeptable.local_size(R_with({ "--local", "64" })))
    assert.is_nil(sweeptable.local_size(R_with({ "--local", "0" })))
  end)

  it("adds the student's columns to the table only in assignment mode", function()
    local R = recipe.new{ name = "sweep", args = { "--csv", "/dev/null" } }
    local t = sweeptable.table(R, { title = "sweep", id = "sweep", columns = { { name = "stride", key = true } } })
    assert.is_nil(t:column("student"))
    R.args.kernel = "k.cl"
    t = sweeptable.table(R, { title = "sweep", id = "sweep", columns = { { name = "stride", key = true } } })
    assert.truthy(t:column("student") and t:column("student speed-up"))
  end)

  it("measures a point once per variant: the recipe's kernel as t, the student's as st", function()
    local seen = {}
    local p = sweeptable.point({ stride = 2 }, { { name = "ref" }, { student = true, name = "stu" } }, function(v)
      seen[#seen + 1] = v.name
      return { median = #seen }
    end)
    assert.are.same({ "ref", "stu" }, seen)
    assert.are.equal(2, p.stride)
    assert.are.equal(1, p.t.median)
    assert.are.equal(2, p.st.median)
  end)
end)
