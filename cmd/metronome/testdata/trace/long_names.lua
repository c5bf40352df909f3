-- Names of a megabyte each: a label, a key, a facet, a chunk name and an
-- event-loop task's, every millisecond. Each byte quotes as 4 characters.
local Temporal = require "temporal"
local EventLoop = require "event-loop"
local hs = require("app-host").scheduler
local ms = function(n) return Temporal.duration{ milliseconds = n } end
local big = ("\1"):rep(1024 * 1024)
hs:schedule_every{ interval = ms(1), label = big, callback = function() end }
hs:register_timer{ key = big, interval = ms(1), label = big, callback = function() end }
hs:register(big, function() end)
local loop = EventLoop.new()
load("local hs, ms, loop = ...; hs:schedule_every{ interval = ms(1), callback = function() loop:queue_task(function() end); loop:advance(1) end }",
  "=" .. ("\1"):rep(1024 * 1024))(hs, ms, loop)
