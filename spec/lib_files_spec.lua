-- clua.files: a whole file read and written.
package.path = "lua/?.lua;" .. package.path
local files = require("clua.files")

describe("clua.files", function()
  it("writes a file whole and reads it back", function()
    local path = os.tmpname()
    files.write(path, "one\ntwo\n")
    assert.are.equal("one\ntwo\n", files.read(path))
    files.write(path, "")
    assert.are.equal("", files.read(path))
    os.remove(path)
  end)

  it("reads nil from a file that is not there, and says why it cannot write", function()
    assert.is_nil(files.read("/no/such/file"))
    assert.is_false(files.readable("/no/such/file"))
    assert.is_true(files.readable("spec/lib_files_spec.lua"))
    local ok, err = pcall(files.write, "/no/such/dir/file", "x")
    assert.is_false(ok)
    assert.matches("cannot write /no/such/dir/file", err, 1, true)
  end)

  it("write_or_exit: a write that fails ends the program, status 1, with the file and the reason (no traceback)",
    function()
      local shell = require("spec.support.shell")
      local clua = os.getenv("CLUA") or "build/clua"
      local out, code = shell.run(clua .. [[ -e 'require("clua.files").write_or_exit("card", "/dev/full", "x")' ]])
      assert.are.equal(1, code, out)
      assert.are.equal("card: cannot write /dev/full: No space left on device\n", out)
      local path = os.tmpname()
      out, code = shell.run(("%s -e 'require(\"clua.files\").write_or_exit(\"card\", %q, \"ok\")'"):format(clua, path))
      assert.are.equal(0, code, out)
      assert.are.equal("ok", files.read(path))
      os.remove(path)
    end)
end)
