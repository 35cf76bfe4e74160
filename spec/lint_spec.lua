-- make lint as part of make test: .ci/lint (luacheck over lua/, recipes/,
-- spec/, bench/ with .luacheckrc; cppcheck over host/; .ci/hostgraph, no
-- include or call cycle between host/ files) must report nothing, and
-- .ci/hostgraph must catch a cycle planted in a copy of host/.
-- Lint does not depend on the interpreter, so it runs once: with the plain
-- binary, not again under AddressSanitizer (.ci/test sets ASAN_OPTIONS).
local shell = require("spec.support.shell")

local under_asan = (os.getenv("ASAN_OPTIONS") or "") ~= ""
local run = under_asan and pending or it

local function installed(tool)
  assert.is_true(os.execute("command -v " .. tool .. " >/dev/null 2>&1") == true,
    tool .. " is not installed: run make setup")
end

describe("make lint", function()
  run("luacheck, cppcheck and hostgraph are clean (.ci/lint)", function()
    for _, tool in ipairs({ "luacheck", "cppcheck", "lua5.4", "nm" }) do installed(tool) end
    local out, code = shell.run(".ci/lint")
    assert.are.equal(0, code, "\n" .. out)
    assert.truthy(out:find("hostgraph: no include or call cycle", 1, true), out)
  end)
end)

describe(".ci/hostgraph", function()
  local tmp

  -- A copy of host/ (sources and build/obj's objects, times kept) in tmp.
  local function copy_host()
    tmp = os.tmpname()
    os.remove(tmp)
    local out, code = shell.run(("mkdir -p %s/obj && cp -p host/*.c host/*.h %s/ && cp -p build/obj/*.o %s/obj/")
      :format(shell.quote(tmp), shell.quote(tmp), shell.quote(tmp)))
    assert(code == 0, "no build/obj to copy (run make): " .. out)
  end

  local function write(name, text)
    local f = assert(io.open(tmp .. "/" .. name, "w"))
    f:write(text)
    f:close()
  end

  local function append(name, text)
    local f = assert(io.open(tmp .. "/" .. name, "a"))
    f:write(text)
    f:close()
  end

  -- Compiles tmp/NAME.c into tmp/obj/NAME.o as make does (the flags that matter).
  local function compile(name)
    local out, code = shell.run(("cc -std=c11 -D_POSIX_C_SOURCE=200809L $(pkg-config --cflags lua5.4) -I%s -c -o %s %s")
      :format(shell.quote(tmp), shell.quote(tmp .. "/obj/" .. name .. ".o"), shell.quote(tmp .. "/" .. name .. ".c")))
    assert(code == 0, out)
  end

  local function graph(...)
    local args = { ".ci/hostgraph", "-s", shell.quote(tmp) }
    for _, a in ipairs({ ... }) do args[#args + 1] = a end
    return shell.run(table.concat(args, " "))
  end

  after_each(function()
    if tmp then os.execute("rm -rf " .. shell.quote(tmp)) end
    tmp = nil
  end)

  run("passes host/ as it is, copied (the copy is what the cycles below are planted in)", function()
    copy_host()
    local out, code = graph("-o", shell.quote(tmp .. "/obj"))
    assert.are.equal(0, code, out)
    assert.truthy(out:find("no include or call cycle", 1, true), out)
  end)

  run("fails on an include cycle planted in host/'s headers, naming its path", function()
    copy_host()
    -- objects.h and check.h each include the other: the guards let it compile, the graph is circular
    append("check.h", '\n#include "objects.h"\n')
    append("objects.h", '\n#include "check.h"\n')
    local out, code = graph()
    assert.are.equal(1, code, out)
    assert.truthy(out:find("include cycle: " .. tmp .. "/check.h -> " .. tmp .. "/objects.h -> " .. tmp .. "/check.h",
      1, true), out)
  end)

  run("fails on a call cycle planted in host/'s files, naming the symbols each way", function()
    copy_host()
    -- pending.c uses check.c (clua_counts, through CLUA_CREATED): check.c calling pending.c closes a circle
    append("check.c", "\n#include \"queue.h\"\nvoid planted(cqueue *q);\nvoid planted(cqueue *q) { clua_queue_sweep(q); }\n")
    compile("check")
    local out, code = graph("-o", shell.quote(tmp .. "/obj"))
    assert.are.equal(1, code, out)
    local line = out:match("call cycle in [^\n]*")
    assert.truthy(line, out)
    assert.truthy(line:find(tmp .. "/check.c", 1, true) and line:find(tmp .. "/pending.c", 1, true)
      and line:find("clua_queue_sweep", 1, true), out)
  end)

  run("fails on a cycle of three files, and passes the same files once it is broken", function()
    tmp = os.tmpname()
    os.remove(tmp)
    os.execute("mkdir -p " .. shell.quote(tmp .. "/obj"))
    write("a.c", "void b(void);\nvoid a(void);\nvoid a(void) { b(); }\n")
    write("b.c", "void c(void);\nvoid b(void);\nvoid b(void) { c(); }\n")
    write("c.c", "void a(void);\nvoid c(void);\nint data;\nvoid c(void) { a(); }\n")
    for _, n in ipairs({ "a", "b", "c" }) do compile(n) end
    local out, code = graph("-o", shell.quote(tmp .. "/obj"))
    assert.are.equal(1, code, out)
    assert.truthy(out:find(("call cycle in %s/obj: %s/a.c -> %s/b.c (b) -> %s/c.c (c) -> %s/a.c (a)")
      :format(tmp, tmp, tmp, tmp, tmp), 1, true), out)
    write("c.c", "void a(void);\nvoid c(void);\nint data;\nvoid c(void) { data++; }\n")
    compile("c")
    out, code = graph("-o", shell.quote(tmp .. "/obj"))
    assert.are.equal(0, code, out)
  end)

  run("refuses objects older than their sources, or none, where they are required; skips them where optional", function()
    copy_host()
    os.execute("sleep 1; touch " .. shell.quote(tmp .. "/queue.c"))
    local out, code = graph("-o", shell.quote(tmp .. "/obj"))
    assert.are.equal(1, code, out)
    assert.truthy(out:find(tmp .. "/queue.c is newer than " .. tmp .. "/obj/queue.o (run make)", 1, true), out)
    out, code = graph("-O", shell.quote(tmp .. "/obj"))
    assert.are.equal(0, code, out)
    assert.truthy(out:find("skipped " .. tmp .. "/obj: ", 1, true), out)
    out, code = graph("-o", shell.quote(tmp .. "/none"))
    assert.are.equal(1, code, out)
    assert.truthy(out:find("no object files in " .. tmp .. "/none (run make)", 1, true), out)
    out, code = graph("-x")
    assert.are.equal(2, code, out)
    assert.truthy(out:find("unknown argument '-x'", 1, true), out)
  end)
end)
