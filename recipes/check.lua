-- check: a script or an experiment run with every kernel on Oclgrind, the
-- OpenCL device simulator, with its checks on (out-of-bounds accesses, data
-- races, barrier divergence, uninitialised values, API misuse); each finding
-- printed once with the kernel file's line.
--   clua check stride --check-size
--   clua check mywork/vsize.lua
-- The checking itself is clua.checker (lua/clua/checker.lua).
require("clua.checker").main(arg)
