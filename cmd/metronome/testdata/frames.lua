-- A facet for 50ms of frames beside a job at 25ms; prints what each saw.
local Temporal = require "temporal"
local hs = require("app-host").scheduler
local start = hs:now()
hs:register("physics", function(dt) print("frame", dt, tostring(hs:now() - start)) end)
hs:schedule_once{ delay = Temporal.duration{ milliseconds = 25 }, callback = function()
  print("job", tostring(hs:now() - start))
end }
hs:schedule_once{ delay = Temporal.duration{ milliseconds = 50 }, callback = function()
  hs:unregister("physics")
  print("unregistered", tostring(hs:now() - start))
end }
