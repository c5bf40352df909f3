-- A keyed callback runs as a coroutine: its error's traceback lists its
-- frames all the same, then the job.
local Temporal = require "temporal"
local hs = require("app-host").scheduler
local function helper() error("boom") end
hs:register_timer{ key = "k", interval = Temporal.duration{ milliseconds = 10 }, callback = function(tick) helper() end }
