-- clua.argcheck: option values checked when the command line is parsed:
-- ranges, every documented number form, negative numbers read as values,
-- files that can be written or read; each refusal names the option.
package.path = "lua/?.lua;" .. package.path
local argcheck = require "clua.argcheck"
local argparse = require "argparse"

describe("clua.argcheck", function()
  it("reads every documented size form, and refuses what is no size", function()
    assert.are.equal(1000000, argcheck.size("1e6"))
    assert.are.equal(65536, argcheck.size("64K"))
    assert.are.equal(256 * 2 ^ 20, argcheck.size("256MiB"))
    assert.are.equal(4096, argcheck.size("4096"))
    assert.are.equal("integer", math.type(argcheck.size("1e6")))
    for s, why in pairs({ ["-5"] = "must be positive", ["0"] = "must be positive", ["1e30"] = "too large",
      ["1e400"] = "too large", ["lots"] = "bad size", ["1.5"] = "not a whole number" }) do
      local v, msg = argcheck.size(s)
      assert.is_nil(v, s)
      assert.matches(why, msg, 1, true)
    end
  end)

  it("counts are whole numbers >= 1, in any size form; whole numbers may be 0", function()
    assert.are.equal(10, argcheck.count("10"))
    assert.are.equal(1000000, argcheck.count("1e6"))
    assert.are.equal(65536, argcheck.count("64K"))
    for s, why in pairs({ ["0"] = ">= 1", ["-1"] = "must be positive", ["2.5"] = "whole number",
      ["1e30"] = "too large", ["ten"] = "a whole number expected" }) do
      local v, msg = argcheck.count(s)
      assert.is_nil(v, s)
      assert.matches(why, msg, 1, true)
    end
    assert.are.equal(0, argcheck.whole("0"))
    assert.matches("must be positive or 0", select(2, argcheck.whole("-3")), 1, true)
  end)

  it("numbers > 0 for seconds; any finite number where a sign makes sense", function()
    assert.are.equal(0.5, argcheck.positive("0.5"))
    assert.matches("must be positive", select(2, argcheck.positive("-2")), 1, true)
    assert.matches("must be positive", select(2, argcheck.positive("0")), 1, true)
    assert.matches("too large", select(2, argcheck.positive("1e300")), 1, true)
    assert.are.equal(-2, argcheck.number("-2"))
    assert.is_nil(argcheck.number("nan"))
  end)

  it("a file to write is checked without leaving anything behind", function()
    local dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir " .. dir))
    assert.are.equal(dir .. "/new.json", argcheck.writable(dir .. "/new.json"))
    assert.is_nil(io.open(dir .. "/new.json"), "the check left a file")
    local v, why = argcheck.writable(dir .. "/no/such/folder/x.json")
    assert.is_nil(v)
    assert.matches("cannot write it: No such file or directory", why, 1, true)
    assert.matches("cannot write it", select(2, argcheck.writable(dir)), 1, true) -- a folder
    local f = assert(io.open(dir .. "/old.json", "w"))
    f:write("kept")
    f:close()
    assert.truthy(argcheck.writable(dir .. "/old.json"))
    local g = assert(io.open(dir .. "/old.json"))
    assert.are.equal("kept", g:read("a"))
    g:close()
    assert.matches("cannot read it", select(2, argcheck.readable(dir .. "/none.json")), 1, true)
    os.execute("rm -rf " .. dir)
  end)

  it("installs the checks on a parser: every message names the option and its value", function()
    local p = argparse("demo")
    p:option("--n"):convert(math.tointeger)
    p:option("--ms"):convert(tonumber)
    p:option("--json")
    p:option("--html")
    argcheck.install(p, { write = { "--json", "--html" } })
    local function parse(...) return p:pparse(argcheck.join_negatives(p, { ... })) end
    local ok, msg = parse("--n", "-5")
    assert.is_false(ok)
    assert.are.equal("--n -5: must be positive", msg)
    ok, msg = parse("--n", "0")
    assert.are.equal("--n 0: must be a whole number >= 1", msg)
    ok, msg = parse("--ms", "-0.5")
    assert.are.equal("--ms -0.5: must be positive", msg)
    ok, msg = parse("--json", "/nonexistent/x.json")
    assert.are.equal("--json /nonexistent/x.json: cannot write it: No such file or directory", msg)
    local a
    ok, a = parse("--n", "64K", "--ms", "2.5", "--html", "none")
    assert.is_true(ok)
    assert.are.equal(65536, a.n)
    assert.are.equal(2.5, a.ms)
    assert.are.equal("none", a.html)
  end)

  it("joins a negative number to the option before it, and only there", function()
    local p = argparse("demo")
    p:option("--size")
    p:flag("--quick")
    p:argument("rest"):args("*")
    assert.are.same({ "--size=-5", "--quick" }, argcheck.join_negatives(p, { "--size", "-5", "--quick" }))
    assert.are.same({ "--quick", "-5" }, argcheck.join_negatives(p, { "--quick", "-5" }))
    assert.are.same({ "--", "--size", "-5" }, argcheck.join_negatives(p, { "--", "--size", "-5" }))
    assert.are.same({ "--size", "-x" }, argcheck.join_negatives(p, { "--size", "-x" }))
  end)
end)
