--- clua.matrix: the CPU reference of a matrix product C = A B and the check of
-- a device's C against it (recipes/matmul.lua, recipes/aat.lua).
-- Every element when the product is small (FULL multiply-adds, about a quarter
-- of a second of Lua); else a sample of whole rows (the first, the last and
-- random ones, as many as the same budget allows) plus every row sum and every
-- column sum of C, from the row sums of B and the column sums of A at C speed:
-- each element of the result then takes part in a full comparison or in two
-- sums. Touches the `cl` module only when called.
-- @module clua.matrix
local matrix = {}

local FULL = 1 << 24
local SUM_TOL = 1e-5

--- The CPU reference of C = A B, computed once for every kernel that produces it.
-- matrix.product_reference(A, B, m, k, n, seed): A (m x k) and B (k x n) are
-- row-major float cl.arrays; `seed` picks the sampled rows of a large product.
-- Returns `ref`: `m, k, n, tol` (the elements' tolerance), `full` (every
-- element), `rows` (the 0-based rows compared) and `values` (those rows of C,
-- accumulated in double), `how` (what is compared, for a note); when not
-- `full`, also `row_sums`, `col_sums` and a `scratch` array for the check.
function matrix.product_reference(A, B, m, k, n, seed)
  local cl = require("cl")
  local ref = { m = m, k = k, n = n, tol = math.max(1e-5, 8 * math.sqrt(k) * 2^-24) }
  local rows = {}
  if m * n * k <= FULL then
    for r = 0, m - 1 do rows[#rows + 1] = r end
    ref.full = true
    ref.how = "every element against the CPU product"
  else
    local want = math.max(2, math.min(m, FULL // (n * k)))
    local pick = cl.array("int", want):random(seed, 0, m - 1)
    local seen = { [0] = true, [m - 1] = true }
    rows = { 0, m - 1 }
    for i = 0, want - 3 do
      local r = pick[i]
      if not seen[r] then seen[r] = true; rows[#rows + 1] = r end
    end
  end
  -- The chosen rows of A B, accumulated in double over the k rows of B.
  local acc, arow = {}, {}
  for s, r in ipairs(rows) do
    local t = {}
    for c = 1, n do t[c] = 0.0 end
    acc[s], arow[s] = t, A:totable(r * k, k)
  end
  for i = 1, k do
    local brow = B:totable((i - 1) * n, n)
    for s = 1, #rows do
      local a, t = arow[s][i], acc[s]
      for c = 1, n do t[c] = t[c] + a * brow[c] end
    end
  end
  local values = cl.array("float", #rows * n)
  for s = 1, #rows do
    local t, base = acc[s], (s - 1) * n - 1
    for c = 1, n do values[base + c] = t[c] end
  end
  ref.rows, ref.values = rows, values
  if ref.full then return ref end

  -- Row sums of C = A (B 1); column sums = (1' A) B.
  local bsum, asum = {}, {}
  for i = 0, k - 1 do bsum[i + 1] = B:slice(i * n, n):sum() end
  local col = cl.array("float", m)
  for i = 0, k - 1 do asum[i + 1] = col:gather(A, i, k):sum() end
  ref.row_sums, ref.col_sums = {}, {}
  for r = 0, m - 1 do
    local a, s = A:totable(r * k, k), 0.0
    for i = 1, k do s = s + a[i] * bsum[i] end
    ref.row_sums[r + 1] = s
  end
  local cs = ref.col_sums
  for c = 1, n do cs[c] = 0.0 end
  for i = 1, k do
    local brow, a = B:totable((i - 1) * n, n), asum[i]
    for c = 1, n do cs[c] = cs[c] + a * brow[c] end
  end
  ref.scratch = cl.array("float", m * n)
  ref.how = ("%d whole rows against the CPU product; every row sum and column sum"):format(#rows)
  return ref
end

--- Verifies a device's C (m x n) against a product reference.
-- matrix.check_product(R, name, C, ref): every check goes through `R:verify`
-- (a recipe's R), so a mismatch raises through the recipe: `NAME` when every
-- element is compared; else `NAME, row R` for a sampled row, then
-- `NAME, row sums` and `NAME, column sums` (tolerance 1e-5).
function matrix.check_product(R, name, C, ref)
  local m, n = ref.m, ref.n
  if ref.full then return R:verify(name, C, ref.values, { tol = ref.tol }) end
  for s, r in ipairs(ref.rows) do
    R:verify(("%s, row %d"):format(name, r), C:slice(r * n, n), ref.values:slice((s - 1) * n, n), { tol = ref.tol })
  end
  local rs, cs, t = {}, {}, ref.scratch
  for r = 0, m - 1 do rs[r + 1] = C:slice(r * n, n):sum() end
  t:transpose(C, m, n)
  for c = 0, n - 1 do cs[c + 1] = t:slice(c * m, m):sum() end
  R:verify(name .. ", row sums", rs, ref.row_sums, { tol = SUM_TOL })
  R:verify(name .. ", column sums", cs, ref.col_sums, { tol = SUM_TOL })
end

--- Measures a kernel that writes a product C = A B (`R:measure`, clua.harness):
-- it owns C's first `ref.m` x `ref.n` elements, checked by `check_product`,
-- and does 2 m n k operations. `spec` is R:measure's less `outputs` and `ops`,
-- with `out` (C's buffer, made by R:output), `ref` (`product_reference`) and
-- `once` (true: one repetition, no warm-up, no roofline point: a check of a
-- second launch rather than a figure).
-- @tab R the recipe
-- @tab spec as above
-- @treturn tab what R:measure returns
function matrix.measure(R, spec)
  local ref, s = spec.ref, {}
  for k, v in pairs(spec) do if k ~= "ref" and k ~= "out" and k ~= "once" then s[k] = v end end
  s.ops = 2 * ref.m * ref.n * ref.k
  s.outputs = { { spec.out, owns = { 0, ref.m * ref.n },
    check = function(C) matrix.check_product(R, spec.label, C, ref) end } }
  if spec.once then s.reps, s.warmup, s.roofline = 1, 0, false end
  return R:measure(s)
end

return matrix
