-- A keyed callback runs as a coroutine, whose frames are gone when its
-- error comes out: the traceback names the job alone, with no blank line.
local Temporal = require "temporal"
local hs = require("app-host").scheduler
local function helper() error("boom") end
hs:register_timer{ key = "k", interval = Temporal.duration{ milliseconds = 10 }, callback = function(tick) helper() end }
