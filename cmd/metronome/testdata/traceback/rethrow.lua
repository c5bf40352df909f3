-- A job that catches a nested job's error and raises it with more text.
local Temporal = require "temporal"
local hs = require("app-host").scheduler
local inner = require("runtime-scheduler").create{ clock = Temporal.clock.fixed(Temporal.instant.parse("2000-01-01T00:00:00Z")) }

inner:schedule_once{ delay = Temporal.duration{}, callback = function() error("inner boom") end }
hs:schedule_once{ delay = Temporal.duration{ seconds = 1 }, callback = function()
  local _, m = pcall(inner.advance, inner, Temporal.duration{})
  error(m .. " (rethrown)", 0)
end }
