-- A job that fails at 1.5s.
local Temporal = require "temporal"
local hs = require("app-host").scheduler

local function explode()
  error("boom: from a job")
end

hs:schedule_once{ delay = Temporal.duration{ milliseconds = 1500 }, callback = function() explode() end }
hs:schedule_once{ delay = Temporal.duration{ seconds = 2 }, callback = function() print("never") end }
