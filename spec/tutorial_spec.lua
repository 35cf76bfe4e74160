-- docs/tutorial.md stays true for a user of an installed clua: `make install
-- DESTDIR=TMP PREFIX=/usr` (with $CLUA, the binary under test, as its
-- bin/clua), that bin/ first on the PATH, and every ```lua and ```sh block
-- run, in order, in one scratch folder outside the checkout; each must exit 0.
--   ```lua   a complete script, run with `clua`; a block whose first line is
--            "-- NAME.lua: ..." is a file the reader saves: it is written to
--            the folder as NAME.lua (the ```sh blocks run it).
--   ```sh    one command a line, run with sh in the folder (a block may be
--            indented, inside a list).
--   ```console, ```text and others are shown, not run (make run, outputs).
-- No runnable block may name build/clua or the checkout's recipes/ folder.
local CLUA = os.getenv("CLUA") or "build/clua"
local REPO
do
  local p = assert(io.popen("pwd"))
  REPO = p:read("l")
  p:close()
  if not CLUA:match("^/") then CLUA = REPO .. "/" .. CLUA end
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
  local out, lang, buf, start, indent = {}, nil, nil, nil, ""
  local n = 0
  for line in (md .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    if not buf then
      local ind, l = line:match("^(%s*)```(%w*)%s*$")
      if l then indent, lang, buf, start = ind, l, {}, n end
    elseif line:match("^%s*```%s*$") then
      out[#out + 1] = { lang = lang, text = table.concat(buf, "\n") .. "\n", line = start }
      buf = nil
    else
      buf[#buf + 1] = line:sub(1, #indent) == indent and line:sub(#indent + 1) or line
    end
  end
  assert(not buf, "an unclosed ``` block at line " .. tostring(start))
  return out
end

local BIN -- the installed clua's folder, first on the PATH

-- Runs a command in dir with the installed clua on the PATH; returns the
-- exit status and the output.
local function run(dir, cmd)
  local p = assert(io.popen(("cd %s && PATH=%s:\"$PATH\" && export PATH && { %s; } 2>&1; echo \"exit=$?\"")
    :format(sh_quote(dir), sh_quote(BIN), cmd)))
  local out = p:read("a")
  p:close()
  local code = tonumber(out:match("exit=(%d+)%s*$"))
  return code, (out:gsub("exit=%d+%s*$", ""))
end

describe("docs/tutorial.md", function()
  local all = blocks(slurp("docs/tutorial.md"))
  local top = os.tmpname()
  os.remove(top)
  local dir, dest = top .. "/mywork", top .. "/dest"
  assert(os.execute("mkdir -p " .. sh_quote(dir) .. " " .. sh_quote(dest)))
  BIN = dest .. "/usr/bin"

  setup(function()
    local p = assert(io.popen(("make -s -C %s install DESTDIR=%s PREFIX=/usr 2>&1 && install -m 755 %s %s/clua 2>&1; "
      .. "echo \"exit=$?\""):format(sh_quote(REPO), sh_quote(dest), sh_quote(CLUA), sh_quote(BIN))))
    local out = p:read("a")
    p:close()
    assert.matches("exit=0%s*$", out)
  end)
  teardown(function() os.execute("rm -rf " .. sh_quote(top)) end)

  it("uses the clua on the PATH and a folder of the user's own, not the checkout's", function()
    for _, b in ipairs(all) do
      if b.lang == "lua" or b.lang == "sh" then
        assert.is_nil(b.text:find("build/clua", 1, true), "line " .. b.line .. " runs build/clua")
        assert.is_nil(b.text:find("recipes/", 1, true) and not b.text:find("cl.root", 1, true) or nil,
          "line " .. b.line .. " uses the checkout's recipes/")
      end
    end
    local code, out = run(dir, "command -v clua")
    assert.are.equal(0, code, out)
    assert.are.equal(BIN .. "/clua\n", out)
    code, out = run(dir, "clua -e 'io.write(cl.root)'")
    assert.are.equal(0, code, out)
    assert.are.equal(dest .. "/usr/share/clua", out)
  end)

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
          local code, out = run(dir, "clua " .. sh_quote(path))
          assert.are.equal(0, code, out)
        end)
      end
    elseif b.lang == "sh" then
      for cmd in b.text:gmatch("[^\n]+") do
        if not cmd:match("^%s*#") then
          runnable = runnable + 1
          it(("runs `%s` (block at line %d)"):format(cmd, b.line), function()
            local code, out = run(dir, cmd)
            assert.are.equal(0, code, out)
          end)
        end
      end
    end
  end

  it("has runnable blocks, and the recipe wrote what the tutorial says", function()
    assert.is_true(runnable >= 10, "only " .. runnable .. " runnable blocks")
    for _, f in ipairs({ "before.json", "vadd.csv", "vadd.svg", "vscale.lua", "vscale.cl" }) do
      local h = io.open(dir .. "/" .. f)
      assert.truthy(h, f .. " was not written")
      if h then h:close() end
    end
  end)
end)
