--- Options tables: a key the function does not read is an error, so that a
-- typo (`{blockin = false}`) never changes what is measured unnoticed. The
-- `cl` module checks its own options in C the same way.
-- @module clua.options
local options = {}

--- Checks an options table against the names a function reads.
-- @tparam table|nil opts the options (nil: none)
-- @string where the call, for the message (`"report.csv"`)
-- @tparam {string,...} valid the option names the call reads
-- @int[opt=3] level the error level (3: the caller of the function that checks)
-- @treturn table opts, or a new empty table when opts is nil
-- @raise `report.csv: unknown option 'coments'; valid: comments`
function options.check(opts, where, valid, level)
  level = level or 3
  if opts == nil then return {} end
  if type(opts) ~= "table" then
    error(("%s: options must be a table, got %s"):format(where, type(opts)), level)
  end
  for k in pairs(opts) do
    local known = false
    if type(k) == "string" then
      for _, v in ipairs(valid) do
        if v == k then known = true; break end
      end
    end
    if not known then
      local names = table.concat(valid, ", ")
      if type(k) ~= "string" then
        error(("%s: option names are strings, got a %s key; valid: %s"):format(where, type(k), names), level)
      end
      error(("%s: unknown option '%s'; valid: %s"):format(where, k, names), level)
    end
  end
  return opts
end

return options
