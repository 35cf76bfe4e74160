-- clua.files: a whole file read and written.
package.path = "lua/?.lua;" .. package.path
local files = require "clua.files"

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
end)
