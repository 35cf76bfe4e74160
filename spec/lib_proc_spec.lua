-- clua.proc: the interpreter a script runs under, whatever options came
-- before the script, and shell quoting that survives any string.
package.path = "lua/?.lua;" .. package.path
local proc = require("clua.proc")

describe("clua.proc", function()
  describe("interpreter", function()
    local saved
    before_each(function() saved = rawget(_G, "arg") end)
    after_each(function() _G.arg = saved end)

    it("is arg's lowest index, not arg[-1], when options precede the script", function()
      _G.arg = { [-4] = "/opt/clua/build/clua", [-3] = "-W", [-2] = "-e", [-1] = "x = 1", [0] = "bench/launch.lua",
        "--rounds", "3" }
      assert.are.equal("/opt/clua/build/clua", proc.interpreter())
      _G.arg = { [-1] = "build/clua", [0] = "recipes/report.lua" }
      assert.are.equal("build/clua", proc.interpreter())
    end)

    it("is \"clua\" when arg names none", function()
      _G.arg = { [0] = "script.lua" }
      assert.are.equal("clua", proc.interpreter())
      _G.arg = nil
      assert.are.equal("clua", proc.interpreter())
    end)
  end)

  describe("quote", function()
    it("gives the shell the very string, as one word", function()
      for _, s in ipairs({ "plain", "two words", "it's", "'", "''", "$HOME `id` \\ \"x\"", "a\nb", "", "-n" }) do
        local f = io.popen("printf '%s|' " .. proc.quote(s) .. " " .. proc.quote(s))
        local out = f:read("a")
        f:close()
        assert.are.equal(s .. "|" .. s .. "|", out)
      end
    end)

    it("quotes any value through tostring", function()
      assert.are.equal("'42'", proc.quote(42))
    end)
  end)
  describe("run", function()
    it("gives a program's output and error, or why not", function()
      local out, err = proc.run("/bin/sh", "-c " .. proc.quote("echo out; echo err >&2"))
      assert.are.equal("out\n", out)
      assert.are.equal("err\n", err)
      out, err = proc.run("/bin/sh", "-c " .. proc.quote("echo bad >&2; exit 3"))
      assert.is_nil(out)
      assert.are.equal("failed (exit 3): bad", err)
      out, err = proc.run("/no/such/program", "")
      assert.is_nil(out)
      assert.are.equal("not built", err)
    end)
  end)
end)
