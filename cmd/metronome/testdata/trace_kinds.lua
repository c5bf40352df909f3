-- One of each line --trace=all writes (ownership needs --cluster).
local Temporal = require "temporal"
local host = require "app-host"
local EventLoop = require "event-loop"
local hs = host.scheduler
local D = Temporal.duration

hs:schedule_once{ delay = D{ milliseconds = 1 }, callback = function() end }
local every
every = hs:schedule_every{ interval = D{ milliseconds = 2 }, callback = function() every:cancel() end }
local noon = Temporal["recurrence-set"]{ dtstart = "2000-01-01T12:00:00", rrule = "FREQ=DAILY;COUNT=1" }
hs:schedule_recurrence{ recurrence_set = noon, zone_id = "UTC", callback = function() end }
local tick
tick = hs:register_timer{ key = "k", interval = D{ milliseconds = 3 }, callback = function() tick:drop() end }
hs:spawn(function() hs:wait(D{ milliseconds = 4 }) end)
local loop = EventLoop.new{}
loop:set_timeout(function() end, 5)
loop:run_all()
hs:register("physics", function() end)
hs:update(10)
hs:set_paused(true)
hs:step(5)
hs:set_paused(false)
hs:unregister("physics")
hs:schedule_once{ delay = D{ hours = 13 }, callback = function() host.quit() end }
