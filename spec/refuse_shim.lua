-- A driver that refuses large work-groups, for the recipe specs: loaded with
-- `LUA_INIT_5_4=@spec/refuse_shim.lua clua recipes/X.lua`, it makes every
-- queue:launch whose local size exceeds CLUA_REFUSE_ABOVE work-items (default
-- 256) raise the error a driver's refusal raises, so that the recipes' "left
-- out: the driver refused it" paths run on PoCL, which refuses nothing below
-- its maximum.
local cl = require("cl")

local limit = math.tointeger(tonumber(os.getenv("CLUA_REFUSE_ABOVE") or "256"))
local methods = getmetatable(cl.context():queue()).methods
local launch = methods.launch

methods.launch = function(q, k, global, lsize, ...)
  local total = 1
  if type(lsize) == "table" then
    for _, v in ipairs(lsize) do total = total * v end
  elseif lsize then
    total = lsize
  end
  if total > limit then
    error(("queue:launch: clEnqueueNDRangeKernel failed: CL_INVALID_WORK_GROUP_SIZE (local size %d exceeds the "
      .. "kernel's maximum %d on the refusing shim)"):format(total, limit), 2)
  end
  return launch(q, k, global, lsize, ...)
end
