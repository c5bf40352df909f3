-- A job every minute, forever: only --until (or a signal) ends the run.
local Temporal = require "temporal"
local hs = require("app-host").scheduler
local start = hs:now()
hs:schedule_every{ interval = Temporal.duration{ minutes = 1 }, callback = function()
  print(tostring(hs:now() - start))
end }
