--- clua.verify: compare a device result with a CPU reference before any figure
-- is printed. A mismatch raises an error that names the worst element.
-- @module clua.verify
local options = require("clua.options")
local verify = {}

local float_types = { float = true, double = true, float2 = true, float4 = true, double2 = true }
verify.default_tol = { float = 1e-5, double = 1e-9 }

-- 0-based element access and length for a cl.array (0-based), a Lua list
-- (1-based: element i is t[i + 1]) or a function i -> value (no length).
local function access(x)
  local t = type(x)
  if t == "function" then return x, nil end
  if t == "table" then return function(i) return x[i + 1] end, #x end
  return function(i) return x[i] end, #x
end

local function elem_type(x)
  if type(x) == "userdata" then return x.type end
end

local function has_float(x)
  if type(x) ~= "table" then return false end
  for i = 1, #x do if math.type(x[i]) == "float" then return true end end
  return false
end

local function fmt(v)
  if math.type(v) == "integer" then return tostring(v) end
  return ("%.9g"):format(v)
end

--- Checks a result array against a reference, element by element.
-- verify.arrays(name, got, expected, [opts]) checks every element of `got`
-- (a cl.array or a Lua list) against `expected` (a cl.array, a Lua list, or a
-- function of the 0-based index). Integer types must match exactly; float
-- types pass when |got - expected| <= tol * max(1, |expected|) (opts.tol,
-- default 1e-5 for float, 1e-9 for double). opts.exact forces exact comparison.
-- Returns {n=, max_abs=, max_rel=}; raises
--   "verify NAME: K of N elements differ (...); worst at index I: got G, expected E"
function verify.arrays(name, got, expected, opts)
  opts = options.check(opts, "verify.arrays", { "tol", "exact" })
  local get, n = access(got)
  local ref, m = access(expected)
  if not n then error("verify " .. name .. ": the result must be a cl.array or a list", 2) end
  if m and m ~= n then
    error(("verify %s: %d elements, expected %d"):format(name, n, m), 0)
  end
  local et = elem_type(got) or elem_type(expected)
  local is_float = not opts.exact and (float_types[et] or opts.tol ~= nil
    or (not et and (has_float(got) or has_float(expected))))
  local tol = 0
  if is_float then tol = opts.tol or verify.default_tol[et and et:match("^double") and "double" or "float"] end

  -- Fast path: two host arrays, compared in C (the same rule; a mixed pair as two doubles).
  if type(got) == "userdata" and type(expected) == "userdata" and got.compare then
    local ok, max_abs, max_rel = got:compare(expected, tol)
    if ok then return { n = n, max_abs = max_abs, max_rel = max_rel } end
  end

  local bad, worst, worst_err, max_abs, max_rel, first = 0, nil, -1, 0, 0, nil
  for i = 0, n - 1 do
    local a, r = get(i), ref(i)
    local d = math.abs(a - r)
    local err
    if a ~= a or r ~= r then
      err = (a ~= a and r ~= r) and 0 or math.huge
    else
      err = d / math.max(1, math.abs(r))
      if d > max_abs then max_abs = d end
      if err > max_rel then max_rel = err end
    end
    if err > tol then
      bad = bad + 1
      first = first or i
      if err > worst_err then worst, worst_err = i, err end
    end
  end
  if bad > 0 then
    local how = is_float and ("tolerance %g"):format(tol) or "exact"
    error(("verify %s: %d of %d elements differ (%s); worst at index %d: got %s, expected %s; "
      .. "first at index %d: got %s, expected %s")
      :format(name, bad, n, how, worst, fmt(get(worst)), fmt(ref(worst)), first, fmt(get(first)),
        fmt(ref(first))), 0)
  end
  return { n = n, max_abs = max_abs, max_rel = max_rel }
end

--- Checks one number against a reference.
-- verify.scalar(name, got, expected, [tol]): one number, with a relative
-- tolerance (default exact).
function verify.scalar(name, got, expected, tol)
  tol = tol or 0
  local err = math.abs(got - expected) / math.max(1, math.abs(expected))
  if err ~= err or err > tol then
    error(("verify %s: got %s, expected %s (tolerance %g)"):format(name, fmt(got), fmt(expected), tol), 0)
  end
  return err
end

return verify
