-- clua.matrix: the CPU reference of C = A B, every element for a small
-- product, sampled rows plus row and column sums for a large one, and its
-- check raising through the R it is given.
package.path = "lua/?.lua;" .. package.path
local matrix = require("clua.matrix")
local verify = require("clua.verify")
local cl = require("cl")

-- A recipe's R as far as the check needs it, recording what it verified.
local function fake_R()
  local R = { names = {} }
  function R:verify(name, got, expected, opts)
    self.names[#self.names + 1] = name
    return verify.arrays(name, got, expected, opts)
  end
  return R
end

describe("clua.matrix", function()
  it("compares every element of a small product", function()
    local m, k, n = 5, 3, 4
    local A = cl.array("float", m * k):random(1)
    local B = cl.array("float", k * n):random(2)
    local C = cl.array("float", m * n)
    for r = 0, m - 1 do
      for c = 0, n - 1 do
        local s = 0.0
        for i = 0, k - 1 do s = s + A[r * k + i] * B[i * n + c] end
        C[r * n + c] = s
      end
    end
    local ref = matrix.product_reference(A, B, m, k, n, 3)
    assert.is_true(ref.full)
    assert.are.equal("every element against the CPU product", ref.how)
    assert.are.same({ 0, 1, 2, 3, 4 }, ref.rows)
    local R = fake_R()
    matrix.check_product(R, "C", C, ref)
    assert.are.same({ "C" }, R.names)
    C[7] = C[7] + 1
    local ok, err = pcall(matrix.check_product, R, "C", C, ref)
    assert.is_false(ok)
    assert.matches("verify C: 1 of 20 elements differ", err)
  end)

  it("samples rows of a large product and checks every row and column sum", function()
    -- A all ones: every row of C is the column sums of B
    local m, k, n = 512, 128, 512
    local A = cl.array("float", m * k):fill(1)
    local B = cl.array("float", k * n):random(2)
    local colsum = {}
    for c = 1, n do colsum[c] = 0.0 end
    for i = 0, k - 1 do
      local row = B:totable(i * n, n)
      for c = 1, n do colsum[c] = colsum[c] + row[c] end
    end
    local C = cl.array("float", m * n)
    for r = 0, m - 1 do
      for c = 1, n do C[r * n + c - 1] = colsum[c] end
    end
    local ref = matrix.product_reference(A, B, m, k, n, 3)
    assert.is_falsy(ref.full)
    assert.are.equal(0, ref.rows[1])
    assert.are.equal(m - 1, ref.rows[2])
    assert.is_true(#ref.rows > 2 and #ref.rows < m)
    assert.are.equal(#ref.rows .. " whole rows against the CPU product; every row sum and column sum", ref.how)
    local R = fake_R()
    matrix.check_product(R, "C", C, ref)
    assert.are.equal("C, row 0", R.names[1])
    assert.are.equal("C, row sums", R.names[#R.names - 1])
    assert.are.equal("C, column sums", R.names[#R.names])

    -- a row outside the sample is caught by its sum
    local sampled = {}
    for _, r in ipairs(ref.rows) do sampled[r] = true end
    local r = 1
    while sampled[r] do r = r + 1 end
    C[r * n + 5] = C[r * n + 5] + 100
    local ok, err = pcall(matrix.check_product, fake_R(), "C", C, ref)
    assert.is_false(ok)
    assert.matches("verify C, row sums: 1 of 512 elements differ", err)
    -- a sampled row by the row itself
    C[r * n + 5] = C[r * n + 5] - 100
    C[5] = C[5] + 100
    ok, err = pcall(matrix.check_product, fake_R(), "C", C, ref)
    assert.is_false(ok)
    assert.matches("verify C, row 0: 1 of 512 elements differ", err)
  end)

  it("measures a product kernel under its contract: the owned part of C checked, 2 m n k operations", function()
    local m, k, n = 4, 2, 3
    local A, B = cl.array("float", m * k):random(1), cl.array("float", k * n):random(2)
    local ref = matrix.product_reference(A, B, m, k, n, 3)
    local R = fake_R()
    function R:measure(spec) self.spec = spec; return "result" end
    local run = function() end
    assert.are.equal("result", matrix.measure(R, { label = "C", out = "dC", ref = ref, run = run, bytes = 8 }))
    local s = R.spec
    assert.are.equal(2 * m * n * k, s.ops)
    assert.are.same({ 0, m * n }, s.outputs[1].owns)
    assert.are.equal("dC", s.outputs[1][1])
    assert.are.equal(8, s.bytes)
    assert.is_nil(s.ref or s.out or s.reps or s.roofline)
    local C = cl.array("float", m * n)
    assert.is_false(pcall(s.outputs[1].check, C))
    matrix.measure(R, { label = "C", out = "dC", ref = ref, run = run, once = true })
    assert.are.same({ 1, 0, false }, { R.spec.reps, R.spec.warmup, R.spec.roofline })
    assert.is_nil(R.spec.once)
  end)
end)
