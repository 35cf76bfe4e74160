-- clua.similarity: normalised tokens, winnowed fingerprints (any shared
-- passage of K + W - 1 tokens found), the pairs of a class with the handed-out
-- code and what everyone writes left out (spec/fixtures/grade/skeleton/: four
-- students' trees from spec/fixtures/grade/skeleton.cl and zoe, a renamed copy
-- of leo), work that grows with the tokens, and a stop for the grading budget.
-- spec/grade_similar_spec.lua runs the grader over the same class.
local similarity = require("clua.similarity")
local shell = require("spec.support.shell")

local FIX = "spec/fixtures/grade/"
local function class()
  local subs = {}
  for _, n in ipairs({ "ana", "hana", "leo", "walt", "zoe" }) do
    subs[#subs + 1] = { name = n, source = shell.read(FIX .. "skeleton/" .. n .. ".cl") }
  end
  return subs
end
local function listed(p)
  local out = {}
  for _, x in ipairs(p) do out[#out + 1] = ("%s~%s %.2f"):format(x.a, x.b, x.score) end
  return table.concat(out, ", ")
end

-- n tokens of made-up kernel code, different for every seed
local function code(n, seed)
  math.randomseed(seed)
  local parts, ops = {}, { "+", "-", "*", "<<", "&", "^" }
  for j = 1, n // 11 do
    parts[j] = ("v%d = w[%d] %s %d + u;"):format(j, math.random(1000), ops[math.random(#ops)], math.random(1e6))
  end
  return table.concat(parts, "\n")
end

describe("clua.similarity", function()
  local a = "/* mine */ __kernel void k(__global float *x, uint n) { size_t i = get_global_id(0); if (i < n) x[i] *= 2.0f; }"
  local b = "// honest\n__kernel void k(__global float *data,\n uint count)\n{\n  size_t me = get_global_id(0);\n"
    .. "  if (me < count)\n    data[me] *= 2.0f;\n}\n"
  local c = "__kernel void k(__global float *x, uint n) { for (size_t i = 0; i < n; i++) x[i] = x[i] + 1.0f; }"

  it("reads a kernel as tokens without comments, layout or the names a student chose", function()
    assert.are.same(similarity.tokens(a), similarity.tokens(b))
    assert.are.same({ "$", "+=", "$", "[", "$", "]", ">>=", "1", ";", "$", "=", "2.0f", "*", "get_global_id", "(",
      "0", ")", "->", "$", ";" }, similarity.tokens("a += b[c] >>= 1; /* x */ d = 2.0F * get_global_id(0)->e;"))
    assert.are.same({}, similarity.tokens(""))
    assert.are.same({ "$" }, similarity.tokens("x")) -- no trailing space needed
  end)

  it("finds every shared passage of K + W - 1 tokens, whatever surrounds it, with few fingerprints", function()
    local passage = {}
    for j = 1, similarity.K + similarity.W - 1 do passage[j] = tostring(j) end
    passage = " " .. table.concat(passage, " ") .. " "
    for seed = 1, 20 do
      local ids = {}
      local x = code(200, seed) .. passage .. code(100, seed + 100)
      local y = code(300, seed + 200) .. passage .. code(50, seed + 300)
      local fx, fy = similarity.fingerprints(x, ids), similarity.fingerprints(y, ids)
      local common = false
      for h in pairs(fx) do if fy[h] then common = true end end
      assert.is_true(common, "seed " .. seed)
    end
    -- with `all`, every distinct passage of K tokens; winnowed, a part of them (about 2 / (W + 1))
    local src, ids = code(22000, 7), {}
    local toks, distinct, total = similarity.tokens(src), {}, 0
    for i = 1, #toks - similarity.K + 1 do
      local g = table.concat(toks, " ", i, i + similarity.K - 1)
      if not distinct[g] then distinct[g] = true; total = total + 1 end
    end
    local all, n_all = similarity.fingerprints(src, ids, { all = true }), 0
    for _ in pairs(all) do n_all = n_all + 1 end
    assert.are.equal(total, n_all)
    local f, count = similarity.fingerprints(src, ids), 0
    for h in pairs(f) do count = count + 1; assert.is_true(all[h]) end
    assert.is_true(count > 0.2 * total and count < 0.5 * total, count .. " fingerprints of " .. total .. " passages")
  end)

  it("scores a copy with its names, comments and layout changed 1.00, other code not at all", function()
    local p = similarity.pairs({ { name = "a", source = a }, { name = "b", source = b }, { name = "c", source = c } }, { threshold = 0.95 })
    assert.are.same({ { a = "a", b = "b", score = 1 } }, p)
    -- a passage only two kernels have is never what everyone writes: a class of two still finds its copy
    assert.are.same({ { a = "a", b = "b", score = 1 } }, similarity.pairs({ { name = "a", source = a },
      { name = "b", source = b } }, { common = 0.1 }))
    assert.are.same({}, similarity.pairs({ { name = "a", source = a }, { name = "c", source = c } }, { threshold = 0.5 }))
  end)

  it("finds the renamed copy and none of four trees written from one skeleton", function()
    local subs, base = class(), { shell.read(FIX .. "skeleton.cl") }
    -- the skeleton is most of each kernel: with nothing left out, the four trees look alike
    local all = similarity.pairs(subs, { threshold = 0.8, common = 1 })
    assert.is_true(#all >= 7, listed(all))
    -- left out: the handed-out code (base), or what more than half the class writes, or both
    for _, opts in ipairs({ { base = base, common = 1 }, {}, { base = base } }) do
      opts.threshold = 0.8
      assert.are.same({ { a = "leo", b = "zoe", score = 1 } }, similarity.pairs(subs, opts))
    end
    -- a kernel that is all skeleton has nothing of its own and pairs with none, not even its twin
    subs[6] = { name = "lazy1", source = shell.read(FIX .. "skeleton.cl") }
    subs[7] = { name = "lazy2", source = "// done\n" .. shell.read(FIX .. "skeleton.cl") }
    local p = similarity.pairs(subs, { base = base, threshold = 0 })
    assert.are.same({ a = "leo", b = "zoe", score = 1 }, p[1])
    for _, x in ipairs(p) do assert.is_nil((x.a .. x.b):find("lazy"), listed(p)) end
  end)

  it("compares 200k tokens a pair, and a class of 40, in well under a few seconds", function()
    local x = code(200000, 1)
    local y = code(100000, 1) .. "\n" .. code(100000, 2) -- half of x, then its own
    local t0 = os.clock()
    local p = similarity.pairs({ { name = "x", source = x }, { name = "y", source = y } }, { threshold = 0 })
    local secs = os.clock() - t0
    assert.is_true(secs < 3, secs .. " s")
    assert.are.equal(1, #p)
    assert.is_true(p[1].score > 0.45 and p[1].score < 0.55, p[1].score) -- half of each shared: about 1/2
    local subs = {}
    for i = 1, 40 do subs[i] = { name = "s" .. i, source = code(10000, i) } end
    subs[41] = { name = "copy", source = subs[17].source:gsub("v(%d+)", "renamed%1") }
    t0 = os.clock()
    p = similarity.pairs(subs)
    secs = os.clock() - t0
    assert.is_true(secs < 3, secs .. " s")
    assert.are.same({ { a = "s17", b = "copy", score = 1 } }, p)
  end)

  it("stops when the budget says so", function()
    local x, asked = code(200000, 3), 0
    assert.is_nil(similarity.pairs({ { name = "x", source = x }, { name = "y", source = x } },
      { over = function() asked = asked + 1; return asked > 1 end }))
    assert.is_nil(similarity.pairs({ { name = "x", source = x } }, { over = function() return true end }))
    -- a budget that runs out partway: it stops soon after
    local t0 = os.clock()
    local stop = t0 + 0.1
    assert.is_nil(similarity.pairs({ { name = "x", source = x }, { name = "y", source = x }, { name = "z", source = x } },
      { over = function() return os.clock() > stop end }))
    assert.is_true(os.clock() - stop < 0.3, (os.clock() - stop) .. " s past the budget")
    assert.are.equal(1, #similarity.pairs({ { name = "x", source = x }, { name = "y", source = x } },
      { over = function() return false end }))
  end)
end)
