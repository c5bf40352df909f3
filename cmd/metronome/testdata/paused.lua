-- Pauses the host from a job at 2s while an interval is pending.
local Temporal = require "temporal"
local hs = require("app-host").scheduler
local D = Temporal.duration
hs:schedule_every{ interval = D{ seconds = 1 }, callback = function() print("tick", tostring(hs:now())) end }
hs:schedule_once{ delay = D{ seconds = 2, milliseconds = 500 }, callback = function()
  print("pausing")
  hs:set_paused(true)
end }
