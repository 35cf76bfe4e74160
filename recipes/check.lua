-- check: a script or experiment with every kernel checked on Oclgrind. The
-- OpenCL device simulator runs each kernel with its checks on (out-of-bounds
-- accesses, data races, barrier divergence, uninitialised values, API
-- misuse); each finding is printed once with the kernel file's line.
--   clua check stride --check-size
--   clua check mywork/vsize.lua
-- The checking itself is clua.checker (lua/clua/checker.lua).
require("clua.checker").main(arg)
