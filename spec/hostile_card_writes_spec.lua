-- The card's failed writes (issue 46: "a failed write (closed stdout, full
-- disk) is an error with a non-zero exit"): every file of the card goes
-- through one checked write (clua.files.write_or_exit), so a full disk
-- (/dev/full behind the card's own name), a folder that vanishes while the
-- recipes run, or a recipes' folder that cannot be made ends the card with
-- the file and the system's reason, status 1, no traceback. A recipe's
-- output files and its standard output fail the same way (clua.output; the
-- standard output is checked by clua itself at the end).
local shell = require("spec.support.shell")

local CLUA = os.getenv("CLUA") or "build/clua"
local here = os.getenv("PWD")
local clua = CLUA:match("^/") and CLUA or (here .. "/" .. CLUA)
local q = shell.quote

-- No traceback, no Lua error position, the message once.
local function clean_failure(out, code, want)
  assert.are.equal(1, code, out)
  assert.truthy(out:find(want, 1, true), out)
  assert.falsy(out:find("traceback", 1, true), out)
  assert.falsy(out:find("%.lua:%d+:"), out)
end

describe("a failed write of the card", function()
  local dir = os.tmpname()
  os.remove(dir)
  setup(function() assert(os.execute("mkdir -p " .. q(dir))) end)
  teardown(function() os.execute("rm -rf " .. q(dir)) end)

  -- The card of one quick recipe (launch: about a second) in dir; extra options.
  local function card(opts)
    return shell.run(("cd %s && timeout 120 %s %s/recipes/report.lua --quick --recipes launch %s"):format(q(dir),
      q(clua), q(here), opts))
  end

  it("to a full disk (/dev/full behind its Markdown, its JSON or its page): the file and 'No space left on device'",
    function()
      assert(os.execute(("ln -sf /dev/full %s/full.md && ln -sf /dev/full %s/fj.json"):format(q(dir), q(dir))))
      local out, code = card("--out full.md")
      clean_failure(out, code, "report: cannot write full.md: No space left on device")
      out, code = card("--out fj.md")
      clean_failure(out, code, "report: cannot write fj.json: No space left on device")
      out, code = card("--out fh.md --html /dev/full")
      clean_failure(out, code, "report: cannot write /dev/full: No space left on device")
      assert.falsy(out:find("wrote", 1, true), out)
    end)

  it("into a folder that vanishes while the recipes run: the file and 'Not a directory'", function()
    -- report.lua copied beside a recipe that puts a link to /dev/full in the place of the card's folder
    local copy = dir .. "/recipes"
    assert(os.execute(("mkdir -p %s %s/card && cp %s/recipes/report.lua %s/"):format(q(copy), q(dir), q(here), q(copy))))
    local f = assert(io.open(copy .. "/vanish.lua", "w"))
    f:write(("os.execute(%q)\n"):format(("mv %s %s && ln -s /dev/full %s"):format(q(dir .. "/card"),
      q(dir .. "/card.gone"), q(dir .. "/card"))))
    f:close()
    local out, code = shell.run(("cd %s && timeout 120 %s recipes/report.lua --quick --recipes vanish --out card/c.md")
      :format(q(dir), q(clua)))
    clean_failure(out, code, "report: cannot write card/c.md: Not a directory")
  end)

  it("when its recipes' folder cannot be made: says so before running anything", function()
    assert(os.execute(("touch %s/taken-files"):format(q(dir))))
    local out, code = card("--out taken.md")
    clean_failure(out, code, "report: cannot make the folder taken-files: File exists")
    assert.falsy(out:find("recipe 1 of 1", 1, true), out)
  end)

  it("writes each recipe's log as a new file: a link left in the folder is not followed (nor read back)", function()
    -- a link to /dev/zero or /dev/full there was written through and then read back without end
    assert(os.execute(("mkdir -p %s/old-files && ln -s /dev/null %s/old-files/launch.log"):format(q(dir), q(dir))))
    local out, code = card("--out old.md")
    assert.are.equal(0, code, out)
    assert.is_true(os.execute(("test -f %s/old-files/launch.log && test ! -L %s/old-files/launch.log"):format(q(dir),
      q(dir))), "the log is still a link")
  end)
end)

describe("a recipe's failed write", function()
  it("of each output file (--csv, --html, --trace to /dev/full): the file and 'No space left on device'", function()
    for _, run in ipairs({ "launch --csv", "launch --html", "overlap --trace" }) do
      local name, opt = run:match("^(%S+) (%S+)$")
      local out, code = shell.run(("timeout 120 %s recipes/%s.lua --quick --reps 1 %s /dev/full"):format(q(clua),
        name, opt))
      clean_failure(out, code, ("recipe %s: cannot write /dev/full: No space left on device"):format(name))
    end
  end)

  it("of its standard output, closed or a full disk: says so, status 1", function()
    local out, code = shell.run(("(timeout 120 %s recipes/launch.lua --quick --reps 1 > /dev/full)"):format(q(clua)))
    clean_failure(out, code, "cannot write the standard output: a write to it failed")
    out, code = shell.run(("(timeout 120 %s recipes/launch.lua --quick --reps 1 >&-)"):format(q(clua)))
    clean_failure(out, code, "cannot write the standard output: it is closed")
    out, code = shell.run(("(timeout 120 %s report --help >&-)"):format(q(clua)))
    clean_failure(out, code, "cannot write the standard output: it is closed")
  end)
end)
