-- recipes/grade.lua on untrusted and odd submissions (the template recipe's
-- triad, --quick at 4096 elements, on PoCL): a secret file is planted beside
-- the class and submissions try to read it (an absolute #include, a ../
-- include, an include through a symbolic link, a submission that is a link to
-- it); others are a named pipe, empty, binary, not UTF-8, over 1 MiB, without
-- a kernel, named with a newline, a CR, an escape code, quotes, a leading
-- dash, a comma, an accent, a leading dot, `a b` beside `a_b`, and one floods
-- its log with printf. Every entry gets one row and a verdict; no line of the
-- secret is in any file the grader writes; the logs stay within their bound.
-- The class graded again with the Oclgrind check on: its runs in the box too,
-- no secret written, the check's log of the printf flood capped. Then a setup
-- fault (no such device, a HOME the driver cannot write, no sandbox) stops the
-- grader before any verdict is written.
local json = require("dkjson")
local lfs = require("lfs")
local shell = require("spec.support.shell")
local box = require("spec.support.sandbox")

local clua = os.getenv("CLUA") or "build/clua"
local have_oclgrind = os.execute("command -v oclgrind >/dev/null 2>&1") == true
-- --no-check: the Oclgrind check has its own spec (grade_check_spec); here every run is the timed one
local OPTS = '--recipe template --recipe-options "--quick --size 4096 --local 64" --timeout 5 --wall 60 --no-check'
local TOKEN = "SECRETLINE-7f3a9c"
local CORRECT = shell.read("spec/fixtures/grade/triad/s01_correct.cl")
local PRINTF = [[
/* correct, and printing 32 lines in every work-item */
__kernel void triad(__global float *c, __global const float *a, __global const float *b, float scalar, uint n)
{
    size_t i = get_global_id(0);
    for (int k = 0; k < 32; k++) printf("work-item %u says %d\n", (uint)i, k);
    if (i < n) c[i] = a[i] + scalar * b[i];
}
]]

local function put(path, text)
  local f = assert(io.open(path, "wb"))
  f:write(text)
  f:close()
end

-- Every file under `dir`, recursively (links not followed).
local function all_files(dir, out)
  out = out or {}
  for name in lfs.dir(dir) do
    if name ~= "." and name ~= ".." then
      local p = dir .. "/" .. name
      local mode = lfs.symlinkattributes(p, "mode")
      if mode == "directory" then all_files(p, out) elseif mode == "file" then out[#out + 1] = p end
    end
  end
  return out
end

local function grade(argv, dir, env)
  local errf = dir .. "/stderr"
  local p = assert(io.popen(("%s %s recipes/grade.lua %s 2> %s; echo \"exit=$?\""):format(env or "", clua, argv,
    errf)))
  local out = p:read("a")
  p:close()
  return out, tonumber(out:match("exit=(%d+)%s*$")), shell.slurp(errf) or ""
end

describe("recipes/grade.lua on untrusted submissions", function()
  local dir, class, out, code, err, rows, doc

  setup(function()
    dir = shell.run("mktemp -d"):match("[^\n]+")
    class = dir .. "/class"
    assert(os.execute(("mkdir -p %s/secret %s/linker"):format(shell.quote(dir), shell.quote(class))))
    local secret = dir .. "/secret/passwd.txt"
    put(secret, TOKEN .. " root:x:0:0\n")
    put(class .. "/ok.cl", CORRECT)
    put(class .. "/abs.cl", ('#include "%s"\n'):format(secret) .. CORRECT)
    put(class .. "/up.cl", '#include "../secret/passwd.txt"\n' .. CORRECT)
    put(class .. "/linker/triad.cl", '#include "x.h"\n' .. CORRECT)
    assert(lfs.link(secret, class .. "/linker/x.h", true))
    assert(lfs.link(secret, class .. "/shadow.cl", true))
    assert(os.execute("mkfifo " .. shell.quote(class .. "/pipe.cl")))
    put(class .. "/empty.cl", "")
    put(class .. "/binary.cl", "__kernel void triad() {}\0\1\2")
    put(class .. "/latin1.cl", "/* caf\xe9 */ __kernel void triad() {}\n")
    put(class .. "/huge.cl", ("/* padding */\n"):rep(80000) .. CORRECT)
    put(class .. "/nokernel.cl", "void triad(void) {}\n")
    put(class .. "/printf.cl", PRINTF)
    put(class .. "/-dash.cl", CORRECT)
    put(class .. "/quote\"s'.cl", CORRECT)
    for _, name in ipairs({ "a b", "a_b", "new\nline", "cr\rname", "esc\27[31mred", "comma,name", "accentué", ".dot" }) do
      put(class .. "/" .. name .. ".cl", "")
    end
    put(class .. "/notes.txt", "not a submission")
    out, code, err = grade(("%s --submissions %s --out %s%s"):format(OPTS, shell.quote(class),
      shell.quote(dir .. "/out/gb"), box.flag), dir)
    doc = json.decode(shell.slurp(dir .. "/out/gb.json") or "null")
    rows = {}
    for _, r in ipairs(doc and doc.tables and doc.tables[1].rows or {}) do rows[r.student] = r end
  end)

  teardown(function() os.execute("rm -rf " .. shell.quote(dir)) end)

  it("gives every entry one row, its name kept exactly, and grades to the end (the named pipe never opened)", function()
    assert.are.equal(0, code, err)
    local names = {}
    for name in pairs(rows) do names[#names + 1] = name end
    table.sort(names)
    assert.are.same({ "-dash", ".dot", "a b", "a_b", "abs", "accentué", "binary", "comma,name", "cr\rname", "empty",
      "esc\27[31mred", "huge", "latin1", "linker", "new\nline", "nokernel", "ok", "pipe", "printf", "quote\"s'",
      "shadow", "up" }, names)
    for _, s in ipairs({ "ok", "-dash", "quote\"s'", "printf" }) do assert.are.equal("correct", rows[s].verdict, s) end
  end)

  it("decides what cannot be a kernel before any run, with the reason", function()
    local want = {
      abs = "names an absolute path", up = "goes up out of the submission's folder",
      linker = "passes through a symbolic link (x.h)", shadow = "not a regular file: a symbolic link",
      pipe = "not a regular file: a named pipe", empty = "an empty file", ["a b"] = "an empty file",
      binary = "a binary file, not OpenCL C (a NUL byte at byte 25)", latin1 = "not UTF-8 text (byte 7 is not)",
      huge = "over 1 MiB", nokernel = "no kernel in it",
    }
    for s, why in pairs(want) do
      assert.are.equal("did not build", rows[s].verdict, s)
      assert.matches(why, rows[s].reason, 1, true)
      assert.are.equal(0, rows[s].score, s)
    end
    assert.matches('^abs%.cl line 1: #include ".*/secret/passwd%.txt" names an absolute path', rows.abs.reason)
    -- no run was made of them: no log
    for _, s in ipairs({ "abs", "up", "linker", "shadow", "pipe", "empty", "binary", "huge" }) do
      assert.is_nil(lfs.attributes(dir .. "/out/gb-logs/" .. s .. ".err"), s)
    end
  end)

  it("writes no line of the planted secret in any file, nor on the terminal", function()
    local list = all_files(dir .. "/out")
    assert.is_true(#list > 20, #list)
    for _, f in ipairs(list) do
      assert.falsy(shell.read(f):find("7f3a9c", 1, true), f)
    end
    assert.falsy(out:find("7f3a9c", 1, true))
    assert.falsy(err:find("7f3a9c", 1, true))
  end)

  it("writes one feedback file per student: a b and a_b apart, odd names made safe", function()
    local fb = {}
    for name in lfs.dir(dir .. "/out/gb-feedback") do
      if name:match("%.md$") then
        fb[#fb + 1] = name
        assert.matches("^[%w_][%w%._%-]*%.md$", name)
      end
    end
    assert.are.equal(22, #fb)
    local ab, a_b = shell.read(dir .. "/out/gb-feedback/a_b.md"), shell.read(dir .. "/out/gb-feedback/a_b-2.md")
    assert.matches(": a b\n", ab, 1, true)
    assert.matches(": a_b\n", a_b, 1, true)
    assert.is_not_nil(lfs.attributes(dir .. "/out/gb-feedback/_.dot.md"))
    assert.is_not_nil(lfs.attributes(dir .. "/out/gb-feedback/_-dash.md"))
  end)

  it("caps a printf flood's log, counts what was cut and names printf's cost in the feedback", function()
    local log = shell.read(dir .. "/out/gb-logs/printf.log")
    assert.is_true(#log <= 1024 * 1024 + 200, #log)
    local cut, lines = log:match("%[clua grade: (%d+) bytes %((%d+) lines%) of output cut here")
    assert.is_true(tonumber(cut) > 1e6, log:sub(1, 200))
    assert.is_true(tonumber(lines) > 40000)
    local fb = shell.read(dir .. "/out/gb-feedback/printf.md")
    assert.matches("your kernel calls printf: the run printed %d+ bytes %(%d+ lines%)", fb)
    assert.matches("the log keeps the first and the last 512 KiB", fb, 1, true)
    assert.falsy(shell.read(dir .. "/out/gb-feedback/ok.md"):find("printf", 1, true))
    -- every run's files within 3 MiB (log, error log, JSON: 1 MiB each)
    local per = {}
    for _, f in ipairs(all_files(dir .. "/out/gb-logs")) do
      local stem = f:match("([^/]*)%.%a+$")
      per[stem] = (per[stem] or 0) + lfs.attributes(f, "size")
    end
    for stem, bytes in pairs(per) do assert.is_true(bytes <= 3 * (1024 * 1024 + 200), stem .. ": " .. bytes) end
  end)

  it("says in the gradebook that the runs were sandboxed", function()
    if not box.ok then pending("the sandbox cannot start here: " .. tostring(box.why)) return end
    local meta = doc.tables[1].meta
    assert.matches("^bubblewrap [%d.]+: a read%-only system, a private /tmp and HOME, no network", meta.sandbox)
    assert.matches("- sandbox: bubblewrap", shell.read(dir .. "/out/gb.md"), 1, true)
  end)

  describe("with the check on (each run also under Oclgrind, in the box)", function()
    local cout, ccode, cerr, crows, cdoc

    setup(function()
      if not have_oclgrind then return end
      cout, ccode, cerr = grade(("%s --submissions %s --out %s%s"):format((OPTS:gsub(" %-%-no%-check", "")),
        shell.quote(class), shell.quote(dir .. "/checked/gb"), box.flag), dir)
      cdoc = json.decode(shell.slurp(dir .. "/checked/gb.json") or "null")
      crows = {}
      for _, r in ipairs(cdoc and cdoc.tables and cdoc.tables[1].rows or {}) do crows[r.student] = r end
    end)

    it("writes no line of the planted secret in any file, and caps a printf flood's check log", function()
      if not have_oclgrind then pending("oclgrind is not installed (apt-get install oclgrind)") return end
      assert.are.equal(0, ccode, cerr)
      for _, s in ipairs({ "ok", "-dash", "quote\"s'", "printf" }) do assert.are.equal("correct", crows[s].verdict, s) end
      assert.are.equal("did not build", crows.abs.verdict)
      local list = all_files(dir .. "/checked")
      assert.is_true(#list > 20, #list)
      for _, f in ipairs(list) do assert.falsy(shell.read(f):find("7f3a9c", 1, true), f) end
      assert.falsy(cout:find("7f3a9c", 1, true))
      assert.falsy(cerr:find("7f3a9c", 1, true))
      -- the check's log of the printing kernel, capped as the timed run's
      local log = shell.read(dir .. "/checked/gb-logs/printf-check.log")
      assert.is_true(#log <= 1024 * 1024 + 200, #log)
      local cut = log:match("%[clua grade: (%d+) bytes %(%d+ lines%) of output cut here")
      assert.is_true(tonumber(cut) > 1e6, log:sub(1, 200))
      assert.matches("work%-item %d+ says %d+\n", log)
      if box.ok then assert.matches(", in the sandbox, ", cdoc.tables[1].meta.check, 1, true) end
    end)
  end)

  describe("a setup fault stops the grader before any verdict", function()
    local function nothing_written(stem)
      for _, suffix in ipairs({ ".csv", ".json", ".md", "-moodle.csv", "-canvas.csv", "-feedback", "-logs" }) do
        assert.is_nil(lfs.attributes(stem .. suffix), stem .. suffix)
      end
    end
    local small

    setup(function()
      small = dir .. "/small"
      assert(os.execute("mkdir -p " .. shell.quote(small)))
      put(small .. "/ok.cl", CORRECT)
    end)

    it("on a device that is not there", function()
      local _, c, e = grade(("%s --submissions %s --out %s%s"):format(OPTS, shell.quote(small),
        shell.quote(dir .. "/dev/gb"), box.flag), dir, "CLUA_DEVICE=garbage")
      assert.are.equal(2, c, e)
      assert.matches("grade: template: the recipe's own kernels did not run", e, 1, true)
      assert.matches("no OpenCL device matches 'garbage'", e, 1, true)
      assert.matches("nothing was graded", e, 1, true)
      assert.falsy(e:find("[1/", 1, true))
      nothing_written(dir .. "/dev/gb")
    end)

    it("with a HOME the driver cannot write (no sandbox: the runs keep the grader's HOME)", function()
      -- PoCL cannot start without a writable cache folder; NVIDIA's driver runs
      -- without one (it only skips its compute cache), so there it is no fault
      local platform = shell.run(clua .. [[ -e 'io.write(require("cl").device().info.platform)']])
      if not platform:find("Portable Computing Language", 1, true) then
        return pending("PoCL only: a driver that needs no writable HOME has no fault to stop on")
      end
      put(dir .. "/homefile", "")
      local _, c, e = grade(("%s --submissions %s --out %s --no-sandbox"):format(OPTS, shell.quote(small),
        shell.quote(dir .. "/home/gb")), dir, "HOME=" .. shell.quote(dir .. "/homefile") .. " XDG_CACHE_HOME=")
      assert.are.equal(2, c, e)
      assert.matches("the recipe's own kernels did not run, so no submission can be graded here", e, 1, true)
      assert.matches("no OpenCL platform", e, 1, true)
      nothing_written(dir .. "/home/gb")
    end)

    it("without bubblewrap, unless --no-sandbox is given, and the gradebook says which", function()
      -- a PATH with timeout and the linker PoCL runs (where its kernel cache is cold) and nothing else: no bwrap
      local bin = dir .. "/bin"
      assert(os.execute("mkdir -p " .. shell.quote(bin) .. " && ln -s \"$(command -v timeout)\" \"$(command -v ld)\" "
        .. shell.quote(bin)))
      local env = "PATH=" .. shell.quote(bin)
      local _, c, e = grade(("%s --submissions %s --out %s"):format(OPTS, shell.quote(small),
        shell.quote(dir .. "/nobox/gb")), dir, env)
      assert.are.equal(2, c, e)
      assert.matches("grade: the sandbox cannot start: bubblewrap (bwrap) is not installed (Debian: apt-get install "
        .. "bubblewrap); nothing was graded (--no-sandbox grades without it)", e, 1, true)
      nothing_written(dir .. "/nobox/gb")
      _, c, e = grade(("%s --submissions %s --out %s --no-sandbox"):format(OPTS, shell.quote(small),
        shell.quote(dir .. "/nobox/gb")), dir, env)
      assert.are.equal(0, c, e)
      local d = json.decode(shell.read(dir .. "/nobox/gb.json"))
      assert.are.equal("correct", d.tables[1].rows[1].verdict)
      assert.matches("^none %(%-%-no%-sandbox%)", d.tables[1].meta.sandbox)
    end)
  end)
end)
