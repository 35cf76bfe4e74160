-- luacheck configuration: `make lint` (.ci/lint) and spec/lint_spec.lua.
-- Lua 5.4 as clua runs it: Debian's liblua5.4 is built with LUA_COMPAT_MATHLIB,
-- so math.frexp and math.ldexp are there (recipes/math.lua uses frexp).
stds.clua = { read_globals = { math = { fields = { "frexp", "ldexp", "pow", "cosh", "sinh", "tanh", "log10" } } } }
std = "lua54+clua"
max_line_length = 150

-- Recipes are written R:main(function(R, dev, info) ... end): the body's R is the
-- recipe's R on purpose, and a body may need only the device's info.
ignore = { "431/R", "212/dev" }

files["spec"] = {
  std = "+busted",
  max_line_length = 170,
  -- specs take pcall's results and check only some of them
  ignore = { "311" },
}
files["spec/cl_arrays_spec.lua"] = { ignore = { "111/_" } } -- ok, _, _, first = a:compare(b)
files["spec/cl_buffers_spec.lua"] = { ignore = { "241/churn" } } -- garbage made for the collector
files["spec/cl_image_spec.lua"] = { ignore = { "421/s2" } }
