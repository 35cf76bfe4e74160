-- The Debian package (debian/, make deb, .ci/deb): built from the working tree
-- in a temporary copy and lintian-clean; in CI (CI=true, as root) also
-- installed with apt-get, run from the installed paths
-- (/usr/share/clua/recipes/overlap.lua --quick from /tmp, man -w clua) and
-- purged. Once per make test: in the plain binary's run (the package holds
-- its own build of clua, so the ASan run would only repeat it).
local sh = require("spec.support.shell").run

local function have(cmd) return os.execute("command -v " .. cmd .. " >/dev/null 2>&1") end

local asan = (os.getenv("CLUA") or ""):find("/asan/", 1, true)
local ci = os.getenv("CI") == "true"
local root = sh("id -u"):match("^0") ~= nil

describe("the Debian package", function()
  if asan then
    pending("built and installed in the plain binary's run")
    return
  end

  if ci and root then
    it("builds lintian-clean, installs, runs clua overlap from /usr/share/clua, has the completion and purges", function()
      local _, code = sh("dpkg-query -W -f='${Status}' clua 2>/dev/null | grep -q 'ok installed'")
      assert.are_not.equal(0, code, "a clua package is installed already: the install test would purge it")
      local out
      out, code = sh(".ci/deb --install-test")
      assert.are.equal(0, code, out)
      assert.matches("deb: ok build/deb/clua_[%w.~+-]+_%w+%.deb%s*$", out)
      assert.matches("Copy/compute overlap", out, 1, true)
      assert.matches("deb: bash completion: /usr/share/bash-completion/completions/clua", out, 1, true)
      assert.matches("purged; /usr/bin/clua is gone", out, 1, true)
    end)
  elseif have("dpkg-buildpackage") and have("lintian") and have("dh") then
    it("builds lintian-clean", function()
      local out, code = sh(".ci/deb")
      assert.are.equal(0, code, out)
      assert.matches("deb: ok build/deb/clua_", out, 1, true)
    end)
  else
    pending("needs debhelper and lintian (.ci/deb installs them as root), or CI=true as root")
  end
end)
