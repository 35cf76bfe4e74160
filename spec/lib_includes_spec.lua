-- clua.includes: a kernel's #include lines, read as the preprocessor reads
-- them, refused when they name a file that is not the submission's.
package.path = "lua/?.lua;" .. package.path
local includes = require("clua.includes")
local lfs = require("lfs")
local shell = require("spec.support.shell")

describe("clua.includes", function()
  local dir
  setup(function()
    dir = shell.run("mktemp -d"):match("[^\n]+")
    assert(lfs.mkdir(dir .. "/sub"))
    assert(lfs.mkdir(dir .. "/one"))
    for name, text in pairs({ ["sub/ok.h"] = "#define N 4\n", ["sub/nested.h"] = '#include "/etc/hostname"\n',
      ["one/other.cl"] = "kernel void x(void) {}\n", ["secret"] = "s\n" }) do
      local f = assert(io.open(dir .. "/" .. name, "w"))
      f:write(text)
      f:close()
    end
    assert(lfs.link(dir .. "/secret", dir .. "/sub/link.h", true))
  end)
  teardown(function() os.execute("rm -rf " .. shell.quote(dir)) end)

  local function check(src, single)
    if single then return includes.check(src, dir .. "/one/me.cl") end
    return includes.check(src, dir .. "/sub/k.cl", dir .. "/sub")
  end

  it("lets a submission include its own files, and headers by <name>", function()
    assert.is_nil(check('#include "ok.h"\nkernel void k(void) {}\n'))
    assert.is_nil(check('#include "./ok.h"\n#include <opencl-c-base.h>\n'))
    assert.is_nil(check('#include "not-here.h"\n'))            -- the compiler says it is not there
    assert.is_nil(check('/* #include "/etc/passwd" */\n// #include "/etc/passwd"\nint x;\n'))
    assert.is_nil(check('#define S "#include \\"/etc/passwd\\""\n'))
  end)

  it("refuses an absolute path, a way up, a link, and says where", function()
    assert.are.equal('k.cl line 2: #include "/etc/passwd" names an absolute path: a submission may include only its '
      .. "own files", check('int x;\n#include "/etc/passwd"\n'))
    assert.matches('#include <../x.h> goes up out of the submission', check("#include <../x.h>"), 1, true)
    assert.matches('#include "a/../../secret" goes up', check('#include "a/../../secret"'), 1, true)
    assert.matches('#include "link.h" passes through a symbolic link (link.h)', check('#include "link.h"'), 1, true)
    -- what an included file includes is checked too
    assert.matches('^nested%.h line 1: #include "/etc/hostname" names an absolute path', check('#include "nested.h"'))
  end)

  it("reads the lines as the preprocessor does: digraphs, trigraphs, splices, comments, a lone CR", function()
    for _, src in ipairs({ '%:include "/etc/passwd"', '??=include "/etc/passwd"', '#inc\\\nlude "/etc/passwd"',
      '# /* c */ include "/etc/passwd"', '#include "/etc/pa\\\nsswd"', 'int x;\r#include "/etc/passwd"',
      '  #  include_next "/etc/passwd"', '#import "/etc/passwd"' }) do
      assert.matches("names an absolute path", check(src) or "nil", 1, true)
    end
  end)

  it("refuses an include whose file is a macro, and __has_include of a foreign path", function()
    assert.matches("does not name its file between quotes or <>", check('#define F "/etc/passwd"\n#include F'), 1, true)
    assert.matches('__has_include("/etc/shadow") names an absolute path', check('#if __has_include("/etc/shadow")\n#endif'),
      1, true)
  end)

  it("lets a submission of one file include no file beside it (another student's)", function()
    assert.matches('#include "other.cl" names a file beside the kernel', check('#include "other.cl"', true), 1, true)
    assert.is_nil(check('#include "not-here.h"', true))
  end)

  it("gives the code as the compiler's tokens see it", function()
    assert.are.equal("int  x; \n#include \"a\"", includes.code("int /* c */x; // y\n??=inc\\\nlude \"a\""))
  end)
end)
