-- clua.submissions and clua.paths: the students of a folder listed through
-- the file system's API (any name, a named pipe never opened), a file name of
-- its own for each, and a kernel's verdict before any run.
package.path = "lua/?.lua;" .. package.path
local submissions = require("clua.submissions")
local paths = require("clua.paths")
local lfs = require("lfs")
local shell = require("spec.support.shell")

local function put(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

describe("clua.submissions", function()
  local dir
  before_each(function() dir = shell.run("mktemp -d"):match("[^\n]+") end)
  after_each(function() os.execute("rm -rf " .. shell.quote(dir)) end)

  it("lists every .cl file and folder, names kept byte for byte, and refuses what is not a regular file", function()
    local odd = { "new\nline", "cr\rname", "esc\27]0;title\7", "quote\"s'", "-dash", "comma,name", "accentué", ".dot",
      "a b", "a_b", "..", "--help" }
    for _, n in ipairs(odd) do put(dir .. "/" .. n .. ".cl", "kernel void k(void) {}\n") end
    put(dir .. "/notes.txt", "x")
    assert(lfs.mkdir(dir .. "/bob"))
    assert(lfs.mkdir(dir .. "/bob/.git"))
    assert(lfs.mkdir(dir .. "/.git"))
    put(dir .. "/bob.cl", "kernel void k(void) {}\n")
    assert(lfs.link("/etc/passwd", dir .. "/link.cl", true))
    assert(lfs.link("/etc", dir .. "/linkdir", true))
    assert(os.execute("mkfifo " .. shell.quote(dir .. "/fifo.cl")))
    assert(os.execute(("python3 -c 'import socket, sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' %s")
      :format(shell.quote(dir .. "/sock.cl"))))
    local list = submissions.list(dir)
    local by = {}
    for _, s in ipairs(list) do by[s.name] = s end
    for _, n in ipairs(odd) do
      assert.is_not_nil(by[n], n)
      assert.are.equal(dir .. "/" .. n .. ".cl", by[n].file)
    end
    assert.is_nil(by.notes)
    assert.is_nil(by[".git"])
    -- the folder bob comes first by its bytes; bob.cl is then "bob (2)"
    assert.is_true(by.bob.dir and by.bob.git)
    assert.are.equal(dir .. "/bob.cl", by["bob (2)"].file)
    assert.are.equal("not a regular file: a symbolic link", by.link.refused)
    assert.are.equal("not a folder of its own: a symbolic link", by.linkdir.refused)
    assert.are.equal("not a regular file: a named pipe", by.fifo.refused)
    assert.are.equal("not a regular file: a socket", by.sock.refused)
    assert.are.equal(#odd + 6, #list)
    -- a course: folders only
    local course = submissions.list(dir, true)
    assert.are.same({ "bob", "linkdir" }, { course[1].name, course[2].name })
  end)

  it("gives each student a file stem of its own: safe bytes, no leading dot or dash, unique ignoring case", function()
    local list = { { name = "a b" }, { name = "a_b" }, { name = "A_B" }, { name = ".x" }, { name = "-x" }, { name = "" },
      { name = "new\nline" }, { name = ("é"):rep(100) } }
    submissions.stems(list)
    local stems = {}
    for i, s in ipairs(list) do stems[i] = s.stem end
    assert.are.same({ "a_b", "a_b-2", "A_B-3", "_.x", "_-x", "_", "new_line", ("_"):rep(64) }, stems)
  end)

  it("finds a folder's kernel: the one named, else its only .cl file", function()
    assert(lfs.mkdir(dir .. "/s"))
    put(dir .. "/s/a.cl", "x")
    local s = { name = "s", path = dir .. "/s", dir = true }
    assert.are.equal(dir .. "/s/a.cl", submissions.kernel(s))
    put(dir .. "/s/b.cl", "x")
    assert.are.same({ nil, "2 .cl files in the folder" }, { submissions.kernel(s) })
    assert.are.same({ nil, "no reduce.cl in the folder" }, { submissions.kernel(s, "reduce.cl") })
    assert.are.equal(dir .. "/s/b.cl", submissions.kernel(s, "b.cl"))
  end)

  it("gives a kernel its verdict before any run: empty, binary, not UTF-8, too big, no kernel, a foreign include", function()
    local cases = {
      { "", "an empty file" },
      { "kernel void k(void) {}\0", "a binary file, not OpenCL C (a NUL byte at byte 23)" },
      { "// caf\xe9\nkernel void k(void) {}", "not UTF-8 text (byte 7 is not)" },
      { "\xed\xa0\x80 kernel", "not UTF-8 text (byte 1 is not)" },                 -- a UTF-16 surrogate
      { ("/**/\n"):rep(210000) .. "kernel void k(void) {}", "over 1 MiB (1050022 bytes)" },
      { "void f(void) {}\n// kernel\n", "no kernel in it (no `kernel` or `__kernel` function)" },
      { '#include "/etc/passwd"\nkernel void k(void) {}', 'k.cl line 1: #include "/etc/passwd" names an absolute path' },
    }
    for _, c in ipairs(cases) do
      put(dir .. "/k.cl", c[1])
      local src, why = submissions.read(dir .. "/k.cl")
      assert.is_nil(src)
      assert.are.equal(c[2], why:sub(1, #c[2]))
    end
    put(dir .. "/k.cl", "__kernel void k(void) {}\n")
    assert.are.equal("__kernel void k(void) {}\n", submissions.read(dir .. "/k.cl"))
    -- a kernel reached through a link inside a student's folder is not read
    assert(lfs.mkdir(dir .. "/s"))
    assert(lfs.link(dir, dir .. "/s/src", true))
    assert.are.same({ nil, "not a regular file: a symbolic link" }, { submissions.read(dir .. "/s/src/k.cl", dir .. "/s") })
    assert(os.execute("mkfifo " .. shell.quote(dir .. "/f.cl")))
    assert.are.same({ nil, "not a regular file: a named pipe" }, { submissions.read(dir .. "/f.cl") })
  end)
end)

describe("clua.paths", function()
  local dir
  before_each(function() dir = shell.run("mktemp -d"):match("[^\n]+") end)
  after_each(function() os.execute("rm -rf " .. shell.quote(dir)) end)

  it("makes folders with their parents, a leading dash a name, and removes a tree without following links", function()
    local here = lfs.currentdir()
    assert(lfs.chdir(dir))
    assert.is_true(paths.mkdirs("-x/y/z"))
    assert.is_true(paths.is_dir(dir .. "/-x/y/z"))
    assert.are.equal(dir .. "/-x", paths.absolute("-x"))
    assert.are.equal(dir .. "/-x", paths.absolute("./-x"))
    assert.are.equal(lfs.currentdir(), paths.absolute("."))
    assert(lfs.chdir(here))
    assert(lfs.mkdir(dir .. "/keep"))
    put(dir .. "/keep/f", "x")
    assert(lfs.link(dir .. "/keep", dir .. "/-x/y/link", true))
    paths.remove_tree(dir .. "/-x")
    assert.is_nil(paths.kind(dir .. "/-x"))
    assert.are.equal("file", paths.kind(dir .. "/keep/f"))
    local ok, err = paths.mkdirs(dir .. "/keep/f/sub")
    assert.is_nil(ok)
    assert.matches("cannot make the folder " .. dir .. "/keep/f", err, 1, true)
  end)

  it("follows every link on a path, as realpath does, and gives up on a loop", function()
    assert(lfs.mkdir(dir .. "/a"))
    assert(lfs.link(dir .. "/a", dir .. "/b", true))
    assert(lfs.link("b/../a/x", dir .. "/c", true))
    assert(lfs.link("loop2", dir .. "/loop1", true))
    assert(lfs.link("loop1", dir .. "/loop2", true))
    local real = shell.run("realpath " .. shell.quote(dir)):match("[^\n]+")
    assert.are.equal(real .. "/a/y", paths.real(dir .. "/b/y"))
    assert.are.equal(real .. "/a/x", paths.real(dir .. "/c"))
    assert.are.equal(real .. "/a/z", paths.real(dir .. "/b/../b/./z"))
    assert.is_nil(paths.real(dir .. "/loop1"))
    assert.are.equal("/", paths.real("/"))
  end)

  it("finds a program on PATH, and makes a temporary folder of its own", function()
    assert.matches("/sh$", paths.which("sh"))
    assert.is_nil(paths.which("no-such-program-clua"))
    local t = assert(paths.tempdir("clua-spec"))
    assert.is_true(paths.is_dir(t))
    assert.are_not.equal(t, paths.tempdir("clua-spec"))
    paths.remove_tree(t)
  end)
end)
