-- A job whose callback advances a second scheduler, whose job fails.
local Temporal = require "temporal"
local hs = require("app-host").scheduler
local inner = require("runtime-scheduler").create{ clock = Temporal.clock.fixed(Temporal.instant.parse("2000-01-01T00:00:00Z")) }
local ms = function(n) return Temporal.duration{ milliseconds = n } end

inner:schedule_once{ delay = ms(5), callback = function() error("inner boom") end }
hs:schedule_once{ delay = ms(1500), callback = function()
  inner:advance(ms(10))
end }
