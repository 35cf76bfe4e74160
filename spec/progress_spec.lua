-- The progress line: on a terminal (a pty here, through util-linux's
-- script), a run longer than a second shows on stderr what it is measuring,
-- which repetition, how many measurements so far and the time, rewritten in
-- place with \r and cleared before the output and at the end; with stderr
-- no terminal, nothing of it. The card says which recipe of how many it runs.
local shell = require("spec.support.shell")

local CLUA = os.getenv("CLUA") or "build/clua"
local REPO = io.popen("pwd"):read("l")
if not CLUA:match("^/") then CLUA = REPO .. "/" .. CLUA end

-- A recipe of 20 repetitions of 100 ms each (a wait, timed by the host
-- clock), then its table (R:emit).
local SLOW = [[
local recipe = require("clua.recipe")
local R = recipe.new{ name = "slow", description = "Waits." }
R:main(function(R)
  local function wait() local t = cl.now() + 1e8; while cl.now() < t do end end
  local tm = R:time(wait, { label = "wait 100 ms", reps = 20, warmup = 0, finish = function() end })
  local t = R:table{ title = "done", columns = { { name = "step", key = true }, { name = "ms", format = "%.0f" } } }
  t:add{ step = "wait", ms = tm.median / 1e6 }
  R:emit(t)
end)
]]

local has_script = os.execute("command -v script >/dev/null 2>&1")

describe("the progress line", function()
  local dir, recipe_path
  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. dir))
    recipe_path = dir .. "/slow.lua"
    local f = assert(io.open(recipe_path, "w"))
    f:write(SLOW)
    f:close()
  end)
  teardown(function() os.execute("rm -rf " .. dir) end)

  it("shows on a terminal what is measured and how far, and is cleared before the output", function()
    if not has_script then return pending("script (util-linux) is not installed") end
    local cmd = ("cd %s && env -u CLUA_PROGRESS COLUMNS=100 %s slow.lua"):format(dir, shell.quote(CLUA))
    local out, code = shell.run("script -qec " .. shell.quote(cmd) .. " /dev/null")
    assert.are.equal(0, code, out)
    assert.matches("\r\27%[Kslow %[%d+ s, measurement 1%]: wait 100 ms: repetition %d+ of 20", out)
    -- the last progress line is cleared before "done" is printed
    local last = 0
    for pos in out:gmatch("()\r\27%[Kslow %[") do last = pos end
    assert.is_true(last > 0)
    local after = out:sub(last + 4)
    local clear, done = after:find("\r\27[K", 1, true), after:find("done", 1, true)
    assert.truthy(clear and done and clear < done, out)
    for line in out:gmatch("[^\r\n]+") do assert.is_true(utf8.len(line) <= 100, line) end
  end)

  it("is not shown when stderr is no terminal", function()
    local errf = dir .. "/err"
    local out, code = shell.run(("cd %s && env -u CLUA_PROGRESS %s slow.lua 2>%s"):format(dir, shell.quote(CLUA), errf))
    assert.are.equal(0, code, out)
    assert.matches("^done\n", out)
    assert.are.equal("", shell.slurp(errf))
  end)

  it("the card says which recipe of how many it runs, with the time so far", function()
    local out, code = shell.run(("cd %s && %s %s/recipes/report.lua --quick --recipes minimal,minimal --out %s/card.md")
      :format(dir, shell.quote(CLUA), REPO, dir))
    assert.are.equal(0, code, out)
    assert.matches("report: recipe 1 of 2: minimal %(%d+ s so far%)\n", out)
    assert.matches("report: recipe 2 of 2: minimal %(%d+ s so far%)\n", out)
  end)
end)
