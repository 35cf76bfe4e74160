-- recipes/template.lua --quick on the default device (PoCL in CI): the table
-- and plot, CLUA_CORRUPT, and a student's triad (--kernel) ranked beside the
-- template's own kernels.
local json = require("dkjson")
local support = require("spec.support.recipe")

local run = support.runner("template", { env_first = true })
local slurp = support.slurp

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
  return path
end

local STUDENT = [[
__kernel void my_triad(__global float *c, __global const float *a, __global const float *b,
                       float scalar, uint n)
{
    size_t i = get_global_id(0);
    if (i < n) c[i] = fma(scalar, b[i], a[i]);
}
]]

describe("recipe template", function()
  it("runs --quick: every variant and work-group size verified, a table and a plot", function()
    local path = os.tmpname()
    local out, code, err = run(nil, "--json " .. path)
    assert.are.equal(0, code, err)
    assert.truthy(out:find("Triad c = a + 3 b on 262144 floats (1 MiB per array)", 1, true), out)
    assert.truthy(out:find("Triad: effective bandwidth by work-group size", 1, true))
    local doc = json.decode(slurp(path))
    os.remove(path)
    local t = doc.tables[1]
    assert.are.equal("triad", t.id)
    assert.are.equal(4, #t.rows)
    for _, r in ipairs(t.rows) do
      assert.is_true(r.time > 0 and r.bandwidth > 0)
      assert.is_nil(r.rank)
    end
  end)

  it("leaves out, with a note, a work-group size the driver refuses", function()
    local path = os.tmpname()
    local _, code, err = run("LUA_INIT_5_4=@spec/refuse_shim.lua", "--local 64,512 --json " .. path)
    assert.are.equal(0, code, err)
    local t = json.decode(slurp(path)).tables[1]
    os.remove(path)
    assert.are.equal(2, #t.rows)
    for _, r in ipairs(t.rows) do assert.are.equal(64, r["local"]) end
    local notes = table.concat(t.notes, "\n")
    assert.truthy(notes:find("triad (float), local size 512: left out, the driver refused it: CL_INVALID_WORK_GROUP_SIZE",
      1, true), notes)
  end)

  it("exits non-zero with no figure when a result is corrupted", function()
    local out, code, err = run("CLUA_CORRUPT=template")
    assert.are_not.equal(0, code)
    assert.falsy(out:find("GB/s", 1, true))
    assert.truthy(err:find("recipe template: verify triad", 1, true), err)
    assert.truthy(err:find("first at index 131072", 1, true), err)
  end)

  it("times, checks and ranks a student's kernel (--kernel)", function()
    local cl = write(os.tmpname() .. ".cl", STUDENT)
    local path = os.tmpname()
    local out, code, err = run(nil, "--local 64 --reps 1 --kernel " .. cl .. " --json " .. path)
    os.remove(cl)
    assert.are.equal(0, code, err)
    local t = json.decode(slurp(path)).tables[1]
    os.remove(path)
    assert.are.equal(3, #t.rows)
    local ranks = {}
    for _, r in ipairs(t.rows) do ranks[#ranks + 1] = r.rank end
    table.sort(ranks)
    assert.are.same({ 1, 2, 3 }, ranks)
    assert.truthy(t.rows[3].variant:find("^student: my_triad %("), t.rows[3].variant)
    assert.truthy(out:find("ranks %d of 3 by time"), out)
  end)

  it("fails a student's kernel that writes an element of c outside the part it owns, naming it", function()
    -- right for every i < n; its last work-item also writes past n, which the check on n - 1 elements shows
    local out, code, err = run(nil, "--local 64 --reps 1 --kernel spec/fixtures/own/template_outside.cl")
    assert.are.equal(1, code, err)
    assert.are.equal("", out)
    assert.truthy(err:find("student: triad (template_outside.cl), local size 64, n - 1 elements: c[262143] "
      .. "written outside the part the kernel owns (c[0 .. 262143) of 262144 elements", 1, true), err)
  end)

  it("fails a student's kernel that writes past the end of c (a guard zone)", function()
    local out, code, err = run(nil, "--local 64 --reps 1 --kernel spec/fixtures/own/template_past_end.cl")
    assert.are.equal(1, code, err)
    assert.are.equal("", out)
    assert.truthy(err:find("student: c: 4 bytes written at offset 1048576, past the end (1048576 bytes)", 1, true),
      err)
  end)
end)
