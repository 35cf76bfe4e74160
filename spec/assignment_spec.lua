-- Assignment mode (--kernel FILE, docs/assignments.md): a student's kernel is
-- verified by the recipe's CPU reference and ranked beside the recipe's own
-- variants; a wrong one makes the recipe exit non-zero, naming the first
-- mismatching element, with no figure printed. Runs recipes/reduction.lua and
-- recipes/transpose.lua --quick on the default device (PoCL in CI) with the
-- kernels of docs/examples/.
package.path = "lua/?.lua;" .. package.path
local recipe = require("clua.recipe")
local report = require("clua.report")
local support = require("spec.support.recipe")

local run, tables_of = support.run, support.tables_of

describe("assignment mode", function()
  it("R:rank ranks the rows by time, leaves out filtered rows, and notes the student's place", function()
    local R = recipe.new{ name = "demo", args = { "--kernel", "x.cl" }, student = "any kernel" }
    R.student_label = "student: k (x.cl)"
    local t = report.new{ title = "T", columns = { { name = "variant", key = true }, "time" } }
    t:add{ variant = "copy", time = 1 }
    t:add{ variant = "a", time = 30 }
    t:add{ variant = "student: k (x.cl)", time = 20 }
    t:add{ variant = "b", time = 10 }
    local ranked = R:rank(t, "time", function(row) return row.variant ~= "copy" end)
    assert.are.equal(3, #ranked)
    assert.are.same({ nil, 3, 2, 1 }, { t.rows[1].rank, t.rows[2].rank, t.rows[3].rank, t.rows[4].rank })
    assert.truthy(t:column("rank"))
    assert.truthy(table.concat(t.notes, "\n"):find("student: k (x.cl) ranks 2 of 3 by time (the best: b)", 1, true))
  end)

  it("is offered only by recipes that define a contract", function()
    local code
    local ok = pcall(recipe.new, { name = "demo", args = { "--kernel", "x.cl" }, err = { write = function() end },
      exit = function(c) code = c end })
    assert.is_false(ok)
    assert.are.equal(2, code)
    local R = recipe.new{ name = "demo", args = {}, student = "any kernel" }
    assert.is_nil(R:student_kernel())
  end)

  it("ranks a correct student reduction beside the ladder", function()
    local path = os.tmpname()
    local out, code, err = run("reduction", "--kernel docs/examples/reduce_sum8.cl --kernel-per 8 --reps 2 --json "
      .. path)
    assert.are.equal(0, code, err)
    local t = tables_of(path).reduction
    assert.are.equal(10, #t.rows)
    local s = t.rows[10]
    assert.are.equal("student: reduce (reduce_sum8.cl)", s.variant)
    assert.is_true(s.time > 0 and s["rel. error"] <= s.bound)
    assert.is_nil(t.rows[1].rank) -- the copy kernel is a reference, not ranked
    local ranks = {}
    for i = 2, 10 do ranks[#ranks + 1] = t.rows[i].rank end
    table.sort(ranks)
    assert.are.same({ 1, 2, 3, 4, 5, 6, 7, 8, 9 }, ranks)
    assert.truthy(out:find("student: reduce (reduce_sum8.cl) ranks " .. s.rank .. " of 9 by time", 1, true), out)
  end)

  it("reports a wrong student reduction as wrong: the first mismatching element, exit 1, no figure", function()
    local out, code, err = run("reduction", "--kernel docs/examples/reduce_wrong.cl")
    assert.are.equal(1, code)
    assert.are.equal("", out)
    assert.truthy(err:find("recipe reduction: verify student: reduce (reduce_wrong.cl)", 1, true), err)
    assert.truthy(err:find("512 of 512 elements differ", 1, true), err)
    assert.truthy(err:find("first at index 0: got ", 1, true), err)
  end)

  it("names the kernels of a file when --kernel-name is missing or wrong", function()
    local _, code, err = run("reduction", "--kernel reduction.cl")
    assert.are.equal(1, code)
    assert.truthy(err:find("--kernel reduction.cl: more than one kernel; name one with --kernel-name (it has: ",
      1, true), err)
    _, code, err = run("reduction", "--kernel reduction.cl --kernel-name nosuch")
    assert.are.equal(1, code)
    assert.truthy(err:find("--kernel reduction.cl: no kernel nosuch (it has: ", 1, true), err)
  end)

  it("ranks a student transpose beside the recipe's, and fails a wrong one exactly", function()
    local path = os.tmpname()
    local out, code, err = run("transpose", "--reps 1 --kernel docs/examples/transpose_student.cl --json " .. path)
    assert.are.equal(0, code, err)
    local t = tables_of(path).transpose
    assert.are.equal(5, #t.rows)
    assert.are.equal("student: transpose (transpose_student.cl)", t.rows[5].variant)
    assert.is_true(t.rows[5].rank >= 1 and t.rows[5].rank <= 4)
    assert.truthy(out:find("ranks " .. t.rows[5].rank .. " of 4 by time", 1, true))
    -- the copy kernel under the student's name: the input, not its transpose
    out, code, err = run("transpose", "--reps 1 --kernel transpose.cl --kernel-name copy2d")
    assert.are.equal(1, code)
    assert.falsy(out:find("GB/s", 1, true))
    assert.truthy(err:find("verify student: copy2d (transpose.cl)", 1, true), err)
    assert.truthy(err:find("first at index 1: got ", 1, true), err)
  end)
end)
