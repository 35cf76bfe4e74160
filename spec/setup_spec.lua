-- What `make run` installs (.ci/setup run): only what building clua and
-- running recipes needs; the test, lint, doc and fuzz tools come with
-- `make test` (.ci/setup, all). A student who only runs recipes does not wait
-- for busted, luacheck, LDoc, cppcheck or clang's fuzzing runtime.
local function list(set)
  local p = assert(io.popen("sh .ci/setup --list " .. set .. " 2>&1"))
  local t = {}
  for line in p:lines() do t[line] = true end
  p:close()
  return t
end

local has_setup = io.open(".ci/setup") ~= nil -- the bundle has no .ci/setup

describe(".ci/setup", function()
  it("for make run lists what building and running needs, and no test tool", function()
    if not has_setup then return pending(".ci/setup is not here (a bundle)") end
    local run = list("run")
    for _, p in ipairs { "gcc", "make", "pkg-config", "liblua5.4-dev", "ocl-icd-opencl-dev", "opencl-headers",
      "pocl-opencl-icd", "lua-argparse", "lua-dkjson", "bubblewrap", "lua-filesystem" } do
      assert.is_true(run[p], p .. " is missing from .ci/setup run")
    end
    for _, p in ipairs { "lua-busted", "lua-check", "lua-ldoc", "lua-markdown", "cppcheck", "libclang-rt-14-dev",
      "clinfo", "lua-expat", "chromium" } do
      assert.is_nil(run[p], p .. " is a test tool, installed by make run")
    end
  end)

  it("for make test lists everything make run does, and the test tools", function()
    if not has_setup then return pending(".ci/setup is not here (a bundle)") end
    local run, all = list("run"), list("all")
    for p in pairs(run) do assert.is_true(all[p], p) end
    for _, p in ipairs { "lua-busted", "lua-check", "lua-expat", "lua-ldoc", "cppcheck", "libclang-rt-14-dev",
      "libopenmpi-dev", "openmpi-bin", "chromium" } do
      assert.is_true(all[p], p .. " is missing from .ci/setup")
    end
    assert.is_nil(run["libopenmpi-dev"], "OpenMPI is for make MPI=1 and its spec, not make run")
  end)

  it("for make doc lists LDoc and its Markdown alone, and make doc installs only that set", function()
    if not has_setup then return pending(".ci/setup is not here (a bundle)") end
    local doc = list("doc")
    local n = 0
    for _ in pairs(doc) do n = n + 1 end
    assert.is_true(doc["lua-ldoc"] and doc["lua-markdown"], "LDoc or its Markdown is missing from .ci/setup doc")
    assert.are.equal(2, n, "make doc installs more than LDoc")
    local p = assert(io.popen("make -n doc 2>&1"))
    local out = p:read("a")
    p:close()
    assert.matches("sh .ci/setup doc\n", out, 1, true)
    assert.is_nil(out:find("sh .ci/setup\n", 1, true), out)
  end)

  it("refuses a set it does not know", function()
    if not has_setup then return pending(".ci/setup is not here (a bundle)") end
    local p = assert(io.popen("sh .ci/setup --list tests 2>&1; echo \"exit=$?\""))
    local out = p:read("a")
    p:close()
    assert.matches("usage: sh .ci/setup", out, 1, true)
    assert.matches("exit=2", out, 1, true)
  end)
end)
