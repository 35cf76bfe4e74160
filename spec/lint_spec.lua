-- make lint as part of make test: .ci/lint (luacheck over lua/, recipes/,
-- spec/, bench/ with .luacheckrc; cppcheck over host/) must report nothing.
-- Lint does not depend on the interpreter, so it runs once: with the plain
-- binary, not again under AddressSanitizer (.ci/test sets ASAN_OPTIONS).
local under_asan = (os.getenv("ASAN_OPTIONS") or "") ~= ""

describe("make lint", function()
  local run = under_asan and pending or it
  run("luacheck and cppcheck are clean (.ci/lint)", function()
    for _, tool in ipairs({ "luacheck", "cppcheck" }) do
      assert.is_true(os.execute("command -v " .. tool .. " >/dev/null 2>&1") == true,
        tool .. " is not installed: run make setup")
    end
    local p = assert(io.popen(".ci/lint 2>&1; echo \"exit=$?\""))
    local out = p:read("a")
    p:close()
    local code = tonumber(out:match("exit=(%d+)%s*$"))
    assert.are.equal(0, code, "\n" .. out)
  end)
end)
