--- clua.commalist: an option that takes a comma-separated list of integers
-- (`--grids 64,100`, `--local 64,256`), read into a Lua list.
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

return commalist
