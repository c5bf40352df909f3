-- An event loop run from a host job: --trace shows its tasks, timers and
-- frames beside the job that drove it.
local Temporal = require "temporal"
local EventLoop = require "event-loop"
local hs = require("app-host").scheduler

local loop = EventLoop.new()
local n = 0
local iv
iv = loop:set_interval(function()
  n = n + 1
  if n >= 3 then loop:clear_interval(iv) end
end, 5)
loop:set_timeout(function()
  loop:queue_microtask(function() end)
  loop:request_animation_frame(function() end)
end, 3)
loop:queue_task(function() end)
loop:register_source{ name = "net", class = "turn",
  ready = function() return n == 1 end, run = function() n = n + 1 end }
hs:schedule_once{ delay = Temporal.duration{ seconds = 1 }, callback = function() loop:advance(20) end }
