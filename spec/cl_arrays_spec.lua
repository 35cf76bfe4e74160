-- cl host arrays: types, 0-based bounds-checked indexing, values that do not
-- fit, fill/ramp/random/copy/slice/gather/transpose, compare, sum/min/max,
-- totable, release and __close.
local cl = require("cl")

local function err_of(f, ...)
  local ok, err = pcall(f, ...)
  assert.is_false(ok, "expected an error")
  return tostring(err)
end

describe("cl.array", function()
  it("makes zeroed arrays of every type with their fields", function()
    local sizes = { char = 1, uchar = 1, short = 2, ushort = 2, int = 4, uint = 4, long = 8, ulong = 8, half = 2,
                    float = 4, double = 8, float2 = 4, float4 = 4, double2 = 8, int2 = 4, int4 = 4, uint2 = 4,
                    uint4 = 4, uchar4 = 1 }
    for _, t in ipairs(cl.types) do
      local lanes = tonumber(t:match("(%d)$")) or 1
      local a = cl.array(t, 5)
      assert.equal(t, a.type)
      assert.equal(5, a.n)
      assert.equal(5 * lanes, #a)
      assert.equal(lanes, a.lanes)
      assert.equal(sizes[t], a.elem_size, t)
      assert.equal(5 * lanes * sizes[t], a.size)
      assert.is_true(a.valid)
      for i = 0, #a - 1 do assert.equal(0, a[i]) end
      assert.matches(("^cl.array: 5 %s {"):format(t), tostring(a))
    end
  end)

  describe("tostring", function()
    it("shows the first values, and how many more", function()
      assert.equal("cl.array: 4 float {1, 2, 3, 4}", tostring(cl.array("float", 4):ramp(1)))
      assert.equal("cl.array: 0 int {}", tostring(cl.array("int", 0)))
      assert.equal("cl.array: 8 int {0, 1, 2, 3, 4, 5, 6, 7}", tostring(cl.array("int", 8):ramp(0)))
      assert.equal("cl.array: 9 int {0, 1, 2, 3, 4, 5, 6, 7, \u{2026} (1 more)}", tostring(cl.array("int", 9):ramp(0)))
      -- each type in its own precision and sign
      local f = cl.array("float", 2)
      f[0], f[1] = 0.1, -2.5
      assert.equal("cl.array: 2 float {0.1, -2.5}", tostring(f))
      assert.equal("cl.array: 1 double {0.1}", tostring(cl.array("double", 1):fill(0.1)))
      assert.equal("cl.array: 2 char {-5, -5}", tostring(cl.array("char", 2):fill(-5)))
      assert.equal("cl.array: 1 ulong {18446744073709551615}", tostring(cl.array("ulong", 1):fill(-1)))
      assert.equal("cl.array: 1 float {nan}", tostring(cl.array("float", 1):fill(0 / 0)))
    end)

    it("shows vector types element by element", function()
      assert.equal("cl.array: 3 float4 {{0, 1, 2, 3}, {4, 5, 6, 7}, \u{2026} (1 more)}",
        tostring(cl.array("float4", 3):ramp(0)))
      assert.equal("cl.array: 1 int2 {{1, 2}}", tostring(cl.array("int2", 1):ramp(1)))
      assert.equal("cl.array: 1 double2 {{0.5, 1.5}}", tostring(cl.array("double2", 1):ramp(0.5)))
    end)

    it("reads a few values of a huge array, and none of a released one", function()
      local big = cl.array("uchar", 1 << 24):fill(7)
      local t0 = os.clock()
      assert.equal("cl.array: 16777216 uchar {7, 7, 7, 7, 7, 7, 7, 7, \u{2026} (16777208 more)}", tostring(big))
      assert.is_true(os.clock() - t0 < 0.05)
      local s = big:slice(4, 2)
      assert.equal("cl.array: 2 uchar {7, 7}", tostring(s))
      big:release()
      assert.equal("cl.array: uchar (released)", tostring(big))
      assert.equal("cl.array: uchar (a slice of a released array)", tostring(s))
    end)
  end)

  it("rejects unknown types and bad lengths", function()
    assert.matches("bad argument #1 to 'cl.array' (unknown array type 'quad' (expected one of char, uchar,",
      err_of(cl.array, "quad", 3), 1, true)
    assert.matches("bad argument #2 to 'cl.array' (length must not be negative, got -1)", err_of(cl.array, "int", -1), 1, true)
    assert.matches("bad argument #2 to 'cl.array' (length must be an integer, got 1.5)", err_of(cl.array, "int", 1.5), 1, true)
    assert.matches("length expected", err_of(cl.array, "int"), 1, true)
  end)

  describe("indexing", function()
    it("is 0-based and round-trips every element", function()
      local a = cl.array("int", 8)
      for i = 0, 7 do a[i] = i * i - 10 end
      for i = 0, 7 do assert.equal(i * i - 10, a[i]) end
      local v = cl.array("float4", 2) -- flat: 8 floats
      for i = 0, 7 do v[i] = i + 0.5 end
      for i = 0, 7 do assert.equal(i + 0.5, v[i]) end
    end)

    it("raises out of range, naming the index and the bounds", function()
      local a = cl.array("int", 4)
      assert.matches("cl.array: index 4 out of range (a int array of 4 elements, indices 0 to 3)",
        err_of(function() return a[4] end), 1, true)
      assert.matches("index -1 out of range", err_of(function() return a[-1] end), 1, true)
      assert.matches("index 4 out of range", err_of(function() a[4] = 1 end), 1, true)
      assert.matches("cl.array: index must be an integer, got boolean", err_of(function() return a[true] end), 1, true)
      assert.matches("index must be an integer", err_of(function() return a[1.5] end), 1, true)
      local v = cl.array("float4", 1)
      assert.equal(0, v[3])
      assert.matches("index 4 out of range (a float4 array of 4 elements", err_of(function() return v[4] end), 1, true)
      assert.is_nil(a.no_such_field)
    end)

    it("raises for values that do not fit the type", function()
      local cases = {
        { "uchar", 256, "256 does not fit a uchar (0 to 255)" }, { "uchar", -1, "-1 does not fit a uchar" },
        { "char", 128, "128 does not fit a char (-128 to 127)" }, { "char", -129, "-129 does not fit a char" },
        { "short", 32768, "32768 does not fit a short (-32768 to 32767)" },
        { "ushort", 65536, "65536 does not fit a ushort (0 to 65535)" },
        { "int", 2 ^ 31, "2147483648 does not fit a int" }, { "int", 2147483648, "2147483648 does not fit a int (-2147483648 to 2147483647)" },
        { "uint", -1, "-1 does not fit a uint (0 to 4294967295)" }, { "uint", 4294967296, "4294967296 does not fit a uint" },
        { "half", 65536, "65536 does not fit a half (0 to 65535)" },
        { "int", 1.5, "int values are integers, got 1.5" }, { "long", 0.25, "long values are integers, got 0.25" },
        { "float", "x", "a number expected for a float value, got string" },
      }
      for _, c in ipairs(cases) do
        local a = cl.array(c[1], 1)
        assert.matches("cl.array: " .. c[3], err_of(function() a[0] = c[2] end), 1, true)
        assert.equal(0, a[0])
      end
      -- the edges fit
      local e = cl.array("char", 2)
      e[0], e[1] = -128, 127
      assert.same({ -128, 127 }, e:totable())
      local u = cl.array("uint", 1)
      u[0] = 4294967295
      assert.equal(4294967295, u[0])
      local l = cl.array("long", 2)
      l[0], l[1] = math.mininteger, math.maxinteger
      assert.same({ math.mininteger, math.maxinteger }, l:totable())
      local i = cl.array("int", 1)
      i[0] = 3.0 -- an integral float fits
      assert.equal(3, i[0])
      assert.is_true(math.type(i[0]) == "integer")
    end)

    it("stores floats with their type's precision", function()
      local f, d = cl.array("float", 1), cl.array("double", 1)
      f[0], d[0] = 0.1, 0.1
      assert.equal(0.1, d[0])
      assert.is_true(f[0] ~= 0.1 and math.abs(f[0] - 0.1) < 1e-8)
      assert.equal(string.unpack("f", string.pack("f", 0.1)), f[0])
    end)
  end)

  describe("fill, ramp and random", function()
    it("fill sets every element and returns the array", function()
      local a = cl.array("short", 100)
      assert.equal(a, a:fill(-7))
      for i = 0, 99 do assert.equal(-7, a[i]) end
      local f = cl.array("float2", 10):fill(2.5)
      for i = 0, 19 do assert.equal(2.5, f[i]) end
      assert.matches("300 does not fit a uchar", err_of(cl.array("uchar", 2).fill, cl.array("uchar", 2), 300), 1, true)
      assert.matches("int values are integers", err_of(a.fill, cl.array("int", 2), 0.5), 1, true)
    end)

    it("ramp: a[i] = start + i*step", function()
      local a = cl.array("int", 6):ramp(10, -3)
      assert.same({ 10, 7, 4, 1, -2, -5 }, a:totable())
      assert.same({ 0, 1, 2, 3 }, cl.array("uint", 4):ramp():totable())
      assert.same({ 0.5, 0.75, 1.0, 1.25 }, cl.array("float", 4):ramp(0.5, 0.25):totable())
      assert.matches("array:ramp: integer arrays take an integer start and step",
        err_of(a.ramp, a, 0.5), 1, true)
    end)

    it("random is reproducible from a seed and stays in range", function()
      local a, b, c = cl.array("float", 1000), cl.array("float", 1000), cl.array("float", 1000)
      a:random(42); b:random(42); c:random(43)
      assert.is_true((a:compare(b, 0)))
      assert.is_false((a:compare(c, 0)))
      local lo = a:min()
      local hi = a:max()
      assert.is_true(lo >= 0 and hi < 1 and hi - lo > 0.9)
      local d = cl.array("double", 1000):random(1, -2, 3)
      assert.is_true(d:min() >= -2 and d:max() < 3)
      local i = cl.array("int", 2000):random(7, -5, 5)
      assert.equal(-5, (i:min()))
      assert.equal(5, (i:max()))
      local seen = {}
      for k = 0, #i - 1 do seen[i[k]] = true end
      for v = -5, 5 do assert.is_true(seen[v], v) end
      assert.matches("array:random: hi (4) is below lo (5)", err_of(i.random, i, 1, 5, 4), 1, true)
      local u = cl.array("uchar", 4)
      assert.matches("300 does not fit a uchar", err_of(u.random, u, 1, 0, 300), 1, true)
    end)
  end)

  describe("copy, slice, gather, transpose", function()
    it("copy copies a same-typed array of the same length", function()
      local a = cl.array("int", 5):ramp(1)
      local b = cl.array("int", 5)
      assert.equal(b, b:copy(a))
      assert.same({ 1, 2, 3, 4, 5 }, b:totable())
      a[0] = 100
      assert.equal(1, b[0]) -- a copy, not a view
      assert.matches("array:copy: source is 5 int elements, destination 4 int elements; they must match",
        err_of(cl.array("int", 4).copy, cl.array("int", 4), a), 1, true)
      assert.matches("they must match", err_of(cl.array("float", 5).copy, cl.array("float", 5), a), 1, true)
    end)

    it("slice is a view sharing memory", function()
      local a = cl.array("int", 10):ramp()
      local s = a:slice(3, 4)
      assert.equal(4, #s)
      assert.same({ 3, 4, 5, 6 }, s:totable())
      s[0] = -1
      a[6] = -6
      assert.equal(-1, a[3])
      assert.equal(-6, s[3])
      assert.matches("index 4 out of range", err_of(function() return s[4] end), 1, true)
      local ss = s:slice(1, 2)
      assert.same({ 4, 5 }, ss:totable())
      assert.equal(0, #a:slice(10, 0))
      assert.matches("array:slice: 3 elements from 8 run past the end of an array of 10",
        err_of(a.slice, a, 8, 3), 1, true)
      assert.matches("run past the end", err_of(a.slice, a, 11, 0), 1, true)
      -- a slice outlives its array's last Lua reference
      local keep = cl.array("double", 4):ramp(1):slice(2, 2)
      collectgarbage()
      collectgarbage()
      assert.same({ 3, 4 }, keep:totable())
    end)

    it("a slice raises, naming the released array, once its array is released", function()
      local a = cl.array("float", 16):ramp()
      local s = a:slice(2, 4)
      local ss = s:slice(1, 2)
      assert.equal(2, s[0])
      s:release() -- a slice's release leaves the array and its other slices alone
      assert.is_true(ss.valid)
      assert.equal(3, ss[0])
      a:release()
      assert.is_false(ss.valid)
      assert.matches("(a slice of a released array)", tostring(ss), 1, true)
      local why = "attempt to use a slice of a released cl.array (float, 16 elements)"
      assert.matches(why, err_of(function() return ss[0] end), 1, true)
      assert.matches(why, err_of(function() ss[0] = 1 end), 1, true)
      assert.matches("calling 'sum' on bad self (" .. why, err_of(function() return ss:sum() end), 1, true)
      local dst = cl.array("float", 2)
      assert.matches("bad argument #1 to 'copy' (" .. why, err_of(function() return dst:copy(ss) end), 1, true)
      local ctx = cl.context()
      local q = ctx:queue()
      local b = ctx:buffer(64)
      assert.matches("bad argument #2 to 'write' (" .. why, err_of(function() return q:write(b, ss) end), 1, true)
      assert.matches("bad argument #2 to 'read' (" .. why, err_of(function() return q:read(b, ss) end), 1, true)
    end)

    it("gather picks a strided run; transpose transposes", function()
      local src = cl.array("int", 12):ramp()
      local g = cl.array("int", 4):gather(src, 1, 3)
      assert.same({ 1, 4, 7, 10 }, g:totable())
      assert.same({ 5, 6, 7 }, cl.array("int", 3):gather(src, 5):totable())
      assert.matches("array:gather: 4 elements from 3 by 3 run past the end of the source (12 elements)",
        err_of(g.gather, g, src, 3, 3), 1, true)
      assert.same({ 2, 5, 8, 11 }, g:gather(src, 2, 3):totable()) -- the last fitting run
      assert.matches("they must match", err_of(g.gather, cl.array("float", 2), src, 0), 1, true)
      local t = cl.array("int", 12):transpose(src, 3, 4) -- 3x4 -> 4x3
      for r = 0, 2 do
        for c = 0, 3 do assert.equal(src[r * 4 + c], t[c * 3 + r]) end
      end
      assert.matches("array:transpose: 4 x 4 elements do not fit the arrays", err_of(t.transpose, t, src, 4, 4), 1, true)
      assert.matches("share memory", err_of(src.transpose, src, src:slice(0, 12), 3, 4), 1, true)
    end)
  end)

  describe("compare, sum, min, max, totable", function()
    it("compare: exact for integers, relative tolerance for floats, NaN only matches NaN", function()
      local a, b = cl.array("int", 4):fill(1), cl.array("int", 4):fill(1)
      assert.same({ true, 0, 0, nil, 0 }, { a:compare(b) })
      b[2] = 5
      local ok, maxabs, maxrel, first, count = a:compare(b)
      assert.is_false(ok)
      assert.equal(4, maxabs)
      assert.equal(0.8, maxrel)
      assert.equal(2, first)
      assert.equal(1, count)
      assert.is_true((a:compare(b, 4)))
      local f, g = cl.array("float", 3):fill(1), cl.array("float", 3):fill(1)
      g[1] = 1.000001
      assert.is_true((f:compare(g)))
      g[1], g[2] = 1.1, 0.5
      ok, maxabs, maxrel, first, count = f:compare(g)
      assert.is_false(ok)
      assert.equal(1, first)
      assert.equal(2, count)
      assert.near(0.5, maxabs, 1e-6)
      assert.near(1.0, maxrel, 1e-6)
      assert.is_true((f:compare(g, 1.0)))
      f[0], g[0], g[1], g[2] = 0 / 0, 0 / 0, 1, 1
      assert.is_true((f:compare(g)))
      g[0] = 1
      ok, _, _, first = f:compare(g)
      assert.is_false(ok)
      assert.equal(0, first)
      assert.matches("array:compare: lengths differ (3 and 4 elements)", err_of(f.compare, f, cl.array("float", 4)), 1, true)
      local l1, l2 = cl.array("long", 1), cl.array("long", 1)
      l1[0], l2[0] = math.maxinteger, math.maxinteger - 1 -- equal as doubles, different as integers
      assert.is_false((l1:compare(l2)))
    end)

    it("compare: arrays the same bit for bit answer as element by element, fast (memcmp)", function()
      -- NaN, infinities and -0 included: what the element loop answers for each
      local a = cl.array("double", 6)
      a[0], a[1], a[2], a[3], a[4], a[5] = 0 / 0, math.huge, -math.huge, -0.0, 1e-300, 3
      local b = cl.array("double", 6):copy(a)
      assert.same({ true, 0, 0, nil, 0 }, { a:compare(b) })
      assert.same({ true, 0, 0, nil, 0 }, { a:compare(b, 0) })
      b[3] = 0.0 -- -0 and +0: not the same bits, equal as numbers
      assert.same({ true, 0, 0, nil, 0 }, { a:compare(b, 0) })
      b[5] = 4
      local ok, _, _, first, count = a:compare(b, 0)
      assert.is_false(ok)
      assert.equal(5, first)
      assert.equal(1, count)
      -- a float and a uint array of the same bits are not one type: compared as numbers
      local f, u = cl.array("float", 2):fill(1), cl.array("uint", 2):fill(0x3F800000)
      assert.is_false((f:compare(u, 0)))
      -- 16 Mi elements the same: at memcmp's speed, well under the element loop's (the same
      -- arrays with the last element changed: memcmp, then the loop); the best of 3 of each
      local big = cl.array("float", 2^24):fill(0.5)
      local twin = cl.array("float", 2^24):copy(big)
      local function best(expect)
        local t = math.huge
        for _ = 1, 3 do
          local t0 = cl.now()
          assert.equal(expect, (big:compare(twin, 0)))
          t = math.min(t, cl.now() - t0)
        end
        return t
      end
      local same = best(true)
      twin[2^24 - 1] = 1
      local differ = best(false)
      assert.is_true(3 * same < differ, ("the same: %d ns; the last element changed: %d ns"):format(same, differ))
      big:release(); twin:release()
    end)

    it("sum, min and max are computed in C", function()
      local a = cl.array("int", 5):ramp(10, -3)
      assert.equal(20, a:sum())
      assert.is_true(math.type(a:sum()) == "integer")
      assert.same({ -2, 4 }, { a:min() })
      assert.same({ 10, 0 }, { a:max() })
      local d = cl.array("double", 10):fill(0.1)
      assert.equal(1.0, d:sum()) -- compensated: naive summation gives 0.9999999999999999
      assert.same({}, { cl.array("int", 0):min() })
      assert.equal(0, cl.array("int", 0):sum())
    end)

    it("totable returns a 1-based list, optionally a part", function()
      local a = cl.array("int", 5):ramp(1)
      assert.same({ 1, 2, 3, 4, 5 }, a:totable())
      assert.same({ 3, 4, 5 }, a:totable(2))
      assert.same({ 2, 3 }, a:totable(1, 2))
      assert.same({}, a:totable(5))
      assert.matches("array:totable: 3 elements from 4 run past the end of an array of 5",
        err_of(a.totable, a, 4, 3), 1, true)
    end)
  end)

  describe("release", function()
    it("makes the array unusable and is idempotent", function()
      local a = cl.array("int", 4)
      a:release()
      a:release()
      assert.is_false(a.valid)
      assert.equal("cl.array: int (released)", tostring(a))
      assert.matches("attempt to use a released cl.array", err_of(function() return a[0] end), 1, true)
      assert.matches("attempt to use a released cl.array", err_of(function() a[0] = 1 end), 1, true)
      assert.matches("attempt to use a released cl.array", err_of(a.fill, a, 1), 1, true)
      assert.matches("attempt to use a released cl.array", err_of(a.sum, a), 1, true)
      assert.matches("attempt to use a released cl.array", err_of(cl.array("int", 4).copy, cl.array("int", 4), a), 1, true)
    end)

    it("releases at the end of a <close> scope", function()
      local outer
      do
        local a <close> = cl.array("float", 16):fill(1)
        outer = a
        assert.is_true(outer.valid)
      end
      assert.is_false(outer.valid)
      assert.matches("attempt to use a released cl.array", err_of(function() return outer[0] end), 1, true)
    end)
  end)
end)
