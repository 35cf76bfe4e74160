-- A student's recipe beside its kernel (mywork/vsize.lua + mywork/vsize.cl)
-- runs from any folder, and an error raised for the user's mistake names the
-- user's file and line, not the library's: a kernel file not found, and a
-- kernel that never ends under --timeout 1, whichever wait of the library
-- times out (the harness's event:wait, the guard's queue:read in assignment
-- mode). Each run is bounded by timeout(1).
local clua = os.getenv("CLUA") or "build/clua"

local SCRIPT = [[
local recipe = require("clua.recipe")
local R = recipe.new{ name = "vsize", description = "A student's recipe." }
R:main(function(R)
  local k = R:kernel(KERNEL_FILE, "twice")
  local cl = require("cl")
  local host = cl.array("float", 64):ramp(0, 1)
  local din, dout = R:input("in", host), R:output("out", "float", 64)
  k:args(din, dout)
  local want = cl.array("float", 64):ramp(0, 2)
  R:measure{ label = "twice", run = function() return R.queue:launch(k, 64) end, reads = { din },
    outputs = { { dout, expect = want } } }
  print("verified")
end)
]]

local KERNEL = "__kernel void twice(__global const float *in, __global float *out) "
  .. "{ size_t i = get_global_id(0); out[i] = 2.0f * in[i]; }\n"

-- A teacher's recipe in assignment mode: the student's triad (--kernel) on
-- guarded buffers, launched, then checked (the guard reads its zones back).
local TRIAD = [[
local recipe = require("clua.recipe")
local cl = require("cl")
local R = recipe.new{ name = "mytriad", description = "A teacher's triad.", student = "a triad",
  student_name = "triad" }
R:main(function(R)
  local n = 256
  local a, b = R:input("a", cl.array("float", n):ramp(0)), R:input("b", cl.array("float", n):ramp(1))
  local c = R:output("c", "float", n)
  local k = R:student_kernel()
  k:args(c, a, b, cl.float(3), cl.uint(n))
  R.queue:launch(k, n)
  R:check_student("the student's triad")
  print("checked")
end)
]]

-- A kernel of vsize.lua's arguments that never ends.
local ENDLESS = "__kernel void twice(__global const float *in, __global float *out) "
  .. "{ size_t i = get_global_id(0); float x = 0; while (in[i] < 1e30f) { x += 1.0f; out[i] = x; } }\n"

local function run(cmd)
  local p = assert(io.popen(cmd)); local out = p:read("a"); p:close(); return out
end

local function abs(path)
  if path:sub(1, 1) == "/" then return path end
  return run("pwd"):gsub("%s+$", "") .. "/" .. path
end

local function write(path, text)
  local f = assert(io.open(path, "w")); f:write(text); f:close()
end

describe("a user's recipe and kernel side by side", function()
  local dir
  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. dir .. "/mywork"))
    write(dir .. "/mywork/vsize.cl", KERNEL)
  end)
  teardown(function() os.execute("rm -rf " .. dir) end)

  it("finds the kernel beside the script when run from another folder", function()
    write(dir .. "/mywork/vsize.lua", (SCRIPT:gsub("KERNEL_FILE", '"vsize.cl"')))
    local out = run(("cd %s && CLUA_PROGRESS=0 %s mywork/vsize.lua 2>&1; echo exit=$?"):format(dir, abs(clua)))
    assert.truthy(out:find("verified", 1, true), out)
    assert.truthy(out:find("exit=0", 1, true), out)
  end)

  it("names the user's file and line when the kernel file is missing", function()
    write(dir .. "/mywork/vsize.lua", (SCRIPT:gsub("KERNEL_FILE", '"nosuch.cl"')))
    local out = run(("cd %s && CLUA_PROGRESS=0 %s mywork/vsize.lua 2>&1; echo exit=$?"):format(dir, abs(clua)))
    assert.truthy(out:find("recipe vsize: mywork/vsize.lua:4: R:program: cannot open kernel file "
      .. "'nosuch.cl': looked for ", 1, true), out)
    assert.truthy(out:find("/mywork/nosuch.cl (beside the script)", 1, true), out)
    assert.falsy(out:find("lua/clua/", 1, true), out)
    assert.truthy(out:find("exit=1", 1, true), out)
  end)

  it("names the user's line when the harness's wait for a kernel that never ends times out", function()
    write(dir .. "/mywork/endless.cl", ENDLESS)
    write(dir .. "/mywork/vsize.lua", (SCRIPT:gsub("KERNEL_FILE", '"endless.cl"')))
    local out = run(("cd %s && CLUA_PROGRESS=0 timeout -k 5 60 %s mywork/vsize.lua --timeout 1 2>&1; echo exit=$?")
      :format(dir, abs(clua)))
    assert.truthy(out:find("recipe vsize: mywork/vsize.lua:10: event:wait: timed out after 1 s waiting for "
      .. "kernel 'twice'", 1, true), out)
    assert.falsy(out:find("lua/clua/", 1, true), out)
    assert.falsy(out:find("verified", 1, true), out)
    assert.truthy(out:find("exit=1", 1, true), out)
  end)

  it("names the user's line when the guard's queue:read times out (assignment mode, --timeout 1)", function()
    write(dir .. "/mywork/triad.lua", TRIAD)
    local out = run(("cd %s && CLUA_PROGRESS=0 timeout -k 5 60 %s mywork/triad.lua --timeout 1 --kernel %s 2>&1; "
      .. "echo exit=$?"):format(dir, abs(clua), abs("spec/fixtures/grade/triad/s07_endless.cl")))
    assert.truthy(out:find("recipe mytriad: mywork/triad.lua:12: queue:read: timed out after 1 s waiting for "
      .. "kernel 'triad'", 1, true), out)
    assert.falsy(out:find("lua/clua/", 1, true), out)
    assert.falsy(out:find("checked", 1, true), out)
    assert.truthy(out:find("exit=1", 1, true), out)
  end)
end)
