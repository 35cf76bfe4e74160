-- Assignment mode (--kernel FILE, docs/assignments.md) in recipes/offset.lua,
-- recipes/stride.lua, recipes/banks.lua and recipes/scan.lua: for each, the
-- worked example of docs/examples/ (NAME_student.cl) runs, verified and
-- ranked beside the recipe's kernel(s); a wrong kernel ends the recipe with
-- the first wrong element and no table; a kernel writing one element past its
-- output is caught by the guard ("past the end"); --help carries the
-- contract. Every run --quick on the default device (PoCL in CI), sweeps cut
-- short with the recipes' options.
local support = require("spec.support.recipe")

local run, tables_of = support.run, support.tables_of

-- A kernel file (a temporary path) holding `source`; removed by the caller.
local kernel_file = require("spec.support.shell").write_temp

local CASES = {
  {
    recipe = "offset", name = "offsetCopy", args = "--max-offset 3", id = "offset-student", rows = 2,
    contract = "it must write odata[i] = idata[i] for offset <= i < offset + n",
    -- ignores the offset: right at offset 0, one element short at offset 1
    wrong = [[
__kernel void offsetCopy(__global float *odata, __global const float *idata, int offset)
{
    int xid = get_global_id(0);
    odata[xid] = idata[xid];
}]],
    wrong_err = "odata[1..1048577) (offset 1): 1 of 1048576 elements differ (exact); worst at index 1048575: "
      .. "got -2.87351825e-16, expected ", -- the harness's poison, bytes 0xA5
    first = "first at index 1048575: got -2.87351825e-16",
    -- the buffers hold n + 32 floats (--max-offset 3): odata[n + 32] is one past the end
    oob = [[
__kernel void offsetCopy(__global float *odata, __global const float *idata, int offset)
{
    int xid = get_global_id(0) + offset;
    odata[xid] = idata[xid];
    if (get_global_id(0) == 0) odata[get_global_size(0) + 32] = 0.0f;
}]],
    oob_err = "student: odata: 4 bytes written at offset 4194432, past the end (4194432 bytes) (after student: "
      .. "offsetCopy (%s), offset 0)",
  },
  {
    recipe = "stride", name = "strideCopy", args = "--max-stride 8", id = "stride-student", rows = 2,
    contract = "it must write odata[i * stride] = idata[i * stride] for 0 <= i < n",
    -- reads one element too far from stride 3 on
    wrong = [[
__kernel void strideCopy(__global float *odata, __global const float *idata, int stride)
{
    int xid = get_global_id(0) * stride;
    odata[xid] = idata[xid + (stride > 2)];
}]],
    wrong_err = "odata[i*3] (stride 3): 349440 of 349440 elements differ (exact)",
    first = "first at index 0: got ",
    -- at stride 1, n = m: odata[n] is one past the end
    oob = [[
__kernel void strideCopy(__global float *odata, __global const float *idata, int stride)
{
    int xid = get_global_id(0) * stride;
    odata[xid] = idata[xid];
    if (xid == 0) odata[get_global_size(0) * stride] = 0.0f;
}]],
    oob_err = "student: odata: 4 bytes written at offset 4194304, past the end (4194304 bytes) (after student: "
      .. "strideCopy (%s), stride 1)",
  },
  {
    recipe = "banks", name = "chase", args = "--groups 2 --iterations 8", id = "banks-student", rows = 2,
    contract = "it must write out[g] = acc * 65599 + i_0 + 3 i_1 + 5 i_2 + 7 i_3",
    -- one chain only
    wrong = [[
__kernel void chase(__global const uint *table, __global const uint *start, __global uint *out,
                    uint mask, int iterations, __local uint *buf)
{
    uint i = start[get_local_id(0)] & mask, acc = 0;
    for (int k = 0; k < iterations; k++) { uint v = table[i]; acc += v >> 16; i = v & mask; }
    out[get_global_id(0)] = acc * 65599u + i;
}]],
    wrong_err = "stride 1 (512 work-items x 4 chains x 8 reads): 512 of 512 elements differ (exact)",
    first = "first at index 0: got ",
    oob = [[
__kernel void chase(__global const uint *table, __global const uint *start, __global uint *out,
                    uint mask, int iterations, __local uint *buf)
{
    out[get_global_id(0)] = 0;
    if (get_global_id(0) == 0) out[get_global_size(0)] = 0;
}]],
    oob_err = "student: out: 4 bytes written at offset 2048, past the end (2048 bytes) (after student: chase (%s), "
      .. "stride 1)",
  },
  {
    recipe = "scan", name = "scan", args = "--size 256KiB", id = "scan", rows = 8,
    contract = "Group g must write the exclusive prefix sum of its block in[2Bg .. 2B(g + 1))",
    -- an inclusive scan
    wrong = [[
__kernel void scan(__global const uint *in, __global uint *out, __global uint *sums, uint n,
                   __local uint *temp)
{
    if (get_global_id(0) != 0) return;
    uint s = 0;
    for (uint i = 0; i < n; i++) { s += in[i]; out[i] = s; }
}]],
    wrong_err = "verify work-group scan, student: scan (%s): ",
    first = "first at index 0: got ",
    oob = [[
__kernel void scan(__global const uint *in, __global uint *out, __global uint *sums, uint n,
                   __local uint *temp)
{
    if (get_global_id(0) == 0) out[n] = 0;
}]],
    oob_err = "student: out: 4 bytes written at offset 262144, past the end (262144 bytes) (after work-group "
      .. "scan, student: scan (%s))",
  },
}

for _, c in ipairs(CASES) do
  describe("assignment mode in recipes/" .. c.recipe .. ".lua", function()
    it("ranks docs/examples/" .. c.recipe .. "_student.cl beside the recipe's kernels", function()
      local path = os.tmpname()
      local out, code, err = run(c.recipe, ("%s --kernel docs/examples/%s_student.cl --json %s"):format(c.args,
        c.recipe, path))
      assert.are.equal(0, code, err)
      local label = ("student: %s (%s_student.cl)"):format(c.name, c.recipe)
      local t = assert(tables_of(path)[c.id])
      assert.are.equal(c.rows, #t.rows)
      local ranks, student = {}, nil
      for _, row in ipairs(t.rows) do
        if row.variant:find(label, 1, true) then student = row end
        if row.rank then ranks[#ranks + 1] = row.rank end
      end
      assert.truthy(student, "no student row")
      assert.is_true(student.time > 0)
      assert.is_true(student.rank >= 1 and student.rank <= #ranks)
      assert.truthy(out:find(label .. " ranks " .. student.rank .. " of ", 1, true), out)
    end)

    it("fails a wrong kernel: the first wrong element, exit 1, no table", function()
      local file = kernel_file(c.wrong)
      local out, code, err = run(c.recipe, ("%s --kernel %s"):format(c.args, file))
      os.remove(file)
      local base = file:match("[^/]*$")
      assert.are.equal(1, code)
      assert.are.equal("", out)
      assert.truthy(err:find(("recipe %s: verify "):format(c.recipe), 1, true), err)
      assert.truthy(err:find(("student: %s (%s)"):format(c.name, base), 1, true), err)
      assert.truthy(err:find(c.wrong_err:format(base), 1, true), err)
      assert.truthy(err:find(c.first, 1, true), err)
    end)

    it("fails a kernel that writes one element past its output: past the end", function()
      local file = kernel_file(c.oob)
      local out, code, err = run(c.recipe, ("%s --kernel %s"):format(c.args, file))
      os.remove(file)
      assert.are.equal(1, code)
      assert.are.equal("", out)
      assert.truthy(err:find(c.oob_err:format(file:match("[^/]*$")), 1, true), err)
    end)

    it("says what the kernel must do in --help", function()
      local out, code = run(c.recipe, "--help")
      assert.are.equal(0, code)
      assert.truthy(out:find("--kernel FILE", 1, true), out)
      assert.truthy(out:find("Assignment mode (--kernel FILE): ", 1, true), out)
      assert.truthy(out:find(c.contract, 1, true), out)
    end)
  end)
end
