-- Quits from a job at 1.5s; the interval would go on forever.
local Temporal = require "temporal"
local host = require "app-host"
local hs = host.scheduler
local D = Temporal.duration
hs:schedule_every{ interval = D{ milliseconds = 500 }, callback = function() print("tick", tostring(hs:now())) end }
hs:schedule_once{ delay = D{ milliseconds = 1500 }, callback = function()
  print("quit", host.quit())
end }
