-- The environment and the output paths of issue 46: a bad CLUA_TIMEOUT or
-- CLUA_DEVICE is named in the message (not "recipes folder not found"); an
-- output name starting with a dash is a path, not an option (--out=-x makes
-- -x-files, it does not run mkdir -x); a write that fails (a closed standard
-- output, a full disk: /dev/full) is an error with a non-zero exit status.
local shell = require("spec.support.shell")

local clua = os.getenv("CLUA") or "build/clua"
local here = os.getenv("PWD")

describe("the environment and the output paths", function()
  local dir = os.tmpname()
  os.remove(dir)
  setup(function() assert(os.execute("mkdir -p " .. dir)) end)
  teardown(function() os.execute("rm -rf " .. dir) end)

  it("names CLUA_TIMEOUT or CLUA_DEVICE when its value is no good", function()
    for _, v in ipairs({ "-1", "abc", "nan", "inf" }) do
      local out, code = shell.run(("CLUA_TIMEOUT=%s %s template --help"):format(v, clua))
      assert.are.equal(1, code, out)
      assert.truthy(out:find("CLUA_TIMEOUT='" .. v .. "' is not a number of seconds", 1, true), out)
      assert.falsy(out:find("recipes folder", 1, true), out)
    end
    local out, code = shell.run(("CLUA_DEVICE=garbage %s template --quick"):format(clua))
    assert.are_not.equal(0, code, out)
    assert.truthy(out:find("no OpenCL device matches 'garbage' (from CLUA_DEVICE)", 1, true), out)
  end)

  it("reads an output name that starts with a dash as a path", function()
    local out, code = shell.run(("cd %s && %s %s/recipes/report.lua --recipes nosuchrecipe --out=-x.md"):format(
      dir, clua:match("^/") and clua or (here .. "/" .. clua), here))
    assert.are.equal(0, code, out)
    assert.falsy(out:find("invalid option", 1, true), out)
    assert.is_true(os.execute(("test -d %s/-x-files && test -s %s/-x.md && test -s %s/-x.json"):format(dir, dir, dir)))
  end)

  it("fails when its standard output cannot be written: closed, or a full disk", function()
    local out, code = shell.run("(" .. clua .. " -e 'print(1)' > /dev/full)")
    assert.are.equal(1, code, out)
    assert.truthy(out:find("cannot write the standard output", 1, true), out)
    out, code = shell.run("(" .. clua .. " -e 'io.write((\"x\"):rep(100000)) os.exit(0)' >&-)")
    assert.are.equal(1, code, out)
    assert.truthy(out:find("cannot write the standard output: it is closed", 1, true), out)
    out, code = shell.run("(" .. clua .. " -e 'print(1)' > /dev/null)")
    assert.are.equal(0, code, out)
  end)

  it("fails when an output file cannot be written (a recipe's --json to a full disk)", function()
    local out, code = shell.run(clua .. " recipes/template.lua --quick --reps 1 --json /dev/full")
    assert.are_not.equal(0, code, out)
    assert.truthy(out:find("cannot write /dev/full: No space left on device", 1, true), out)
  end)
end)
