-- The mpi module (host/mpi.c, make MPI=1) under Debian's OpenMPI, and the
-- cluster report card (recipes/report.lua --cluster) with 2 ranks on one
-- host (PoCL in CI: both ranks on the CPU device). Once per make test, in
-- the plain binary's run, with build/mpi/clua (make test builds it where
-- libopenmpi-dev is). Every clua without MPI says so at require "mpi".
local json = require("dkjson")
local shell = require("spec.support.shell")
local sh, q = shell.run, shell.quote

local CLUA = os.getenv("CLUA") or "build/clua"
local asan = CLUA:find("/asan/", 1, true)
local MPI_CLUA = "build/mpi/clua"
local built = io.open(MPI_CLUA) ~= nil
local have_mpirun = os.execute("command -v mpirun >/dev/null 2>&1")
-- --oversubscribe: more ranks than cores; as root, OpenMPI wants it said.
local MPIRUN = "timeout 240 mpirun --oversubscribe -n 2" .. (sh("id -u"):match("^0") and " --allow-run-as-root" or "")

local script = shell.write_temp
-- Why the mpirun tests cannot run with this binary, or nil.
local skip = asan and "runs in the plain binary's run"
  or (not built or not have_mpirun) and "needs make MPI=1 (libopenmpi-dev) and mpirun (openmpi-bin)" or nil

describe("require 'mpi'", function()
  it("in a clua built without MPI raises an error saying how to build it", function()
    if CLUA:find("/mpi/", 1, true) then return end
    local out, code = sh(q(CLUA) .. " -e 'require \"mpi\"'")
    assert.are_not.equal(0, code)
    assert.matches("mpi: this clua was built without MPI: build it with make MPI=1", out, 1, true)
  end)
end)

describe("the mpi module under mpirun -n 2", function()
  if skip then
    pending(skip)
    return
  end

  it("gives each rank its rank, the size, its local rank, the host; gathers to rank 0 and broadcasts from it",
    function()
      local path = script([[
local mpi = require("mpi")
local r = mpi.rank()
local g = mpi.gather(("<%d:%s>"):format(r, ("x"):rep(r * 3)))
local b = mpi.bcast(r == 0 and "from rank 0\0with a NUL" or nil)
mpi.barrier()
print(("rank=%d size=%d local=%d/%d host=%s gathered=%s bcast=%q"):format(r, mpi.size(), mpi.local_rank(),
  mpi.local_size(), mpi.host(), g and table.concat(g, ",") or "nil", b))
local ok, err = pcall(mpi.gather, {})
print("gather error: " .. tostring(err))
]])
      local out, code = sh(MPIRUN .. " " .. q(MPI_CLUA) .. " " .. q(path))
      os.remove(path)
      assert.are.equal(0, code, out)
      local bcast = ("%q"):format("from rank 0\0with a NUL")
      assert.matches("rank=0 size=2 local=0/2 host=[^ ]+ gathered=<0:>,<1:xxx> bcast=" .. bcast:gsub("%p", "%%%0"), out)
      assert.matches("rank=1 size=2 local=1/2 host=[^ ]+ gathered=nil bcast=" .. bcast:gsub("%p", "%%%0"), out)
      assert.matches("gather error: bad argument #1 to 'mpi.gather' (string expected, got table)", out, 1, true)
    end)

  it("ends every rank when one raises an error, rather than leaving the others at a barrier", function()
    local path = script([[
local mpi = require("mpi")
if mpi.rank() == 1 then error("rank 1 gives up") end
mpi.barrier()
print("rank 0 passed the barrier")
]])
    local t0 = os.time()
    local out, code = sh(MPIRUN .. " " .. q(MPI_CLUA) .. " " .. q(path))
    os.remove(path)
    assert.are_not.equal(0, code, out)
    assert.are_not.equal(124, code, "mpirun timed out: a rank was left waiting\n" .. out)
    assert.is_true(os.time() - t0 < 60)
    assert.matches("rank 1 gives up", out, 1, true)
    assert.not_matches("rank 0 passed the barrier", out, 1, true)
  end)
end)

describe("the cluster report card (report.lua --cluster, 2 ranks)", function()
  if skip then
    pending(skip)
    return
  end
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p " .. q(dir)))
  teardown(function() os.execute("rm -rf " .. q(dir)) end)

  for _, apart in ipairs({ false, true }) do
    it(("writes a card per rank and rank 0 the cluster report: a row per GPU, every figure's median, flags (%s)")
      :format(apart and "--apart: one rank at a time" or "ranks at once"), function()
      local stem = dir .. (apart and "/apart" or "/together")
      local out, code = sh(("%s %s recipes/report.lua --cluster --quick --recipes stream,launch --out %s%s")
        :format(MPIRUN, q(MPI_CLUA), q(stem .. ".md"), apart and " --apart" or ""))
      assert.are.equal(0, code, out)
      assert.matches("wrote the cluster report", out, 1, true)
      for r = 0, 1 do
        local card = assert(shell.slurp(("%s-rank%d.md"):format(stem, r)), "no card of rank " .. r)
        assert.matches(("Rank %d of 2 on "):format(r), card, 1, true)
        assert.matches(apart and "one after another" or "each recipe at once", card, 1, true)
        assert.matches("## stream", card, 1, true)
      end
      local md = assert(shell.slurp(stem .. ".md"))
      assert.matches("# Cluster report: 2 GPUs on 1 host", md, 1, true)
      assert.matches("\n| 0 | [^|]+ | %d+:%d+ | ", md)
      assert.matches("\n| 1 | [^|]+ | %d+:%d+ | ", md)
      assert.matches("## Every figure", md, 1, true)
      -- a --quick card is too short to flag: nothing flagged, and the report says why
      assert.matches("Not flagged: a --quick card is too short to flag a GPU", md, 1, true)
      assert.matches("--quick: too short to flag", out, 1, true)
      assert.matches("stream / stream / double triad / best", md, 1, true)

      local doc = assert(json.decode(assert(shell.slurp(stem .. ".json"))))
      assert.are.equal(2, #doc.gpus)
      assert.are.equal(apart, doc.apart)
      local n = #doc.gpus[1].figures
      assert.is_true(n > 5)
      assert.are.equal(n, #doc.gpus[2].figures)
      assert.are.equal(n, #doc.figures)
      for _, s in ipairs(doc.figures) do
        assert.are.equal(2, s.n)
        assert.is_true(s.noise > 0)
        assert.is_true(s.worst <= s.median and s.median <= s.best or s.lower and s.best <= s.median and s.median <= s.worst)
      end
      for _, g in ipairs(doc.gpus) do
        assert.are.same({}, g.failed)
        assert.are.same({}, g.flagged)
      end

      local csv = assert(shell.slurp(stem .. ".csv"))
      local lines = {}
      for line in csv:gmatch("[^\r\n]+") do lines[#lines + 1] = line end
      assert.are.equal(3, #lines)
      assert.matches("^rank,host,index,device,flagged,", lines[1])
      assert.matches("^0,", lines[2])
      assert.matches("^1,", lines[3])
    end)
  end
end)

-- Two devices on one host, as on a 2-GPU node: PoCL makes two CPU devices
-- when POCL_DEVICES names two, and each rank takes the device of its local
-- rank. Only where the default device is PoCL's.
describe("the cluster report card with a device per rank (POCL_DEVICES)", function()
  if skip then
    pending(skip)
    return
  end
  local cl = require("cl")
  if not cl.device().info.platform:match("Portable") then
    pending("the default device is not PoCL's")
    return
  end
  it("gives each of 2 ranks its own device, 0:0 and 0:1, and a row each", function()
    local stem = os.tmpname()
    local out, code = sh(('POCL_DEVICES="pthread pthread" %s %s recipes/report.lua --cluster --quick --recipes launch '
      .. "--out %s"):format(MPIRUN, q(MPI_CLUA), q(stem .. ".md")))
    assert.are.equal(0, code, out)
    local doc = assert(json.decode(assert(shell.slurp(stem .. ".json"))))
    os.execute(("rm -rf %s %s*"):format(q(stem), q(stem)))
    assert.are.equal(2, #doc.gpus)
    local idx = {}
    for i, g in ipairs(doc.gpus) do idx[i] = g.index end
    assert.are.same({ "0:0", "0:1" }, idx, out)
  end)
end)
