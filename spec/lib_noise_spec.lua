-- clua.noise: the spread of a timing and the flag on noisy rows.
local noise = require("clua.noise")
local report = require("clua.report")

describe("clua.noise", function()
  it("measures the spread as (max - min) / median in %", function()
    assert.near(50, noise.spread({ min = 90, median = 100, max = 140 }), 1e-9)
    assert.near(100, noise.spread({ 1, 2, 3 }), 1e-9)
    assert.near(200 / 5.5, noise.spread({ 4, 5, 6, 6 }), 1e-9) -- median 5.5
    assert.is_nil(noise.spread({}))
    assert.is_nil(noise.spread(nil))
  end)

  it("flags the cells and notes the rows above the threshold", function()
    local t = report.new{ columns = { "name", noise.column() } }
    t:add{ name = "steady", spread = 2.5 }
    assert.is_nil(noise.note(t))
    t:add{ name = "noisy", spread = 23.4 }
    local text = report.text(t)
    assert.matches("23.4 !", text, 1, true)
    assert.matches(" 2.5\n", text, 1, true)
    assert.matches("^! 1 of 2 rows: their repetitions spread more than 10%%", noise.note(t))
  end)

  it("counts a row once over several spread columns, flagged when any of them is noisy", function()
    local t = report.new{ columns = { "name", noise.column(), noise.column("C spread") } }
    t:add{ name = "both steady", spread = 2, ["C spread"] = 3 }
    t:add{ name = "clua only", spread = 4 }
    assert.is_nil(noise.note(t))
    t:add{ name = "C noisy", spread = 4, ["C spread"] = 40 }
    t:add{ name = "both noisy", spread = 30, ["C spread"] = 40 }
    t:add{ name = "no figure" }
    assert.matches("40.0 !", report.text(t), 1, true)
    assert.matches("^! 2 of 4 rows: ", noise.note(t))
  end)

  it("tells a change from noise in --compare: beyond or within both runs' spreads", function()
    -- a second spread column further right (another side's, as the C program's in recipes/launch.lua) is not
    -- the compared figure's
    local t = report.new{ id = "x", columns = { { name = "k", key = true }, { name = "time", compare = true },
      noise.column(), noise.column("C spread") } }
    t:add{ k = "a", time = 110, spread = 4, ["C spread"] = 50 }
    t:add{ k = "b", time = 103, spread = 4, ["C spread"] = 50 }
    t:add{ k = "c", time = 100, spread = 4 }
    local saved = { tables = { { id = "x",
      columns = { { name = "k" }, { name = "time" }, { name = "spread" }, { name = "C spread" } },
      rows = { { k = "a", time = 100, spread = 4, ["C spread"] = 50 }, { k = "b", time = 100, spread = 4 } } } } }
    local c = report.compare(t, saved, { file = "old.json" })
    local col
    for _, x in ipairs(c:resolved_columns()) do if x.name == "vs noise" then col = x end end
    assert.truthy(col)
    assert.equal("beyond", col.value(c.rows[1]))  -- 10% against spreads of 4%
    assert.equal("within", col.value(c.rows[2]))  -- 3%
    assert.is_nil(col.value(c.rows[3]))          -- no saved row
    assert.matches("vs noise: beyond when the change is larger than half the sum of the two runs' spread (",
      table.concat(c.notes, "\n"), 1, true)
  end)

  it("does not weigh a figure against another side's spread when the saved run lacks the figure's own", function()
    local t = report.new{ id = "x", columns = { { name = "k", key = true }, { name = "time", compare = true },
      noise.column(), noise.column("C spread") } }
    t:add{ k = "a", time = 110, spread = 4, ["C spread"] = 50 }
    local saved = { tables = { { id = "x", columns = { { name = "k" }, { name = "time" }, { name = "C spread" } },
      rows = { { k = "a", time = 100, ["C spread"] = 50 } } } } }
    local c = report.compare(t, saved, { file = "old.json" })
    for _, x in ipairs(c:resolved_columns()) do assert.are_not.equal("vs noise", x.name) end
    assert.falsy(table.concat(c.notes, "\n"):find("vs noise", 1, true))
  end)

  it("reads the load average from /proc/loadavg, and nil where there is none", function()
    local path = os.tmpname()
    local f = assert(io.open(path, "w"))
    f:write("0.52 1.07 12.30 2/731 12345\n")
    f:close()
    assert.are.equal("0.52 1.07 12.30", noise.loadavg(path))
    f = assert(io.open(path, "w"))
    f:write("no numbers here\n")
    f:close()
    assert.is_nil(noise.loadavg(path))
    os.remove(path)
    assert.is_nil(noise.loadavg(path))
    local proc_file = io.open("/proc/loadavg")
    if proc_file then
      proc_file:close()
      local here = noise.loadavg()
      assert.truthy(here and here:match("^[%d.]+ [%d.]+ [%d.]+$"), here)
    end
  end)
end)
