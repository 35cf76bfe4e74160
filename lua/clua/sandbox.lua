--- clua.sandbox: the box a student's submission is built and run in, with
-- Debian's bubblewrap (`bwrap`). Inside: a read-only view of the system
-- (/usr, the loader's and OpenCL's files of /etc, /sys), a new /proc, a /dev
-- with the null devices and the GPU's device nodes where the machine has them
-- (NVIDIA's /dev/nvidia*, /dev/dri, /dev/kfd), a private /tmp and HOME (a
-- memory file system of `TMP_BYTES`), no network, new process, IPC and host
-- name namespaces, no capabilities, and of the grader's own files only clua
-- (the interpreter, lua/, kernels/), the recipes, the submission (read-only)
-- and the run's output folder. The environment is emptied but for the
-- variables the driver, clua and the checker read (CLUA_*, POCL_*, OCL_ICD_*,
-- CUDA_*, OCLGRIND_*, LUA_PATH, ...) and those a run is given (`env`). The
-- grader probes it once (`sandbox.probe`) before grading.
-- @module clua.sandbox
local lfs = require("lfs")
local paths = require("clua.paths")

local sandbox = {}

--- The size of the private /tmp (and HOME inside it), bytes.
sandbox.TMP_BYTES = 512 * 1024 * 1024

--- HOME inside the box.
sandbox.HOME = "/tmp/home"

-- What of /etc a driver needs: the loader's cache and configuration, the
-- OpenCL vendor files, the alternatives' links, the time zone, NVIDIA's own.
local ETC = { "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "ld.so.preload", "OpenCL", "alternatives", "localtime",
  "nvidia" }

-- The environment kept: exact names, and prefixes (ending in _ or *).
local KEEP = { "PATH", "LANG", "LANGUAGE", "TZ", "LD_LIBRARY_PATH", "ASAN_OPTIONS", "LSAN_OPTIONS", "UBSAN_OPTIONS",
  "LC_*", "CLUA_*", "POCL_*", "OCL_ICD_*", "CUDA_*", "NVIDIA_*", "HSA_*", "ROC*", "GPU_*", "LUA_PATH*", "LUA_CPATH*",
  "OCLGRIND_*" }

local function kept(name)
  for _, k in ipairs(KEEP) do
    if k:sub(-1) == "*" then
      if name:sub(1, #k - 1) == k:sub(1, -2) then return true end
    elseif name == k then return true end
  end
  return false
end

-- The environment of this process, as {name, value} pairs (Linux: /proc/self/environ).
local function environment()
  local f = io.open("/proc/self/environ", "rb")
  local list = {}
  if f then
    local all = f:read("a")
    f:close()
    for entry in all:gmatch("([^%z]+)") do
      local k, v = entry:match("^([^=]+)=(.*)$")
      if k then list[#list + 1] = { k, v } end
    end
  else
    for _, k in ipairs(KEEP) do
      if k:sub(-1) ~= "*" and os.getenv(k) then list[#list + 1] = { k, os.getenv(k) } end
    end
  end
  return list
end

-- The folders and files the environment points clua and the driver at:
-- LUA_PATH's and LUA_CPATH's folders, LD_LIBRARY_PATH, the OpenCL loader's
-- own variables, the sanitizers' suppression files.
local function env_paths()
  local out = {}
  local function add(p)
    if p and p:sub(1, 1) == "/" and paths.kind(p) then out[#out + 1] = p end
  end
  for _, kv in ipairs(environment()) do
    local k, v = kv[1], kv[2]
    if k:match("^LUA_C?PATH") then
      for t in v:gmatch("[^;]+") do add(t:match("^(.-)/[^/]*%?")) end
    elseif k == "LD_LIBRARY_PATH" or k == "OCL_ICD_FILENAMES" or k == "OCL_ICD_VENDORS" then
      for p in v:gmatch("[^:]+") do add(p) end
    elseif k:match("SAN_OPTIONS$") then
      for p in v:gmatch("suppressions=([^:]+)") do add(p) end
    end
  end
  return out
end

-- The folders of the libraries the OpenCL vendor files name by an absolute
-- path outside /usr (a driver installed in /opt, say).
local function icd_paths()
  local out, dir = {}, "/etc/OpenCL/vendors"
  if not paths.is_dir(dir) then return out end
  for name in lfs.dir(dir) do
    if name:match("%.icd$") then
      local f = io.open(dir .. "/" .. name)
      local lib = f and f:read("l")
      if f then f:close() end
      local d = lib and lib:match("^(/.+)/[^/]+$")
      if d and not d:match("^/usr/") and paths.is_dir(d) then out[#out + 1] = d end
    end
  end
  return out
end

-- The GPU's device nodes: NVIDIA's, the DRM nodes, AMD's compute node.
local function device_nodes()
  local out = {}
  if paths.is_dir("/dev") then
    local names = {}
    for name in lfs.dir("/dev") do names[#names + 1] = name end
    table.sort(names)
    for _, name in ipairs(names) do
      if name:match("^nvidia") or name == "dri" or name == "kfd" then out[#out + 1] = "/dev/" .. name end
    end
  end
  return out
end

--- The bubblewrap program, or nil when it is not installed.
-- @treturn string|nil its path
function sandbox.bwrap()
  return paths.which("bwrap")
end

--- The command line that runs `command` in the box.
-- @tab opts `command` (the program and its arguments, a list), `ro` (paths
-- seen read-only, at the same place), `rw` (paths seen writable), `chdir`
-- (the folder it starts in), `env` (variables set for the command, over the
-- kept ones: {name, value} pairs), and either `home` (a folder of the grader's,
-- writable, its HOME) or `seed` (a folder whose files are copied into a
-- private HOME before the command starts)
-- @treturn {string,...} the words of the command line (not quoted)
function sandbox.argv(opts)
  local a = { sandbox.bwrap() or "bwrap" }
  local function add(...) for _, w in ipairs({ ... }) do a[#a + 1] = w end end
  -- no user namespace asked for: bwrap makes one itself for a user who is not
  -- root, and as root (CI) it is not needed, and refused in a chroot
  add("--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try", "--hostname",
    "clua-sandbox", "--die-with-parent", "--new-session", "--cap-drop", "ALL")
  add("--ro-bind", "/usr", "/usr")
  for _, d in ipairs({ "bin", "sbin", "lib", "lib32", "lib64", "libx32" }) do
    local kind = paths.kind("/" .. d)
    if kind == "link" then add("--symlink", lfs.symlinkattributes("/" .. d, "target"), "/" .. d)
    elseif kind == "directory" then add("--ro-bind", "/" .. d, "/" .. d) end
  end
  for _, e in ipairs(ETC) do add("--ro-bind-try", "/etc/" .. e, "/etc/" .. e) end
  add("--ro-bind-try", "/sys", "/sys", "--proc", "/proc", "--dev", "/dev")
  for _, d in ipairs(device_nodes()) do add("--dev-bind", d, d) end
  add("--size", tostring(sandbox.TMP_BYTES), "--tmpfs", "/tmp")
  for _, p in ipairs(icd_paths()) do add("--ro-bind", p, p) end
  for _, p in ipairs(env_paths()) do add("--ro-bind", p, p) end
  for _, p in ipairs(opts.ro or {}) do add("--ro-bind", p, p) end
  if opts.seed then add("--ro-bind", opts.seed, opts.seed) end
  for _, p in ipairs(opts.rw or {}) do add("--bind", p, p) end
  add("--clearenv")
  for _, kv in ipairs(environment()) do
    if kept(kv[1]) then add("--setenv", kv[1], kv[2]) end
  end
  for _, kv in ipairs(opts.env or {}) do add("--setenv", kv[1], kv[2]) end
  add("--setenv", "TMPDIR", "/tmp")
  if opts.home then
    add("--bind", opts.home, opts.home, "--setenv", "HOME", opts.home)
  else
    add("--dir", sandbox.HOME, "--setenv", "HOME", sandbox.HOME)
  end
  if opts.chdir then add("--chdir", opts.chdir) end
  add("--")
  if opts.seed then
    add("/bin/sh", "-c", 'cp -R "$0"/. "$HOME"/ && exec "$@"', opts.seed)
  end
  for _, w in ipairs(opts.command) do add(w) end
  return a
end

local probed
--- Whether the box can start here, tried once (a program that does nothing,
-- in the box as the grader builds it): nil and why not when bubblewrap is
-- missing, or when the kernel refuses it (user namespaces refused; a chroot
-- whose root is not a mount point).
-- @treturn[1] true
-- @treturn[2] nil
-- @treturn[2] string why not, with what to do
function sandbox.probe()
  if probed then return table.unpack(probed) end
  local why
  if not sandbox.bwrap() then
    why = "bubblewrap (bwrap) is not installed (Debian: apt-get install bubblewrap)"
  else
    local words = {}
    for i, w in ipairs(sandbox.argv{ command = { "true" } }) do words[i] = "'" .. w:gsub("'", "'\\''") .. "'" end
    local p = io.popen(table.concat(words, " ") .. " 2>&1")
    local out = p:read("a")
    local ok = p:close()
    if not ok then
      local msg = out:gsub("%s+$", ""):gsub("\n", "; ")
      if msg:find("make / slave", 1, true) then
        msg = msg .. " (in a chroot, bwrap needs the root to be a mount point: mount --bind ROOT ROOT before chroot)"
      elseif msg:find("namespace", 1, true) then
        msg = msg .. " (a user who is not root needs user namespaces: sysctl kernel.unprivileged_userns_clone=1, "
          .. "or AppArmor's kernel.apparmor_restrict_unprivileged_userns=0)"
      end
      why = "bwrap cannot start the box here: " .. msg
    end
  end
  probed = why and { nil, why } or { true }
  return table.unpack(probed)
end

--- The box in a line, for the gradebook's record.
-- @treturn string
function sandbox.describe()
  local p = io.popen("'" .. (sandbox.bwrap() or "bwrap"):gsub("'", "'\\''") .. "' --version 2>/dev/null")
  local v = p and p:read("l") or "bwrap"
  if p then p:close() end
  return ("%s: a read-only system, a private /tmp and HOME, no network, no capabilities; the submission "
    .. "read-only and the run's output folder its only files of the grader's"):format(v or "bwrap")
end

return sandbox
