-- The cluster report card under Slurm: contrib/slurm/clua-cluster.sbatch,
-- submitted with sbatch --wait to a Slurm of the spec's own on this machine:
-- Debian's slurm-wlm (slurmctld and slurmd in the foreground, on free ports,
-- every file in a temporary folder) with a munged of its own (a new key, its
-- socket in that folder). One node, localhost, with 4 CPUs and 2 GPUs as
-- generic resources (gres/gpu over /dev/null and /dev/zero: Slurm wants
-- character devices, and nothing opens them); the GPUs the ranks measure are
-- PoCL's two CPU devices (POCL_DEVICES="pthread pthread"). Once per make test,
-- in the plain binary's run, as root (slurmd starts a job's tasks as the
-- user who submitted it), where slurm-wlm and build/mpi/clua are.
local json = require("dkjson")
local shell = require("spec.support.shell")
local sh, q = shell.run, shell.quote

local CLUA = os.getenv("CLUA") or "build/clua"
local asan = CLUA:find("/asan/", 1, true)
local MPI_CLUA = "build/mpi/clua"
local SCRIPT = "contrib/slurm/clua-cluster.sbatch"
local LIFE = 240 -- seconds a daemon lives at most, should teardown never come

local function have(cmd) return os.execute("command -v " .. cmd .. " >/dev/null 2>&1") end
local function sleep(s) os.execute("sleep " .. s) end

-- Why the spec cannot run here, or nil.
local skip = asan and "runs in the plain binary's run"
  or not io.open(MPI_CLUA) and "needs make MPI=1 (libopenmpi-dev) and mpirun (openmpi-bin)"
  or not (have("slurmctld") and have("slurmd") and have("sbatch") and have("munged"))
    and "needs Slurm: slurm-wlm (slurmctld, slurmd, slurm-client, munge)"
  or not sh("id -u"):match("^0%s") and "needs root: slurmd starts a job's tasks as the user who submitted it"
  or not (shell.slurp("/proc/self/mounts") or ""):find(" /sys/fs/cgroup[/ ]")
    and "needs the control groups mounted at /sys/fs/cgroup (Slurm 22.05's slurmd starts its cgroup plugin whatever "
      .. "slurm.conf says)"
  or nil

-- Two free TCP ports, n and n + 1: none of this machine's sockets uses them.
local function free_ports()
  for _ = 1, 50 do
    local base = 20000 + 2 * math.random(0, 19999)
    local used = false
    for _, f in ipairs({ "/proc/net/tcp", "/proc/net/tcp6" }) do
      for port in (shell.slurp(f) or ""):gmatch("\n%s*%d+: %x+:(%x+) ") do
        local p = tonumber(port, 16)
        if p == base or p == base + 1 then used = true end
      end
    end
    if not used then return base, base + 1 end
  end
  error("no two free TCP ports found")
end

describe("the cluster report card under Slurm (contrib/slurm/clua-cluster.sbatch, sbatch --wait)", function()
  if skip then
    pending(skip)
    return
  end
  local cl = require("cl")
  local pocl = cl.device().info.platform:match("Portable") ~= nil

  local dir, env, broken
  local daemons = {} -- name = the file its pid is written to
  local here = sh("pwd"):gsub("%s+$", "")

  local function log(name) return shell.slurp(dir .. "/" .. name) or ("(no " .. name .. ")") end
  local function logs()
    local t = {}
    for _, name in ipairs({ "munged.out", "slurmctld.out", "slurmctld.log", "slurmd.out", "slurmd.log" }) do
      t[#t + 1] = name .. ":\n" .. log(name):sub(-2000)
    end
    return table.concat(t, "\n")
  end

  -- Starts a daemon in the foreground, in the background of a shell, for LIFE seconds at most.
  local function start(name, cmd, pidfile)
    daemons[#daemons + 1] = dir .. "/" .. pidfile
    assert(os.execute(("cd %s && { %stimeout %d %s > %s.out 2>&1 & }"):format(q(dir), env, LIFE, cmd, name)))
  end

  setup(function()
    dir = sh("mktemp -d /tmp/clua-slurm.XXXXXX"):gsub("%s+$", "")
    assert(dir:match("^/tmp/clua%-slurm%."), dir)
    local ctld_port, d_port = free_ports()
    for _, d in ipairs({ "state", "spool", "munge" }) do assert(os.execute("mkdir -p " .. q(dir .. "/" .. d))) end
    assert(os.execute(("dd if=/dev/urandom of=%s/munge/munge.key bs=1024 count=1 2>/dev/null && chmod 400 %s/munge/munge.key")
      :format(q(dir), q(dir))))
    local conf = ([[
ClusterName=cluaspec
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=%d
SlurmdPort=%d
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=DIR/munge/socket
SlurmUser=root
SlurmdUser=root
StateSaveLocation=DIR/state
SlurmdSpoolDir=DIR/spool
SlurmctldPidFile=DIR/slurmctld.pid
SlurmdPidFile=DIR/slurmd.pid
SlurmctldLogFile=DIR/slurmctld.log
SlurmdLogFile=DIR/slurmd.log
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
GresTypes=gpu
SlurmdParameters=config_overrides
NodeName=localhost NodeAddr=127.0.0.1 NodeHostname=localhost CPUs=4 Gres=gpu:2 State=UNKNOWN
PartitionName=spec Nodes=localhost Default=YES MaxTime=10 State=UP
]]):format(ctld_port, d_port):gsub("DIR", dir)
    local f = assert(io.open(dir .. "/slurm.conf", "w"))
    f:write(conf)
    f:close()
    f = assert(io.open(dir .. "/gres.conf", "w"))
    f:write("NodeName=localhost Name=gpu File=/dev/null\nNodeName=localhost Name=gpu File=/dev/zero\n")
    f:close()
    env = "SLURM_CONF=" .. q(dir .. "/slurm.conf") .. " "

    start("munged", ("munged -F --force --socket=%s/munge/socket --key-file=%s/munge/munge.key --log-file=%s/munge/log "
      .. "--pid-file=%s/munge/pid --seed-file=%s/munge/seed"):format(dir, dir, dir, dir, dir), "munge/pid")
    for _ = 1, 50 do
      if os.execute("test -S " .. q(dir .. "/munge/socket")) then break end
      sleep(0.1)
    end
    start("slurmctld", "slurmctld -D -f " .. q(dir .. "/slurm.conf"), "slurmctld.pid")
    start("slurmd", "slurmd -D -N localhost -f " .. q(dir .. "/slurm.conf"), "slurmd.pid")
    -- The node is idle once slurmd has registered with slurmctld: 30 s at most.
    local t0 = os.time()
    while true do
      local state = sh(env .. "timeout 5 sinfo -h -n localhost -o %T")
      if state:match("^idle") then break end
      if os.time() - t0 > 30 then
        broken = "the node did not become idle in 30 s (sinfo: " .. state .. ")\n" .. logs()
        break
      end
      sleep(0.5)
    end
  end)

  teardown(function()
    if not dir then return end
    if env then sh(env .. "timeout 10 scancel --full $(" .. env .. "timeout 10 squeue -h -o %i) >/dev/null 2>&1") end
    -- Each daemon's pid from its pid file: TERM, and KILL after 10 s.
    local pids = {}
    for i = #daemons, 1, -1 do
      local pid = tonumber(shell.slurp(daemons[i]) or "")
      if pid then
        pids[#pids + 1] = pid
        os.execute("kill -TERM " .. pid .. " 2>/dev/null")
      end
    end
    for _ = 1, 100 do
      local alive = false
      for _, pid in ipairs(pids) do alive = alive or os.execute("kill -0 " .. pid .. " 2>/dev/null") end
      if not alive then break end
      sleep(0.1)
    end
    for _, pid in ipairs(pids) do os.execute("kill -KILL " .. pid .. " 2>/dev/null") end
    os.execute("rm -rf " .. q(dir))
  end)

  -- sbatch --wait of the job script, the spec's options first (they override the script's #SBATCH lines),
  -- with the environment envs; returns the job's output and sbatch's exit status.
  local function submit(envs, report_args)
    local out = dir .. "/job-" .. math.random(1e6) .. ".out"
    local text, code = sh(("cd %s && %s%s timeout 120 sbatch --wait --nodes=1 --ntasks-per-node=2 --gres=gpu:2 "
      .. "--cpus-per-task=1 --time=5 --output=%s %s %s"):format(q(here), env, envs, q(out), SCRIPT, report_args))
    return text .. (shell.slurp(out) or "(no job output)"), code
  end

  it("runs a rank per GPU through srun --mpi=pmix, each on the device of its local rank; rank 0 writes the "
    .. "cluster report: a row per rank, every figure, none flagged (--quick)", function()
    assert.is_nil(broken)
    local stem = dir .. "/card/cluster"
    -- CLUA: build/mpi/clua behind a script that says which GPUs Slurm showed the task
    local wrap = dir .. "/clua"
    local f = assert(io.open(wrap, "w"))
    f:write(('#!/bin/sh\necho "task $SLURM_PROCID local $SLURM_LOCALID sees GPUs $CUDA_VISIBLE_DEVICES" >&2\nexec %s "$@"\n')
      :format(q(here .. "/" .. MPI_CLUA)))
    f:close()
    assert(os.execute("chmod +x " .. q(wrap)))
    local out, code = submit(("CLUA=%s POCL_DEVICES='pthread pthread'"):format(q(wrap)),
      "--quick --recipes launch --out " .. q(stem .. ".md"))
    assert.are.equal(0, code, out .. "\n" .. logs())
    assert.matches("clua%-cluster: job %d+, 2 ranks on 1 nodes %(localhost%), 2 GPUs a node: "
      .. "srun %-%-mpi=pmix %-%-kill%-on%-bad%-exit=1 %-%-gres=gpu:2 ", out)
    assert.matches("task 0 local 0 sees GPUs 0,1", out, 1, true)
    assert.matches("task 1 local 1 sees GPUs 0,1", out, 1, true)
    assert.matches("report: wrote the cluster report", out, 1, true)
    assert.not_matches("tasks a node for its", out, 1, true)

    for r = 0, 1 do
      local card = assert(shell.slurp(("%s-rank%d.md"):format(stem, r)), "no card of rank " .. r)
      assert.matches(("Rank %d of 2 on "):format(r), card, 1, true)
      assert.matches("## launch", card, 1, true)
    end
    local md = assert(shell.slurp(stem .. ".md"))
    assert.matches("# Cluster report: 2 GPUs on 1 host", md, 1, true)
    assert.matches("Made by `srun -n 2 clua recipes/report.lua --cluster --quick --recipes launch`", md, 1, true)
    assert.matches("\n| 0 | [^|]+ | %d+:%d+ | [^|]+ | %d+ | 0 | %- |", md)
    assert.matches("\n| 1 | [^|]+ | %d+:%d+ | [^|]+ | %d+ | 0 | %- |", md)
    assert.matches("Not flagged: a --quick card is too short to flag a GPU", md, 1, true)
    assert.matches("launch / launch / execution: START -> END / clua", md, 1, true)

    local doc = assert(json.decode(assert(shell.slurp(stem .. ".json"))))
    assert.are.equal(2, #doc.gpus)
    assert.is_true(doc.quick)
    local n = #doc.gpus[1].figures
    assert.is_true(n >= 5, "figures: " .. n)
    assert.are.equal(n, #doc.gpus[2].figures)
    for i, g in ipairs(doc.gpus) do
      assert.are.equal(i - 1, g.rank)
      assert.are.same({}, g.failed)
      assert.are.same({}, g.flagged)
      for _, x in ipairs(g.figures) do assert.is_true(x.value > 0, x.id) end
    end
    for _, s in ipairs(doc.figures) do assert.are.equal(2, s.n) end
    if pocl then
      -- every task sees the node's 2 GPUs (--gres=gpu:2); the card gives each rank its local rank's device
      assert.are.same({ "0:0", "0:1" }, { doc.gpus[1].index, doc.gpus[2].index }, out)
    end
    local csv = assert(shell.slurp(stem .. ".csv"))
    local lines = {}
    for line in csv:gmatch("[^\r\n]+") do lines[#lines + 1] = line end
    assert.are.equal(3, #lines, csv)
  end)

  it("runs the ranks through mpirun inside the allocation where CLUA_LAUNCH says so (a srun with no pmix)",
    function()
      assert.is_nil(broken)
      if not have("mpirun") then
        pending("needs mpirun (openmpi-bin)")
        return
      end
      local stem = dir .. "/mpirun/cluster"
      local out, code = submit(("CLUA=%s/%s CLUA_LAUNCH='mpirun --allow-run-as-root' POCL_DEVICES='pthread pthread'")
        :format(q(here), MPI_CLUA), "--quick --recipes launch --out " .. q(stem .. ".md"))
      assert.are.equal(0, code, out .. "\n" .. logs())
      local md = assert(shell.slurp(stem .. ".md"))
      assert.matches("# Cluster report: 2 GPUs on 1 host", md, 1, true)
      assert.matches("Made by `mpirun -n 2 clua", md, 1, true)
      local doc = assert(json.decode(assert(shell.slurp(stem .. ".json"))))
      assert.are.equal(2, #doc.gpus)
      if pocl then assert.are.same({ "0:0", "0:1" }, { doc.gpus[1].index, doc.gpus[2].index }, out) end
    end)

  it("fails the job, saying why, when its clua has no MPI; warns when a node has more GPUs than tasks", function()
    assert.is_nil(broken)
    local out, code = sh(("cd %s && %sCLUA=%s timeout 120 sbatch --wait --nodes=1 --ntasks-per-node=1 --gres=gpu:2 "
      .. "--cpus-per-task=1 --time=5 --output=%s %s --quick --recipes launch --out %s")
      :format(q(here), env, q(here .. "/build/clua"), q(dir .. "/nompi.out"), SCRIPT, q(dir .. "/nompi/cluster.md")))
    out = out .. (shell.slurp(dir .. "/nompi.out") or "(no job output)")
    assert.are_not.equal(0, code, out)
    assert.are_not.equal(124, code, "sbatch --wait timed out\n" .. out)
    assert.matches("clua-cluster: 1 tasks a node for its 2 GPUs: give --ntasks-per-node=2 to measure each GPU once", out, 1,
      true)
    assert.matches("this clua was built without MPI: build it with make MPI=1", out, 1, true)
  end)
end)
