local hs = require("app-host").scheduler
local Temporal = require "temporal"
hs:schedule_every{ interval = Temporal.duration{ milliseconds = 10 }, callback = function() end }
require("runtime-timers").Timeout{ ["delay-ms"] = 5, callback = function() end }
hs:register("physics", function() end)
test("never runs", function(t) end)
