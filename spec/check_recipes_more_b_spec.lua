-- The recipes' own kernels on Oclgrind (clua check NAME --check-size), the
-- experiments from offset to transfer: each runs to the end at its check
-- size with no finding. spec/check_recipes_spec.lua holds the lists.
-- Pending where Oclgrind is not installed.
local support = require("spec.support.checkrecipes")

describe("the recipes' kernels under the checker, offset to transfer", function()
  support.describe({ it = it, pending = pending, assert = assert }, support.LISTS.more_b)
end)
