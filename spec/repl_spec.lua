-- The REPL on a terminal (host/lineedit.c, lua/clua/complete.lua): clua -i
-- runs under script(1), which gives it a pseudo-terminal and types the keys
-- of a file into it. Completion of globals, of cl.'s functions and of the
-- methods after `:`; history kept in $HOME/.clua_history and recalled with
-- the up arrow in the next session; and, with stdin not a terminal, plain
-- lines with no escape sequences.
local shell = require("spec.support.shell")

local clua = os.getenv("CLUA") or "build/clua"

-- Runs `clua -i` on a pseudo-terminal with HOME=home, typing keys; returns
-- what the terminal showed (carriage returns and bracketed-paste switches
-- dropped) and the exit status.
local function session(home, keys)
  local input = os.tmpname()
  local f = assert(io.open(input, "wb"))
  f:write(keys)
  f:close()
  local cmd = ("env -u CLUA_HISTORY HOME=%s %s -i"):format(shell.quote(home), shell.quote(clua))
  local p = assert(io.popen(("script -qfec %s /dev/null < %s 2>&1; echo \"exit=$?\"")
    :format(shell.quote(cmd), shell.quote(input))))
  local out = p:read("a")
  p:close()
  os.remove(input)
  local code = tonumber(out:match("exit=(%d+)%s*$"))
  out = out:gsub("\r", ""):gsub("\27%[%?2004[hl]", "")
  return out, code
end

local function readline_present()
  local p = io.popen("ldconfig -p 2>/dev/null | grep -c 'libreadline.so.8 '")
  local n = tonumber(p:read("a")) or 0
  p:close()
  return n > 0 and os.execute("command -v script >/dev/null 2>&1")
end

describe("the REPL on a terminal", function()
  local home

  setup(function()
    assert.truthy(readline_present(), "libreadline8 and script(1) are needed (sh .ci/setup)")
    home = os.tmpname()
    os.remove(home)
    assert(os.execute("mkdir -p " .. shell.quote(home)))
  end)

  teardown(function() os.execute("rm -rf " .. shell.quote(home)) end)

  it("completes globals, cl functions and the methods of an object", function()
    -- Each completion shows in what the line does (the terminal's echo of
    -- a line completed in its middle holds cursor moves).
    local out, code = session(home, table.concat({
      "pri\t(40 + 2)\n",                     -- a global: print
      "print(cl.devic\t == nil)\n",          -- cl.device and cl.devices: their common prefix
      "q = cl.context():queue()\n",
      "print(select('#', q:fin\t()))\n",  -- a method: q:finish (returns nothing)
      "print(type(q.lau\t))\n",              -- a field through the methods table
      "s = 'abc'\n",
      "print(s:up\t())\n",                   -- a string's method
    }))
    assert.are.equal(0, code, out)
    assert.matches("\n42\n", out)
    assert.matches("\nfalse\n", out)      -- cl.device is no nil
    assert.matches("\n0\n", out)          -- q:finish() ran
    assert.matches("\nfunction\n", out)
    assert.matches("\nABC\n", out)
    assert.is_nil(out:find("stdin:", 1, true), out)
  end)

  it("keeps history in ~/.clua_history and recalls it in the next session", function()
    local _, code = session(home, "answer = 6 * 7\nprint('recalled', answer + 0)\n")
    assert.are.equal(0, code)
    local saved = shell.read(home .. "/.clua_history")
    assert.matches("answer = 6 * 7\n", saved, 1, true)
    -- up, up: the assignment of the last session, run again; then up, up
    -- (past that new entry): its print line
    local out = session(home, "\27[A\27[A\n\27[A\27[A\n")
    assert.matches("recalled\t42", out, 1, true)
  end)

  it("edits a line with the arrow keys", function()
    -- type 'print(1 2)', go left twice, insert '+'
    local out = session(home, "print(1 2)\27[D\27[D+\n")
    assert.matches("\n3\n", out)
  end)
end)

describe("the REPL when stdin is not a terminal", function()
  it("reads plain lines, prints no escape sequences and keeps no history", function()
    local home = os.tmpname()
    os.remove(home)
    assert(os.execute("mkdir -p " .. shell.quote(home)))
    local p = assert(io.popen(("printf 'print(6 * 7)\\n' | env HOME=%s %s -i 2>&1")
      :format(shell.quote(home), shell.quote(clua))))
    local out = p:read("a")
    p:close()
    assert.matches("\n?> 42\n", out)
    assert.is_nil(out:find("\27", 1, true))
    assert.is_nil(io.open(home .. "/.clua_history"))
    os.execute("rm -rf " .. shell.quote(home))
  end)

  it("prints an array with its first values", function()
    local p = assert(io.popen(("printf 'cl.array(\"float\", 4):ramp(1)\\n' | %s -i 2>&1"):format(shell.quote(clua))))
    local out = p:read("a")
    p:close()
    assert.matches("cl.array: 4 float {1, 2, 3, 4}\n", out, 1, true)
  end)
end)
