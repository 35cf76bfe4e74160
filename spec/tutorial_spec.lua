-- docs/tutorial.md stays true: every ```lua and ```sh block runs, in order,
-- in one scratch folder, and must exit 0.
--   ```lua   a complete script, run with $CLUA (build/clua); a block whose first
--            line is "-- NAME.lua: ..." is a file the reader saves: it is
--            written to the folder as NAME.lua (the ```sh blocks run it).
--   ```sh    one command a line, run with sh in the folder; a leading
--            "build/clua" is $CLUA.
--   ```console, ```text and others are shown, not run (make run, outputs).
local CLUA = os.getenv("CLUA") or "build/clua"
if not CLUA:match("^/") then
  local p = assert(io.popen("pwd"))
  CLUA = p:read("l") .. "/" .. CLUA
  p:close()
end

local function slurp(path)
  local f = assert(io.open(path))
  local s = f:read("a")
  f:close()
  return s
end

local function write(path, text)
  local f = assert(io.open(path, "w"))
  f:write(text)
  f:close()
end

local function sh_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- The fenced blocks of a Markdown text: {lang=, text=, line=}.
local function blocks(md)
  local out, lang, buf, start = {}, nil, nil, nil
  local n = 0
  for line in (md .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    if not buf then
      local l = line:match("^```(%w*)%s*$")
      if l then lang, buf, start = l, {}, n end
    elseif line:match("^```%s*$") then
      out[#out + 1] = { lang = lang, text = table.concat(buf, "\n") .. "\n", line = start }
      buf = nil
    else
      buf[#buf + 1] = line
    end
  end
  assert(not buf, "an unclosed ``` block at line " .. tostring(start))
  return out
end

-- Runs a command in dir; returns the exit status and the output.
local function run(dir, cmd)
  local p = assert(io.popen(("cd %s && { %s; } 2>&1; echo \"exit=$?\""):format(sh_quote(dir), cmd)))
  local out = p:read("a")
  p:close()
  local code = tonumber(out:match("exit=(%d+)%s*$"))
  return code, (out:gsub("exit=%d+%s*$", ""))
end

describe("docs/tutorial.md", function()
  local all = blocks(slurp("docs/tutorial.md"))
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p " .. sh_quote(dir)))

  teardown(function() os.execute("rm -rf " .. sh_quote(dir)) end)

  local runnable = 0
  for _, b in ipairs(all) do
    if b.lang == "lua" then
      runnable = runnable + 1
      local file = b.text:match("^%-%- ([%w_%-]+%.lua):")
      if file then
        it(("saves the file %s (line %d)"):format(file, b.line), function()
          write(dir .. "/" .. file, b.text)
        end)
      else
        it(("runs the lua block at line %d"):format(b.line), function()
          local path = ("%s/block%d.lua"):format(dir, b.line)
          write(path, b.text)
          local code, out = run(dir, sh_quote(CLUA) .. " " .. sh_quote(path))
          assert.are.equal(0, code, out)
        end)
      end
    elseif b.lang == "sh" then
      for cmd in b.text:gmatch("[^\n]+") do
        if not cmd:match("^%s*#") then
          runnable = runnable + 1
          it(("runs `%s` (block at line %d)"):format(cmd, b.line), function()
            local c = cmd:gsub("^build/clua", sh_quote(CLUA))
            local code, out = run(dir, c)
            assert.are.equal(0, code, out)
          end)
        end
      end
    end
  end

  it("has runnable blocks, and the recipe wrote what the tutorial says", function()
    assert.is_true(runnable >= 10, "only " .. runnable .. " runnable blocks")
    for _, f in ipairs({ "before.json", "vadd.csv", "vadd.svg" }) do
      local h = io.open(dir .. "/" .. f)
      assert.truthy(h, f .. " was not written")
      if h then h:close() end
    end
  end)
end)
