-- cl as a LuaRocks module for a stock lua5.4 (clua-scm-1.rockspec, make
-- module, host/module.c): the working tree is copied to a clean folder,
-- `luarocks --lua-version 5.4 make --local` builds and installs it into a
-- temporary HOME, and lua5.4 (not clua) then requires cl, launches a kernel
-- from the installed kernels/ folder and runs a recipe to its verified end.
-- Once per make test: in the plain binary's run (neither the build nor
-- lua5.4 runs the clua binary under test, so the ASan run would only repeat
-- it).
local shell = require("spec.support.shell")

local sh = shell.run

describe("the LuaRocks module", function()
  if (os.getenv("CLUA") or ""):find("/asan/", 1, true) then
    pending("built and run in the plain binary's run")
    return
  end

  local tmp, env

  setup(function()
    tmp = os.tmpname()
    os.remove(tmp)
    local out, code = sh(("mkdir -p %s/home && .ci/tree %s/src"):format(tmp, tmp))
    assert.are.equal(0, code, out)
    env = ("cd %s && export HOME=%s/home && eval \"$(luarocks --lua-version 5.4 path)\" && ")
      :format(shell.quote(tmp), shell.quote(tmp))
  end)

  teardown(function() os.execute("rm -rf " .. shell.quote(tmp)) end)

  it("builds and installs with luarocks make --local, on a clean tree", function()
    local out, code = sh(("cd %s/src && HOME=%s/home luarocks --lua-version 5.4 make --local clua-scm-1.rockspec")
      :format(shell.quote(tmp), shell.quote(tmp)))
    assert.are.equal(0, code, out)
    assert.matches("clua scm%-1 is now installed", out)

    -- lua5.4 finds cl.so and the clua.* modules in the rock tree
    out, code = sh(env .. [[lua5.4 -e '
      local cl = require("cl")
      assert(package.searchpath("cl", package.cpath):find(os.getenv("HOME"), 1, true))
      print(cl.device())
      local ctx = cl.context()
      local q = ctx:queue()
      local k = ctx:program_file("template.cl"):build():kernel("triad")
      print("root", cl.root)
      local units = require("clua.units")
      print("size", units.format_size(1 << 20))']])
    assert.are.equal(0, code, out)
    assert.matches("cl.device: ", out, 1, true)
    assert.matches("root\t" .. tmp .. "/home/.luarocks/lib/lua/5.4/clua", out, 1, true)
    assert.matches("size\t1 MiB", out, 1, true)

    -- a recipe, under lua5.4, from the installed recipes/ folder
    out, code = sh(env .. [[lua5.4 "$(lua5.4 -e 'print(require "cl".root)')/recipes/stream.lua" --quick]])
    assert.are.equal(0, code, out)
    assert.matches("BabelStream kernels", out, 1, true)
  end)
end)
