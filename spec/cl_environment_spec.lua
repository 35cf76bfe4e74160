-- A bad environment: no OpenCL platform (OCL_ICD_VENDORS naming a folder with
-- no .icd file), an ICD whose driver library fails to load (an .icd file
-- naming a missing library), CLUA_DEVICE naming no device. For a plain script,
-- clua --devices and a recipe: a non-zero exit and an explanation of what to
-- install or set, with no stack traceback (main.c prints errors about the
-- machine alone: CLUA_ENV_ERROR in host/clua.h).
local CLUA = os.getenv("CLUA") or "build/clua"

local shell_quote = require("spec.support.shell").quote

-- Runs clua with `env` set (and CLUA_DEVICE unset unless `env` sets it).
local function run(env, args)
  local errf = os.tmpname()
  local words = {}
  for k, v in pairs(env) do words[#words + 1] = k .. "=" .. shell_quote(v) end
  local cmd = ("env -u CLUA_DEVICE %s %s %s 2>%s; echo \"exit=$?\""):format(table.concat(words, " "), shell_quote(CLUA), args,
    shell_quote(errf))
  local p = assert(io.popen(cmd))
  local out = p:read("a")
  p:close()
  local f = io.open(errf)
  local err = f and f:read("a") or ""
  if f then f:close() end
  os.remove(errf)
  return tonumber(out:match("exit=(%d+)%s*$")), out:gsub("exit=%d+%s*$", ""), err
end

local SCRIPT = [[-e "require('cl').device()"]]
local DEVICES = "--devices"
local RECIPE = "recipes/overlap.lua --quick"

describe("a bad environment", function()
  local empty, broken
  setup(function()
    empty = os.tmpname()
    os.remove(empty)
    assert(os.execute("mkdir -p " .. shell_quote(empty)))
    broken = os.tmpname()
    os.remove(broken)
    assert(os.execute("mkdir -p " .. shell_quote(broken)))
    local f = assert(io.open(broken .. "/missing.icd", "w"))
    f:write("/nonexistent/libclua-missing-driver.so\n")
    f:close()
  end)

  teardown(function()
    os.remove(broken .. "/missing.icd")
    os.remove(broken)
    os.remove(empty)
  end)

  local function one_line(code, err, what)
    assert.is_true(code ~= nil and code ~= 0, what .. ": exit status " .. tostring(code))
    assert.falsy(err:find("stack traceback", 1, true), what .. ": a traceback\n" .. err)
    local lines = select(2, err:gsub("\n", "\n"))
    assert.equal(1, lines, what .. ": not one line\n" .. err)
  end

  -- The premise, checked with clinfo where there is one: the loader takes its
  -- drivers from OCL_ICD_VENDORS alone. Debian 12's ocl-icd 2.3.1 does; the
  -- ocl-icd 2.3.2 of Ubuntu 24.04 (the GPU machine) still lists the drivers
  -- of /etc/OpenCL/vendors, so there is no bad environment to make this way.
  local function loader_obeys()
    if not os.execute("command -v clinfo >/dev/null 2>&1") then return true end
    local p = assert(io.popen("env OCL_ICD_VENDORS=" .. shell_quote(empty) .. " clinfo -l 2>/dev/null"))
    local listed = p:read("a"):find("Platform #", 1, true)
    p:close()
    return not listed
  end

  for _, c in ipairs { { "a script", SCRIPT }, { "clua --devices", DEVICES }, { "a recipe", RECIPE } } do
    local what, args = c[1], c[2]

    it(what .. " with no OpenCL platform says what to install", function()
      if not loader_obeys() then pending("this OpenCL loader ignores OCL_ICD_VENDORS"); return end
      local code, _, err = run({ OCL_ICD_VENDORS = empty }, args)
      one_line(code, err, what)
      assert.truthy(err:find("no OpenCL platform: OCL_ICD_VENDORS=" .. empty .. " holds no .icd file", 1, true), err)
      assert.truthy(err:find("unset OCL_ICD_VENDORS", 1, true), err)
      assert.truthy(err:find("apt-get install pocl-opencl-icd", 1, true), err)
    end)

    it(what .. " with a driver that does not load names it", function()
      if not loader_obeys() then pending("this OpenCL loader ignores OCL_ICD_VENDORS"); return end
      local code, _, err = run({ OCL_ICD_VENDORS = broken }, args)
      one_line(code, err, what)
      assert.truthy(err:find("the OpenCL driver named by " .. broken .. "/missing.icd does not load", 1, true), err)
      assert.truthy(err:find("/nonexistent/libclua-missing-driver.so", 1, true), err)
      assert.truthy(err:find("reinstall that driver, or remove its .icd file", 1, true), err)
    end)
  end

  it("CLUA_DEVICE naming no device: the devices there are and what to set, no traceback", function()
    for _, args in ipairs { SCRIPT, RECIPE } do
      local code, _, err = run({ CLUA_DEVICE = "no-such-gpu" }, args)
      assert.is_true(code ~= nil and code ~= 0, args)
      assert.falsy(err:find("stack traceback", 1, true), err)
      assert.truthy(err:find("no OpenCL device matches 'no-such-gpu' (from CLUA_DEVICE); the devices are:", 1, true), err)
      assert.truthy(err:find("\n  0:0  ", 1, true), err)
      assert.truthy(err:find("or unset CLUA_DEVICE)", 1, true), err)
    end
  end)

  it("an error of the script itself keeps its traceback", function()
    local code, _, err = run({}, [[-e "require('cl').device('no-such-gpu')"]])
    assert.is_true(code ~= 0)
    assert.truthy(err:find("(from argument)", 1, true), err)
    assert.truthy(err:find("stack traceback", 1, true), err)
  end)
end)
