-- math: instruction optimizations, speed and accuracy side by side. NVIDIA
-- OpenCL Best Practices Guide 5.1-5.1.4; OpenCL slides "Special instructions":
-- sin/cos/exp/log/pow/sqrt against native_*, builds with -cl-mad-enable and
-- -cl-fast-relaxed-math, i / n and i % n against shifts and masks for a power
-- of two n (from an argument), 1/sqrt against rsqrt, double constants (1.0)
-- against single ones (1.0f). Every variant's outputs are compared with a
-- double-precision CPU reference: the maximum error in ulp is printed beside
-- its throughput, and a variant fails past its bound (OpenCL's ulp limits for
-- the full-precision functions; a loose bound for native_* and relaxed math,
-- whose accuracy is implementation-defined; exact for integers).
local cl = require("cl")
local recipe = require("clua.recipe")

local R = recipe.new{
  name = "math",
  description = [[Math functions vs native_*, build options, division vs shifts, 1/sqrt vs rsqrt, double vs
    float constants: GOP/s beside the maximum error in ulp against a double-precision reference.]],
  seed = "NVIDIA OpenCL Best Practices Guide 5.1-5.1.4; OpenCL slides \"Special instructions\"",
  quick_size = "4K",
  options = function(p)
    p:int("--evals", "Evaluations per work-item (default 256 on a GPU, 8 on a CPU, 2 with --quick).")
    p:option("--shift", "n = 2^shift for i / n and i % n.", "5"):argname("S"):convert(require("clua.argcheck").whole)
    p:flag("--warn-bounds", "Report a full-precision function past OpenCL's ulp bound in the table (marked "
      .. "VIOLATED) instead of failing; NaN, garbage past the loose bound and wrong integers still fail.")
  end,
}

local MAGIC = -3e38         -- a value no sink can take (see kernels/math.cl)
local P = string.unpack("f", string.pack("f", 2.37)) -- pow's exponent, as the kernel's float sees it
local LOOSE = 2 ^ -10       -- the loose bound: |error| <= 2^-10 (|reference| + A)

-- The cubic of kernels/math.cl with the constants as double-precision numbers.
local C3, C2, C1, C0 = 0.1234567891234, 0.9876543210987, 1.4142135623731, 0.5772156649015

-- Inputs, references and how errors are judged, per function. `A` = 1 where
-- approximations are specified by absolute error near the result's zeros
-- (sin, cos: OpenCL 2.x relaxed math gives sin/cos an absolute bound of 2^-11;
-- log near 1), else 0 (a relative bound).
local FUNCS = {
  identity = { lo = -1, hi = 1, f = function(x) return x end, A = 0 },
  sin = { lo = -100, hi = 100, f = math.sin, A = 1 },
  cos = { lo = -100, hi = 100, f = math.cos, A = 1 },
  exp = { lo = -20, hi = 20, f = math.exp, A = 0 },
  log = { lo = 1e-3, hi = 1e3, f = math.log, A = 1 },
  pow = { lo = 0.01, hi = 10, f = function(x) return x ^ P end, A = 0 },
  sqrt = { lo = 1e-3, hi = 1e4, f = math.sqrt, A = 0 },
  rsqrt = { lo = 1e-3, hi = 1e4, f = function(x) return 1 / math.sqrt(x) end, A = 0 },
  poly = { lo = 0, hi = 2, f = function(x) return ((C3 * x + C2) * x + C1) * x + C0 end, A = 0 },
}

local RELAXED, MAD = "-cl-fast-relaxed-math", "-cl-mad-enable"

-- The rows. bound: a number of ulp (OpenCL 1.2/3.0 full profile, single
-- precision, table 7.1: sin, cos 4; exp, log 3; pow 16; sqrt 3; rsqrt 2; x / y
-- 2.5, so 1.0f / sqrt(x) <= 3 + 2.5 rounded up to 6), "loose" or "exact".
-- ref: the variant the speedup is measured against.
local ROWS = {
  { section = "5.1", fn = "identity", variant = "x (step + sink only)", kernel = "identity", bound = 0 },
}
for _, fn in ipairs({ "sin", "cos", "exp", "log", "pow", "sqrt" }) do
  local call = fn == "pow" and "pow(x, p)" or fn .. "(x)"
  local ncall = fn == "pow" and "native_powr(x, p)" or "native_" .. fn .. "(x)"
  local bound = ({ sin = 4, cos = 4, exp = 3, log = 3, pow = 16, sqrt = 3 })[fn]
  ROWS[#ROWS + 1] = { section = "5.1.4", fn = fn, variant = call, kernel = "f_" .. fn, bound = bound, ref = true }
  ROWS[#ROWS + 1] = { section = "5.1.4", fn = fn, variant = ncall, kernel = "native_" .. fn .. "_", bound = "loose" }
  ROWS[#ROWS + 1] = { section = "5.1", fn = fn, variant = call, kernel = "f_" .. fn, build = RELAXED, bound = "loose" }
end
for _, r in ipairs({
  { section = "5.1.2", fn = "rsqrt", variant = "1.0f / sqrt(x)", kernel = "recip_sqrt", bound = 6, ref = true },
  { section = "5.1.2", fn = "rsqrt", variant = "rsqrt(x)", kernel = "f_rsqrt", bound = 2 },
  { section = "5.1.2", fn = "rsqrt", variant = "native_rsqrt(x)", kernel = "native_rsqrt_", bound = "loose" },
  { section = "5.1.2", fn = "rsqrt", variant = "1.0f / sqrt(x)", kernel = "recip_sqrt", build = RELAXED,
    bound = "loose" },
  -- Horner with positive terms: 6 roundings and 4 rounded constants, each
  -- <= 2^-24 relative, no cancellation: <= 10 ulp; double constants: the cubic in
  -- double, rounded once to float: <= 1 ulp.
  { section = "5.1.3", fn = "poly", variant = "cubic, float constants (1.0f)", kernel = "poly_float", bound = 10,
    ref = true },
  { section = "5.1", fn = "poly", variant = "cubic, float constants (1.0f)", kernel = "poly_float", build = MAD,
    bound = "loose" },
  { section = "5.1.3", fn = "poly", variant = "cubic, double constants (1.0)", kernel = "poly_double", bound = 1,
    fp64 = true },
  { section = "5.1.1", fn = "divmod", variant = "i / n, i % n", kernel = "divmod", bound = "exact", ref = true,
    int = true },
  { section = "5.1.1", fn = "divmod", variant = "i >> s, i & (n - 1)", kernel = "shiftmask", bound = "exact",
    int = true },
}) do ROWS[#ROWS + 1] = r end

-- The ulp of a float near r: 2^(exponent - 23), at least 2^-149 (denormals).
local function ulp(r)
  if r == 0 or r ~= r then return 2 ^ -149 end
  local _, e = math.frexp(math.abs(r))
  return 2 ^ math.max(e - 24, -149)
end

R:main(function(R, dev, info)
  local gpu = info.type == "GPU"
  local q = R.queue
  local n = R.size and math.tointeger(R.size) // 4 or (gpu and 2 ^ 20 or 2 ^ 16)
  n = math.max(256, math.min(n, 2 ^ 20) // 256 * 256) -- the sample: every output, at most 2^20
  local evals = R.args.evals or (R.quick and 2 or gpu and 256 or 8)
  local shift = R.args.shift
  local divisor = 1 << shift
  local fp64 = info.double_support
  local defines = fp64 and { HAS_FP64 = true } or nil

  -- Inputs and references, once per function.
  local data = {}
  for name, F in pairs(FUNCS) do
    local x = cl.array("float", n):random(#name * 7 + 31, F.lo, F.hi)
    local xs = x:totable()
    local ref, inv = {}, {}
    for i = 1, n do
      local r = F.f(xs[i])
      ref[i], inv[i] = r, 1 / ulp(r)
    end
    data[name] = { x = x, xs = xs, ref = ref, inv = inv, buf = R:input("x (" .. name .. ")", x) }
  end
  local ints, int_ref = cl.array("uint", n):random(77, 0, 0xFFFFFFFF), cl.array("uint", n)
  for i = 0, n - 1 do int_ref[i] = ((ints[i] // divisor) * 65599 + ints[i] % divisor) & 0xFFFFFFFF end
  local dInts = R:input("i", ints)
  local dOut, iOut = R:output("out", "float", n, "write_only"), R:output("out (integers)", "uint", n, "write_only")

  -- A float variant's check: the largest error in ulp (and absolute) against
  -- the double reference, and a failure past the variant's bound.
  local function ulp_check(row, name, res)
    return function(fout)
      local d, A, loose = data[row.fn], FUNCS[row.fn].A, row.bound == "loose"
      local got, ref, inv = fout:totable(), d.ref, d.inv
      local max_ulp, worst, max_abs, bad = 0, 1, 0, nil
      for i = 1, n do
        local r, e = ref[i], math.abs(got[i] - ref[i])
        if e ~= e then e = math.huge end -- NaN
        if e * inv[i] > max_ulp then max_ulp, worst = e * inv[i], i end
        if e > max_abs then max_abs = e end
        if loose and not bad and e > LOOSE * ((r < 0 and -r or r) + A) then bad = i end
      end
      res.ulp, res.abs, res.x = max_ulp, max_abs, d.xs[worst]
      if bad then
        error(("verify %s: at x = %.9g got %.9g, expected %.9g: beyond the loose bound 2^-10 x (|ref| + %d)")
          :format(name, d.xs[bad], got[bad], ref[bad], A), 0)
      end
      if type(row.bound) == "number" and max_ulp > row.bound then
        res.violated = true
        if not R.args.warn_bounds then
          error(("verify %s: %.2f ulp at x = %.9g (got %.9g, expected %.9g) exceeds the bound of %g ulp")
            :format(name, max_ulp, d.xs[worst], got[worst], ref[worst], row.bound), 0)
        end
      end
    end
  end

  -- One measurement per row: the kernel reads its inputs (unchanged after)
  -- and owns every output; one input and one output word per work-item, and
  -- `evals` evaluations (not a roofline point: an evaluation is no one operation).
  local results = {}
  for _, row in ipairs(ROWS) do
    if not row.fp64 or fp64 then
      local k = R:kernel("math.cl", row.kernel, defines, row.build)
      local name = ("%s%s"):format(row.variant, row.build and (" (" .. row.build .. ")") or "")
      local res = { row = row, ulp = 0, abs = 0 }
      local din = row.int and dInts or data[row.fn].buf
      if row.int then
        k:args(dInts, iOut, divisor, shift, divisor - 1, evals, 0)
      else
        local step = (FUNCS[row.fn].hi - FUNCS[row.fn].lo) * 2 ^ -24
        k:args(din, dOut, cl.float(step), evals, cl.float(MAGIC), cl.float(P))
      end
      res.r = R:measure{ label = row.variant .. (row.build and (" " .. row.build) or ""), reads = { din },
        outputs = { row.int and { iOut, name = name, expect = int_ref, exact = true }
          or { dOut, name = name, check = ulp_check(row, name, res) } },
        bytes = 8 * n, ops = n * evals, roofline = false, run = function() return q:launch(k, n, nil) end }
      results[#results + 1] = res
    end
  end

  -- Everything verified: the figures.
  local base = {}
  for _, r in ipairs(results) do if r.row.ref then base[r.row.fn] = r.r.median end end
  local times = R:time_columns("ms", { compare = false })
  for _, c in ipairs(times) do c.format = function(v) return ("%.4f"):format(v / 1e6) end end
  local function sig(v)
    return v >= 100 and ("%.0f"):format(v) or v >= 10 and ("%.1f"):format(v) or ("%.3g"):format(v)
  end
  local t = R:table{
    title = ("Arithmetic instructions: speed and accuracy (%d work-items x %d evaluations)"):format(n, evals),
    id = "math",
    columns = {
      { name = "section" }, { name = "function", key = true }, { name = "variant", key = true },
      { name = "build", key = true }, { name = "GOP/s", format = sig, compare = true }, times,
      { name = "speedup", unit = "x", format = "%.2f" },
      { name = "max error", unit = "ulp", format = function(v) return v >= 1e5 and ("%.3g"):format(v)
        or ("%.2f"):format(v) end },
      { name = "max abs error", format = "%.3g" }, { name = "at x", format = "%.7g" },
      { name = "bound", unit = "ulp" } },
  }
  for _, r in ipairs(results) do
    local row = r.row
    R:add_row(t, r.r, { section = row.section, ["function"] = row.fn, variant = row.variant,
      build = row.build or "default", ["GOP/s"] = r.r.rate / 1e9,
      speedup = base[row.fn] and base[row.fn] / r.r.median or nil,
      ["max error"] = r.ulp, ["max abs error"] = r.abs, ["at x"] = r.x,
      bound = r.violated and ("%s VIOLATED"):format(row.bound) or row.bound })
  end
  t:note("GOP/s: evaluations of the variant's expression per second (10^9); each also costs an argument step "
    .. "and a sum (the identity row)")
  t:note("speedup: time of the function's reference row (full precision, default build; i / n for 5.1.1) / this "
    .. "row's time")
  t:note(("errors: against Lua's double-precision math on every output (%d inputs per function); ulp of the "
    .. "float nearest the reference"):format(n))
  t:note("bound: OpenCL's single-precision ulp limits for full-precision functions; loose = |error| <= 2^-10 x "
    .. "(|reference| + 1 for sin, cos, log, + 0 otherwise), for native_*, -cl-fast-relaxed-math and "
    .. "-cl-mad-enable, whose accuracy is implementation-defined; exact for integers")
  t:note(("inputs: sin, cos in [-100, 100]; exp [-20, 20]; log [1e-3, 1e3]; pow x in [0.01, 10], p = %.7g; "
    .. "sqrt, rsqrt [1e-3, 1e4]; cubic [0, 2]; integers: random 32-bit, n = %d (an argument)"):format(P, divisor))
  for _, r in ipairs(results) do
    if r.violated then
      t:note(("VIOLATED: %s (%s) exceeds OpenCL's %g-ulp bound (--warn-bounds)"):format(r.row.variant,
        r.row.build or "default", r.row.bound))
    end
  end
  if not fp64 then t:note("no double precision on this device: the double-constant row is left out") end
  R:emit(t)
end)
