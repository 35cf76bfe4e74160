-- A kernel that faults inside the OpenCL driver: on a CPU device (PoCL) a
-- write far out of bounds ends the process with SIGSEGV in one of the
-- driver's threads, which says, before the signal ends it, which kernel was
-- launched last, the script line that launched it and the `clua check`
-- command that finds the access; the exit status is still the signal's. On a
-- GPU the same write is the driver's error at the wait: the process ends
-- non-zero either way, and never by a bare signal. Each child runs with no
-- core file, under `timeout 60`.
package.path = "lua/?.lua;" .. package.path
local cl = require("cl")
local shell = require("spec.support.shell")

local CLUA = os.getenv("CLUA") or "build/clua"
local CPU = cl.device().info.type == "CPU"

-- out[i + off] = 1: with off 2^60 floats the address is 2^62 bytes past
-- the buffer, outside any process's address space on x86-64 (non-canonical),
-- whatever the allocator, ASan's included, put where.
local SCRIPT = [[
local cl = require("cl")
local how = arg[1]
local ctx = cl.context()
local q = ctx:queue()
local prog = ctx:program("kernel void far_write(global float *out, ulong off) { out[get_global_id(0) + off] = 1.0f; }")
local k = prog:build():kernel("far_write")
k:args(ctx:buffer(4 * 64), cl.ulong(1 << 60))
if how == "launch" then
  q:launch(k, 64)
elseif how == "pcall" then
  assert(pcall(q.launch, q, k, 64))
elseif how == "launcher" then
  local go = q:launcher(k, 64)
  go()
end
q:finish()
print("not reached")
]]
-- the lines of the launches above
local LINE = { launch = 9, pcall = 11, launcher = 14 }

local function run(script, ...)
  local args = {}
  for i, a in ipairs({ ... }) do args[i] = shell.quote(a) end
  return shell.run(("ulimit -c 0; timeout 60 %s %s %s"):format(CLUA, script, table.concat(args, " ")))
end

describe("a kernel that faults inside the driver", function()
  local script
  setup(function() script = shell.write_temp(SCRIPT, ".lua") end)
  teardown(function() os.remove(script) end)

  for how, line in pairs(LINE) do
    it(("names the kernel and the line of the launch (%s), and ends non-zero"):format(how), function()
      local out, code = run(script, how, "a b")
      assert.falsy(out:find("not reached", 1, true), out)
      assert.are_not.equal(0, code, out)
      assert.are_not.equal(124, code, out) -- no hang
      if CPU then
        -- PoCL: the write faults in a worker thread of the driver; the signal ends the process
        assert.are.equal(128 + 11, code, out)
      end
      if code > 128 then
        assert.matches("clua: SIGSEGV (segmentation fault) inside the OpenCL driver; the newest kernel launched is "
          .. "'far_write', at " .. script .. ":" .. line .. ".", out, 1, true)
        assert.matches("run `clua check " .. script .. " " .. how .. " 'a b'` to find the access", out, 1, true)
        local _, n = out:gsub("clua: SIGSEGV", "")
        assert.are.equal(1, n, out) -- once, however many of the driver's threads fault
        assert.falsy(out:find("AddressSanitizer", 1, true), out) -- not clua's fault: no report of it
      else
        -- a GPU: the driver's error at the wait (CL_OUT_OF_RESOURCES, say), raised by clua
        assert.are.equal(1, code, out)
        assert.matches("CL_[%u_]+", out)
      end
    end)
  end

  it("says nothing when no kernel faults", function()
    local ok = shell.write_temp([[
local cl = require("cl")
local ctx = cl.context()
local q = ctx:queue()
local k = ctx:program("kernel void one(global float *out) { out[get_global_id(0)] = 1.0f; }"):build():kernel("one")
local b = ctx:buffer(4 * 64)
k:args(b)
q:launch(k, 64)
q:finish()
local a = cl.array("float", 64)
q:read(b, a)
print(a[63])
]], ".lua")
    local out, code = run(ok)
    os.remove(ok)
    assert.are.equal(0, code, out)
    assert.are.equal("1.0\n", out)
  end)
end)

describe("an output buffer smaller than the kernel writes", function()
  -- a new user's copy of the template, its output buffer half the size
  it("is an error naming the buffer, its size and the range, before the kernel runs", function()
    local src = assert(shell.slurp("recipes/template.lua"))
    local mine, n = src:gsub('R:output%("c", "float", n, "write_only"%)', 'R:output("c", "float", n // 2, "write_only")')
    assert.are.equal(1, n)
    local dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. dir))
    local f = assert(io.open(dir .. "/vsize.lua", "w"))
    f:write(mine)
    f:close()
    -- a copy finds its kernels beside it, by its own name (docs/tutorial.md)
    assert(os.execute("cp kernels/template.cl " .. dir .. "/vsize.cl"))
    local out, code = run(dir .. "/vsize.lua", "--quick")
    os.execute("rm -rf " .. dir)
    assert.are.equal(1, code, out)
    assert.matches("the kernel owns c%[0 %.%. %d+%), past the end of the buffer c of %d+ float elements %([%d.]+ [KMG]iB%): "
      .. "make the buffer hold %d+ elements %(R:output%) or the range what it holds; the kernel was not launched", out)
    local owned, held = out:match("owns c%[0 %.%. (%d+)%), past the end of the buffer c of (%d+) float")
    assert.are.equal(tonumber(owned), 2 * tonumber(held))
    assert.falsy(out:find("SIGSEGV", 1, true), out)
  end)
end)
