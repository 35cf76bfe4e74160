-- Every recipe (and the card) checks its options before anything runs: each
-- bad value below ends it with exit status 2, a message naming the option and
-- its value, nothing on stdout and no file written. The checks that need no
-- device run with CLUA_DEVICE naming no device, so that a recipe that touched
-- the device before refusing would fail there instead; the device's limit on
-- --size reads the device's facts alone.
local shell = require("spec.support.shell")

local CLUA = os.getenv("CLUA") or "build/clua"
local REPO = io.popen("pwd"):read("l")
if not CLUA:match("^/") then CLUA = REPO .. "/" .. CLUA end

local recipes = {}
for f in io.popen("ls " .. REPO .. "/recipes"):lines() do
  local n = f:match("^([%w_%-]+)%.lua$")
  if n and n ~= "report" and n ~= "grade" and n ~= "check" then recipes[#recipes + 1] = n end -- the tools apart
end

local NODEV = "CLUA_DEVICE=no-such-device-anywhere"
-- { options, what stderr must say, environment }
local BAD = {
  { "--reps 0", "--reps 0: must be a whole number >= 1", NODEV },
  { "--reps -1", "--reps -1: must be positive", NODEV },
  { "--warmup -1", "--warmup -1: must be positive", NODEV },
  { "--size -5", "--size -5: must be positive", NODEV },
  { "--size 0", "--size 0: must be positive", NODEV },
  { "--size 1e30", "--size 1e30: too large", NODEV },
  { "--size lots", "--size lots: bad size 'lots'", NODEV },
  { "--timeout -3", "--timeout -3: must be positive", NODEV },
  { "--json /nonexistent/x.json", "--json /nonexistent/x.json: cannot write it: No such file or directory", NODEV },
  { "--csv /nonexistent/x.csv", "--csv /nonexistent/x.csv: cannot write it", NODEV },
  { "--svg /nonexistent/x.svg", "--svg /nonexistent/x.svg: cannot write it", NODEV },
  { "--trace /nonexistent/x.json", "--trace /nonexistent/x.json: cannot write it", NODEV },
  { "--html /nonexistent/x.html", "--html /nonexistent/x.html: cannot write it", NODEV },
  { "--compare /nonexistent/old.json", "--compare /nonexistent/old.json: cannot read it", NODEV },
  { "--size 1e12", "--size 1e12 (", "" }, -- then: more than the device can hold
}
local CARD = {
  { "--reps 0", "report: --reps 0: must be a whole number >= 1", NODEV },
  { "--reps -2", "report: --reps -2: must be positive", NODEV },
  { "--timeout -3", "report: --timeout -3: must be positive", NODEV },
  -- the card makes the folders of --out and --html: a file in their way is what cannot be
  { "--out /dev/null/card/r.md", "report: --out /dev/null/card/r.md: cannot write it: /dev/null is not a folder", NODEV },
  { "--html /dev/null/r.html", "report: --html /dev/null/r.html: cannot write it", NODEV },
  { "--compare /nonexistent/old.json", "report: --compare /nonexistent/old.json: cannot read it", NODEV },
}

-- Runs every case of one recipe at once (two at a time), each in the same
-- empty folder; returns {code=, out=, err=} per case, and the folder's files.
local function run_all(name, cases)
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p " .. dir .. "/cwd"))
  local lines = {}
  for i, c in ipairs(cases) do
    -- a file the run would write, were it to run: none may appear
    local witness = name == "report" and "" or (" --csv " .. dir .. "/cwd/witness" .. i .. ".csv")
    lines[#lines + 1] = ("(cd %s/cwd && env %s %s %s/recipes/%s.lua --quick %s%s >%s/%d.out 2>%s/%d.err; echo $? >%s/%d.rc) &")
      :format(dir, c[3], shell.quote(CLUA), REPO, name, c[1], witness, dir, i, dir, i, dir, i)
    if i % 2 == 0 then lines[#lines + 1] = "wait" end
  end
  lines[#lines + 1] = "wait"
  assert(os.execute(table.concat(lines, "\n")))
  local res = {}
  for i in ipairs(cases) do
    res[i] = { code = tonumber(shell.slurp(("%s/%d.rc"):format(dir, i))), out = shell.slurp(("%s/%d.out"):format(dir, i)),
      err = shell.slurp(("%s/%d.err"):format(dir, i)) }
  end
  local left = io.popen("ls -A " .. dir .. "/cwd"):read("a")
  os.execute("rm -rf " .. dir)
  return res, left
end

local function check(name, cases)
  it(("%s refuses each bad value before it runs: exit 2, the option named, nothing written"):format(name), function()
    local res, left = run_all(name, cases)
    for i, c in ipairs(cases) do
      local r = res[i]
      local what = name .. " " .. c[1] .. ": " .. r.err
      assert.are.equal(2, r.code, what)
      assert.truthy(r.err:find(c[2], 1, true), what)
      assert.are.equal("", r.out, what)
      assert.is_nil(r.err:find("traceback", 1, true), what)
    end
    assert.are.equal("", left, name .. " wrote into its folder")
  end)
end

describe("options checked before anything runs", function()
  it("finds the recipes", function() assert.is_true(#recipes >= 25, #recipes .. " recipes") end)

  for _, name in ipairs(recipes) do check(name, BAD) end
  check("report", CARD)

  it("says why a size is more than the device can hold", function()
    local out, code = shell.run(("%s recipes/stride.lua --quick --size 1e12"):format(shell.quote(CLUA)))
    assert.are.equal(2, code, out)
    assert.matches("recipe stride: %-%-size 1e12 %(931%.32 GiB%): more than the device can hold: at most [%d.]+ %a+ on .+ "
      .. "%(its largest buffer, CL_DEVICE_MAX_MEM_ALLOC_SIZE, is [%d.]+ %a+; a quarter of its global memory, ", out)
    -- a recipe whose --size counts elements says so
    out, code = shell.run(("%s recipes/particles.lua --quick --size 1G"):format(shell.quote(CLUA)))
    assert.are.equal(2, code, out)
    assert.matches("--size 1G (1073741824, 48 bytes each): more than the device can hold", out, 1, true)
  end)

  it("reads every documented number form", function()
    for _, opts in ipairs({ "--size 256MiB --reps 1e1 --warmup 0", "--size 64K --reps 3", "--size 1e6 --timeout 2.5" }) do
      local out, code = shell.run(("%s recipes/stride.lua %s --help"):format(shell.quote(CLUA), opts))
      assert.are.equal(0, code, opts .. ": " .. out)
      assert.matches("^Usage: stride", out)
    end
  end)
end)
