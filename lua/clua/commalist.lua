--- clua.commalist: an option that takes a comma-separated list of integers
-- (`--grids 64,100`, `--local 64,256`) or of names (`--types float,int`),
-- read into a Lua list.
-- @module clua.commalist
local commalist = {}

--- The integers of `s`, in order: words separated by commas or spaces.
-- @string s the option's value
-- @string option the option, for the message ("--grids")
-- @int[opt=1] min the least value accepted
-- @treturn {int,...} the list
-- @raise `--grids: 'x' is not an integer of at least 3`
function commalist.integers(s, option, min)
  min = min or 1
  local list = {}
  for w in s:gmatch("[^,%s]+") do
    local n = math.tointeger(tonumber(w))
    if not n or n < min then error(("%s: '%s' is not an integer of at least %d"):format(option, w, min), 0) end
    list[#list + 1] = n
  end
  if #list == 0 then error(("%s: a comma-separated list of integers expected"):format(option), 0) end
  return list
end

--- The words of `s`, in order, each one of `known`: words separated by
-- commas or spaces.
-- @string s the option's value
-- @string option the option, for the message ("--types")
-- @tab known the words accepted, in the order the message lists them
-- @string what what a word names, for the message ("type")
-- @treturn {string,...} the list
-- @raise `--types: unknown type 'quad' (float, double, int)`
function commalist.words(s, option, known, what)
  local ok, list = {}, {}
  for _, k in ipairs(known) do ok[k] = true end
  for w in s:gmatch("[^,%s]+") do
    if not ok[w] then error(("%s: unknown %s '%s' (%s)"):format(option, what, w, table.concat(known, ", ")), 0) end
    list[#list + 1] = w
  end
  return list
end

return commalist
