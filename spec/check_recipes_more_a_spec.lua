-- The recipes' own kernels on Oclgrind (clua check NAME --check-size), the
-- experiments from aat to occupancy: each runs to the end at its check size
-- with no finding; image says its rule (Oclgrind cannot tell whether an
-- image read is defined: those reports are set aside, counted, with the
-- reason). spec/check_recipes_spec.lua holds the lists. Pending where
-- Oclgrind is not installed.
local support = require("spec.support.checkrecipes")

describe("the recipes' kernels under the checker, aat to occupancy", function()
  support.describe({ it = it, pending = pending, assert = assert }, support.LISTS.more_a)
end)
