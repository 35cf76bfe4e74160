-- Assignment mode's --grading (the grader's runs, clua.gradetime): check runs
-- the recipe's own variants once, untimed and unchecked, and checks the
-- student's kernel as ever (a wrong one, one writing past its buffer and one
-- changing its input still fail, named); verify checks it in one run; a bad
-- mode, or --grading without --kernel, is refused; every table says which
-- mode made it.
local json = require("dkjson")
local shell = require("spec.support.shell")

local clua = os.getenv("CLUA") or "build/clua"
local FIX = "spec/fixtures/grade/reduction/"

local function run(args)
  local out, code = shell.run(("%s recipes/reduction.lua --quick --size 64KiB %s 2>&1"):format(clua, args))
  return out, code
end

describe("assignment mode's --grading", function()
  local dir
  setup(function() dir = os.tmpname(); os.remove(dir); assert(os.execute("mkdir -p " .. dir)) end)
  teardown(function() os.execute("rm -rf " .. dir) end)

  it("check: the recipe's own variants run once, the student's kernel is checked and timed", function()
    local out, code = run(("--kernel %sr01_fast.cl --grading check --json %s/c.json"):format(FIX, dir))
    assert.are.equal(0, code, out)
    local doc = json.decode(shell.slurp(dir .. "/c.json"))
    local t = doc.tables[1]
    local notes = table.concat(t.notes, "\n")
    assert.matches("--grading check: the recipe's own variants ran once each, neither timed nor checked", notes, 1, true)
    assert.matches("the student's kernel was checked and timed", notes, 1, true)
    local student
    for _, r in ipairs(t.rows) do if tostring(r.variant):match("^student: ") then student = r end end
    assert.truthy(student, "the student's row")
    assert.is_true(student.time > 0 and student.rank >= 1)
    -- every table of the run says so
    for _, tb in ipairs(doc.tables) do assert.matches("--grading check", table.concat(tb.notes, "\n"), 1, true) end
  end)

  it("check and verify still fail a wrong kernel, a write past the buffer and a changed input, naming them", function()
    for _, mode in ipairs({ "check", "verify" }) do
      local out, code = run(("--kernel %sr03_tail.cl --grading %s"):format(FIX, mode))
      assert.are.equal(1, code, out)
      assert.matches("verify", out, 1, true)
      out, code = run(("--kernel %sr05_past.cl --grading %s"):format(FIX, mode))
      assert.are.equal(1, code, out)
      assert.matches("past the end", out, 1, true)
    end
    local scribble = dir .. "/scribble.cl"
    require("clua.files").write(scribble, [[
__kernel void reduce(__global const float *in, __global float *out, uint n, __local float *sdata)
{
    __global float *w = (__global float *)in;
    uint tid = get_local_id(0);
    size_t i = get_group_id(0) * 2 * get_local_size(0) + tid;
    float x = i < n ? in[i] : 0.0f;
    if (i + get_local_size(0) < n) x += in[i + get_local_size(0)];
    sdata[tid] = x;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint s = get_local_size(0) / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (tid == 0) { out[get_group_id(0)] = sdata[0]; if (get_group_id(0) == 0) w[5] = -1.0f; }
}
]])
    local out, code = run(("--kernel %s --grading check"):format(scribble))
    assert.are.equal(1, code, out)
    assert.matches("an input changed", out, 1, true)
  end)

  it("verify: the student's kernel checked in one run; time: timed and not checked", function()
    local out, code = run(("--kernel %sr01_fast.cl --grading verify --json %s/v.json"):format(FIX, dir))
    assert.are.equal(0, code, out)
    local notes = table.concat(json.decode(shell.slurp(dir .. "/v.json")).tables[1].notes, "\n")
    assert.matches("checked and run once (not timed)", notes, 1, true)
    out, code = run(("--kernel %sr01_fast.cl --grading time --json %s/t.json"):format(FIX, dir))
    assert.are.equal(0, code, out)
    notes = table.concat(json.decode(shell.slurp(dir .. "/t.json")).tables[1].notes, "\n")
    assert.matches("timed, not checked (a check run did that)", notes, 1, true)
  end)

  it("refuses a mode it does not know, and --grading without --kernel", function()
    local out, code = run("--kernel " .. FIX .. "r01_fast.cl --grading fast")
    assert.are.equal(2, code, out)
    assert.matches("recipe reduction: argument for option '--grading' must be one of 'check', 'verify', 'time'", out,
      1, true)
    out, code = run("--grading check")
    assert.are.equal(2, code, out)
    assert.matches("recipe reduction: --grading check needs --kernel FILE", out, 1, true)
  end)
end)
