-- recipes/grade.lua over the fixture folder spec/fixtures/grade (the template
-- recipe's triad, on PoCL in CI): a correct kernel, a correct slow one, a
-- folder per student, a wrong one, one wrong only at the tail (n = 250000 is
-- no multiple of the work-group of 64), one that does not compile, one that
-- never ends, one that writes past its output. Each is one row with its
-- verdict; the whole run ends within its limits; the gradebook parses.
local json = require "dkjson"
local shell = require "spec.support.shell"

local clua = os.getenv("CLUA") or "build/clua"

describe("recipes/grade.lua", function()
  local dir, out, err, code, seconds, doc, rows

  setup(function()
    dir = os.tmpname()
    os.remove(dir)
    assert(os.execute("mkdir -p " .. dir))
    local errf = dir .. "/stderr"
    local t0 = os.time()
    local p = assert(io.popen(("%s recipes/grade.lua --recipe template --submissions spec/fixtures/grade "
      .. "--timeout 5 --wall 60 --recipe-options='--quick --size 1000000 --local 64' --out %s/gb 2> %s; "
      .. "echo \"exit=$?\""):format(clua, dir, errf)))
    out = p:read("a")
    p:close()
    seconds = os.time() - t0
    code = tonumber(out:match("exit=(%d+)%s*$"))
    err = shell.slurp(errf) or ""
    doc = json.decode(shell.slurp(dir .. "/gb.json") or "null")
    rows = {}
    for _, r in ipairs(doc and doc.rows or {}) do rows[r.student] = r end
  end)

  teardown(function() os.execute("rm -rf " .. dir) end)

  it("grades every submission and ends within its limits", function()
    assert.are.equal(0, code, err)
    assert.is_true(seconds < 120, seconds .. " s")
    local n = 0
    for _ in pairs(rows) do n = n + 1 end
    assert.are.equal(8, n)
    assert.matches("%[8/8%]", err)
    assert.matches("8 submissions: 3 correct, 2 wrong, 1 out of bounds, 1 did not build, 1 timed out", err)
  end)

  it("ranks the correct ones by time, the slow one last", function()
    for _, s in ipairs({ "s01_correct", "s02_slow", "s06_folder" }) do
      assert.are.equal("correct", rows[s].verdict, s)
      assert.is_true(rows[s].time > 0 and rows[s]["speed-up"] > 0, s)
      assert.is_true(rows[s].min <= rows[s].time and rows[s].time <= rows[s].max, s)
    end
    assert.are.equal(3, rows.s02_slow.rank)
    assert.are.equal("triad.cl", rows.s06_folder.file)
  end)

  it("names the first wrong element, also when only the tail is wrong", function()
    assert.are.equal("wrong", rows.s03_wrong.verdict)
    assert.matches("^0: got ", rows.s03_wrong["first wrong"])
    assert.are.equal("wrong", rows.s04_tail.verdict)
    -- an element left unwritten keeps the harness's poison (bytes 0xA5: the float -2.87e-16)
    assert.matches("^249984: got %-2%.87351825e%-16", rows.s04_tail["first wrong"])
  end)

  it("says which did not build, with the compiler's words", function()
    local r = rows.s05_broken
    assert.are.equal("did not build", r.verdict)
    assert.are.equal("no", r.built)
    assert.matches("undeclared identifier 'j'", r["build log"], 1, true)
  end)

  it("stops a kernel that never ends at the timeout", function()
    local r = rows.s07_endless
    assert.are.equal("timed out", r.verdict)
    assert.are.equal("yes", r["timed out"])
    assert.is_true(r.seconds < 30, r.seconds .. " s")
  end)

  it("catches a write past the output", function()
    local r = rows.s08_oob
    assert.are.equal("out of bounds", r.verdict)
    assert.matches("c: 192 bytes written at offset 1000000, past the end (1000000 bytes)", r.message, 1, true)
  end)

  it("writes a gradebook that parses: JSON, plain CSV, a Markdown leaderboard", function()
    assert.truthy(doc.meta.device)
    assert.truthy(doc.meta.clua)
    assert.matches("--quick", doc.meta.options, 1, true)
    local csv = shell.read(dir .. "/gb.csv")
    assert.matches("^student,file,verdict,rank,time %(ns%)", csv)
    local _, lines = csv:gsub("\r\n", "")
    assert.are.equal(9, lines)
    local md = shell.read(dir .. "/gb.md")
    -- s01_correct and s06_folder are the same kernel: which ranks first is noise
    assert.matches("| s01_correct | s01_correct.cl | correct | [12] |", md)
  end)
end)
