-- The clua program's Lua allocator (host/alloc.c): small blocks wait on
-- lists per 16-byte size class and are handed out again. busted runs these
-- inside the binary under test, so every object here goes through it (under
-- AddressSanitizer too, where a waiting block is poisoned). What must hold:
-- contents survive every growth and shrink across the classes and past the
-- largest one, and blocks handed out again are whole and not shared.

describe("the Lua allocator", function()
  it("keeps a table's contents while it grows one element at a time through every size class", function()
    for _ = 1, 3 do
      local t = {}
      for i = 1, 300 do
        t[i] = i * 3
        assert(#t == i)
      end
      for i = 1, 300 do assert(t[i] == i * 3, i) end
      local h = {}
      for i = 1, 100 do
        h["k" .. i] = i
        for j = 1, i, 7 do assert(h["k" .. j] == j) end
      end
      collectgarbage()
    end
  end)

  it("keeps a table's contents when it shrinks after a rehash", function()
    local t = {}
    for i = 1, 200 do t[i] = i end
    for i = 200, 9, -1 do t[i] = nil end
    t.x = "x"  -- a rehash: the array part shrinks to its used size
    for i = 1, 8 do assert(t[i] == i) end
    assert(t.x == "x" and t[9] == nil and #t == 8)
  end)

  it("builds strings of every length from 0 to 400 byte for byte", function()
    for n = 0, 400 do
      local parts = {}
      for i = 1, n do parts[i] = string.char(65 + (i * 7 + n) % 26) end
      local s = table.concat(parts)
      assert(#s == n)
      for i = 1, n, 13 do assert(s:byte(i) == 65 + (i * 7 + n) % 26, ("length %d, byte %d"):format(n, i)) end
      assert(s:rep(2):sub(n + 1) == s)
    end
  end)

  it("hands out freed blocks again whole and unshared, through many collections", function()
    local slots, want = {}, {}
    local seed = 12345
    local function rand(m)
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed % m
    end
    for step = 1, 20000 do
      local i = rand(500) + 1
      if slots[i] then  -- what was made there is still what it was
        local v, w = slots[i], want[i]
        if type(w) == "string" then
          assert(v == w:rep(1), step)
        else
          assert(#v == w, step)
          for j = 1, w do assert(v[j] == j + i, step) end
        end
      end
      local n = rand(40)
      if rand(2) == 0 then
        local s = ("%d:"):format(i) .. ("z"):rep(rand(150))
        slots[i], want[i] = s, s
      else
        local t = {}
        for j = 1, n do t[j] = j + i end
        slots[i], want[i] = t, n
      end
      if step % 4000 == 0 then collectgarbage() end
    end
  end)

  it("serves userdata and closures made and dropped by the thousand", function()
    local cl = require("cl")
    for round = 1, 5 do
      local keep = {}
      for i = 1, 2000 do
        local a = cl.array("int", i % 9 + 1)
        a[0] = i
        local f = function() return i + round end
        if i % 3 == 0 then keep[#keep + 1] = { a, f, i } end
      end
      collectgarbage()
      for _, k in ipairs(keep) do
        assert(k[1][0] == k[3])
        assert(k[2]() == k[3] + round)
      end
    end
  end)
end)
