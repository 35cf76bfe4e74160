-- recipes/minimal.lua (one kernel, one table) and the templates copied into a
-- folder of one's own: a copy is named after its file, finds its kernel
-- beside it, and says every place it looked when the kernel is not there;
-- the full template's triad assignment text and --kernel show in a copy's
-- --help only when the copy keeps them.
local json = require("dkjson")
local shell = require("spec.support.shell")
local support = require("spec.support.recipe")

local CLUA = os.getenv("CLUA") or "build/clua"
local REPO = io.popen("pwd"):read("l")
if not CLUA:match("^/") then CLUA = REPO .. "/" .. CLUA end

local run = support.runner("minimal", { env_first = true })

describe("recipe minimal", function()
  local dir
  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. dir .. "/mywork"))
  end)
  teardown(function() os.execute("rm -rf " .. dir) end)

  it("runs --quick: one kernel verified, one table", function()
    local path = dir .. "/m.json"
    local out, code, err = run(nil, "--json " .. path)
    assert.are.equal(0, code, err)
    assert.truthy(out:find("c = 2 a on 262144 floats", 1, true), out)
    local doc = json.decode(shell.read(path))
    local t = doc.tables[1] -- then the roofline's points, which every recipe's --json carries
    assert.are.equal("scale", t.id)
    assert.are.equal(1, #t.rows)
    assert.is_true(t.rows[1].time > 0 and t.rows[1].bandwidth > 0)
  end)

  it("exits non-zero with no figure when a result is corrupted", function()
    local out, code, err = run("CLUA_CORRUPT=minimal")
    assert.are_not.equal(0, code)
    assert.falsy(out:find("GB/s", 1, true))
    assert.matches("recipe minimal: verify scale", err, 1, true)
  end)

  it("a copy in a folder of one's own takes the file's name and the kernel beside it", function()
    assert(os.execute(("cp %s/recipes/minimal.lua %s/mywork/vscale.lua && cp %s/kernels/minimal.cl %s/mywork/vscale.cl")
      :format(REPO, dir, REPO, dir)))
    local out, code = shell.run(("cd %s && %s mywork/vscale.lua --quick --reps 1"):format(dir, shell.quote(CLUA)))
    assert.are.equal(0, code, out)
    assert.matches("recipe vscale · device", out, 1, true)
  end)

  it("a kernel not found: the message names every place looked, beside the script first", function()
    assert(os.execute(("cp %s/recipes/minimal.lua %s/mywork/nokernel.lua"):format(REPO, dir)))
    local out, code = shell.run(("cd %s && %s mywork/nokernel.lua --quick"):format(dir, shell.quote(CLUA)))
    assert.are.equal(1, code, out)
    local dirp = io.popen("cd " .. dir .. " && pwd -P"):read("l")
    local msg = out:match("recipe nokernel: ([^\n]*)")
    assert.truthy(msg, out)
    assert.matches("^mywork/nokernel%.lua:%d+: R:program: cannot open kernel file 'nokernel%.cl': looked for ", msg)
    local beside = msg:find(dirp .. "/mywork/nokernel.cl (beside the script)", 1, true)
      or msg:find(dir .. "/mywork/nokernel.cl (beside the script)", 1, true)
    local given = msg:find("/nokernel.cl (as given, from the current folder)", 1, true)
    local root = msg:find("/kernels/nokernel.cl (clua's kernels folder)", 1, true)
    assert.truthy(beside and given and root and beside < given and given < root, msg)
  end)
end)

describe("the full template, copied", function()
  local dir
  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. dir))
    assert(os.execute(("cp %s/recipes/template.lua %s/vsize.lua && cp %s/kernels/template.cl %s/vsize.cl")
      :format(REPO, dir, REPO, dir)))
  end)
  teardown(function() os.execute("rm -rf " .. dir) end)

  local function help(path)
    local out, code = shell.run(("%s %s --help"):format(shell.quote(CLUA), path))
    assert.are.equal(0, code, out)
    return out
  end

  it("the template's --help has its assignment mode; a copy's has neither the triad's text nor --kernel", function()
    local own = help(REPO .. "/recipes/template.lua")
    assert.matches("Assignment mode (--kernel FILE): a kernel with the arguments of triad", own, 1, true)
    assert.matches("--kernel FILE", own, 1, true)
    local copy = help(dir .. "/vsize.lua")
    assert.matches("^Usage: vsize ", copy)
    assert.is_nil(copy:find("Assignment mode", 1, true), copy)
    assert.is_nil(copy:find("--kernel", 1, true), copy)
  end)

  it("a copy that keeps assignment mode shows it", function()
    local src = shell.read(dir .. "/vsize.lua"):gsub("TEMPLATE and ", "")
    local f = assert(io.open(dir .. "/kept.lua", "w"))
    f:write(src)
    f:close()
    local out = help(dir .. "/kept.lua")
    assert.matches("Assignment mode (--kernel FILE)", out, 1, true)
  end)

  it("a copy runs with its kernel beside it, under its own name", function()
    local out, code = shell.run(("cd %s && %s vsize.lua --quick --reps 1 --local 64"):format(dir, shell.quote(CLUA)))
    assert.are.equal(0, code, out)
    assert.matches("recipe vsize · device", out, 1, true)
  end)
end)
