-- clua.checker on captured text: Oclgrind's log of a racy, a divergent and an
-- out-of-bounds kernel (spec/fixtures/check/oclgrind.log), its standard error
-- with an API error and a failure of its own among a script's lines
-- (oclgrind.err), and the map a run with CLUA_CHECK_MAP writes (check.map).
package.path = "lua/?.lua;" .. package.path
local checker = require("clua.checker")
local files = require("clua.files")

local FIX = "spec/fixtures/check/"

describe("clua.checker", function()
  local reports, truncated = checker.parse(files.read(FIX .. "oclgrind.log"))
  local map = checker.read_map(files.read(FIX .. "check.map"))

  it("reads each report of the log: kind, kernel, line, column, work-items", function()
    assert.is_true(truncated)
    assert.are.equal(6, #reports)
    local race = reports[1]
    assert.are.equal("data race", race.kind)
    assert.are.equal("read-write, local memory", race.detail)
    assert.are.equal("sum", race.kernel)
    assert.are.same({ 8, 27, "input.cl" }, { race.line, race.column, race.file })
    assert.are.equal("if (l < s) tmp[l] += tmp[l + s];", race.source)
    assert.are.same({ global = "(65,0,0)", ["local"] = "(1,0,0)", group = "(1,0,0)" }, race.at)
    assert.are.equal(30, race.also.column)
    assert.are.equal("(64,0,0)", race.also.at.global)
    local div = reports[3]
    assert.are.equal("barrier divergence", div.kind)
    assert.are.equal("Only 32 out of 64 work-items executed barrier", div.detail)
    assert.are.equal("(1,0,0)", div.workgroup)
    assert.are.equal(10, div.line)
    local oob = reports[5]
    assert.are.equal("out-of-bounds write", oob.kind)
    assert.are.equal("4 bytes, global memory", oob.detail)
    assert.are.same({ 6, 12 }, { oob.line, oob.column })
    assert.are.equal("(4,0,0)", oob.at.global)
    assert.are.equal("(5,0,0)", reports[6].at.global)
  end)

  it("reads only Oclgrind's own reports from a standard error that holds the script's lines too", function()
    local err = checker.parse(files.read(FIX .. "oclgrind.err"), true)
    assert.are.equal(2, #err)
    assert.are.equal("simulator error", err[1].kind)
    assert.are.equal("global_c11_int", err[1].kernel)
    assert.matches("atomic_fetch_add_explicit", err[1].detail)
    assert.are.equal("API misuse", err[2].kind)
    assert.are.same({ "clCreateKernel", "CL_INVALID_KERNEL_NAME" }, { err[2].call, err[2].error })
    assert.is_false(checker.is_fault(err[1]))
    assert.is_false(checker.is_fault(err[2]))
    assert.is_true(checker.is_fault(reports[1]))
  end)

  it("names an undefined address used to read or to write", function()
    local text = table.concat({ "Uninitialized address used to read from global memory address 0x2000000000400",
      "\tKernel: chase", "\tEntity: Global(0,0,0) Local(0,0,0) Group(0,0,0)", "\tAt line 40 (column 13) of input.cl:",
      "\t  j = p[j];", "", "Uninitialized address used to write to local memory address 0x1000",
      "\tKernel: k", "" }, "\n")
    local r = checker.parse(text)
    assert.are.same({ "uninitialized value", "an undefined address used to read from global memory", 40 },
      { r[1].kind, r[1].detail, r[1].line })
    assert.are.same({ "uninitialized value", "an undefined address used to write to local memory" },
      { r[2].kind, r[2].detail })
  end)

  it("maps each line to the kernel file's own, choosing the file whose line reads as Oclgrind quotes it", function()
    assert.are.same({ { first = 1, lines = 7, file = FIX .. "oob.cl" } }, map.sum[1])
    assert.are.equal(2, #map.sum)
    assert.are.equal(2, #map.other[1]) -- one program of two files
    local located = checker.locate(checker.parse(files.read(FIX .. "oclgrind.log")), map)
    assert.are.same({ FIX .. "race.cl", 8 }, { located[1].file, located[1].line })
    assert.are.same({ FIX .. "oob.cl", 6 }, { located[5].file, located[5].line })
    -- a line of the second file of a program
    local r = checker.locate({ { kernel = "other", file = "input.cl", line = 5 } }, map)[1]
    assert.are.same({ "b.cl", 2 }, { r.file, r.line })
  end)

  it("prints each finding once, grouped, with its count, and the notes apart", function()
    local groups = checker.group(checker.locate(checker.parse(files.read(FIX .. "oclgrind.log")), map))
    assert.are.equal(3, #groups)
    assert.are.same({ 2, 2, 2 }, { groups[1].count, groups[2].count, groups[3].count })
    local text = checker.format(groups, { truncated = true })
    assert.matches("clua check: 3 findings (at least 6 reports from Oclgrind, which stopped reporting after "
      .. checker.MAX_REPORTS .. ")",
      text, 1, true)
    assert.matches("data race (read-write, local memory) in kernel 'sum' at " .. FIX .. "race.cl:8:27 and line 8:30, "
      .. "first by work-item (65,0,0) (local (1,0,0)) of group (1,0,0) against work-item (64,0,0), 2 times", text, 1, true)
    assert.matches("barrier divergence (Only 32 out of 64 work-items executed barrier) in kernel 'sum' at "
      .. FIX .. "race.cl:10:13", text, 1, true)
    assert.matches("out-of-bounds write (4 bytes, global memory) in kernel 'sum' at " .. FIX .. "oob.cl:6:12", text, 1, true)
    assert.matches("\n      out[i] = in[i];\n", text, 1, true)
    local notes = checker.format(checker.group(checker.parse(files.read(FIX .. "oclgrind.err"), true)))
    assert.matches("^clua check: no findings\nalso reported, no fault of a kernel", notes)
    assert.matches("API misuse: clCreateKernel returned CL_INVALID_KERNEL_NAME (Kernel 'global_c11_int' not found), once",
      notes, 1, true)
    assert.are.equal("clua check: no findings\n", checker.format({}))
  end)
end)
