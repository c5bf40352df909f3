-- A little of everything the trace shows.
local Temporal = require "temporal"
local host = require "app-host"
local RuntimeTimers = require "runtime-timers"
local hs = host.scheduler
local D = Temporal.duration

hs:schedule_once{ delay = D{ milliseconds = 1500 }, callback = function() end }
local n, every = 0, nil
every = hs:schedule_every{ interval = D{ seconds = 1 }, callback = function()
  n = n + 1
  if n == 3 then every:cancel() end
end }
local noon = Temporal["recurrence-set"]{ dtstart = "2000-01-01T12:00:00", rrule = "FREQ=DAILY;COUNT=2" }
hs:schedule_recurrence{ ["recurrence-set"] = noon, ["zone-id"] = "Asia/Tokyo", callback = function() end }
RuntimeTimers.Timeout{ ["delay-ms"] = 0.25, callback = function() end }
hs:register("physics", function() end)
hs:update(10)
hs:set_paused(true)
hs:update(10)
hs:step(5)
hs:set_paused(false)
hs:unregister("physics")
hs:schedule_once{ delay = D{ hours = 30 }, callback = function() host.quit() end }
