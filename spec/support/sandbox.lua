-- Whether the grader's sandbox (bubblewrap) can start on this machine, for
-- the specs that grade: where it cannot (no user namespaces, a chroot whose
-- root is not a mount point), they grade with --no-sandbox and the specs of
-- the sandbox itself are pending, saying why.
--
--   local box = require "spec.support.sandbox"
--   box.ok, box.why      -- true, or false and the probe's reason
--   box.flag             -- "" or " --no-sandbox", for a grade command line
package.path = "lua/?.lua;" .. package.path
local ok, why = require("clua.sandbox").probe()
return { ok = ok == true, why = why, flag = ok and "" or " --no-sandbox" }
