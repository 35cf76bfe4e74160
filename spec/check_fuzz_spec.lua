-- The libFuzzer harness over the argument checks (spec/fuzz/check_fuzz.c:
-- rectangle bounds, compiler-log mapping, flags strings, kernel argument type
-- names), built with clang -fsanitize=fuzzer,address,undefined by
-- `make check-fuzz` and run for CHECK_FUZZ_SECONDS (default 20) from an empty
-- corpus. It must find nothing: no crash, sanitizer report or failed
-- property. Independent of the interpreter, so it runs once: with the plain
-- binary, not again under AddressSanitizer (.ci/test sets ASAN_OPTIONS).
-- Skipped where there is no Makefile to build it (bundle/test on a GPU machine).
local under_asan = (os.getenv("ASAN_OPTIONS") or "") ~= ""
local makefile = io.open("Makefile")
if makefile then makefile:close() end
local SECONDS = tonumber(os.getenv("CHECK_FUZZ_SECONDS") or "") or 20

describe("the argument checks under libFuzzer (spec/fuzz/check_fuzz.c)", function()
  local run = (under_asan or not makefile) and pending or it
  run("find nothing wrong: no crash, sanitizer report or failed property", function()
    local p = assert(io.popen(("make -s check-fuzz CHECK_FUZZ_SECONDS=%g 2>&1; echo \"exit=$?\""):format(SECONDS)))
    local out = p:read("a")
    p:close()
    local code = tonumber(out:match("exit=(%d+)%s*$"))
    print("\n" .. (out:match("(check-fuzz: [^\n]*)") or ""))
    assert.are.equal(0, code, "\n" .. out:sub(-6000))
    assert.truthy(out:find("Done %d+ runs"), "libFuzzer did not run:\n" .. out:sub(-3000))
  end)
end)
