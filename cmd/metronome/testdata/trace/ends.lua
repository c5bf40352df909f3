-- What --trace and --timeline show beside fires: a cancel (from inside an
-- interval, and a debouncer's re-arms), a drop, a keyed timer whose handler
-- overran (a skipped tick) and whose key is registered again (one lane,
-- two generations), and a job that fails and ends the run.
local Temporal = require "temporal"
local hs = require("app-host").scheduler
local RuntimeTimers = require "runtime-timers"
local ms = function(n) return Temporal.duration{ milliseconds = n } end
local n = 0
local e
e = hs:schedule_every{ interval = ms(100), callback = function() n = n + 1; if n == 5 then e:cancel() end end }
local gone = hs:schedule_once{ delay = ms(900), callback = function() end }
hs:schedule_once{ delay = ms(300), callback = function() gone:drop() end }
local db = RuntimeTimers.Debouncer{ ["delay-ms"] = 50, callback = function() end }
for i = 1, 10 do hs:schedule_once{ delay = ms(20 * i), callback = function() db() end } end
hs:register_timer{ key = "regen", interval = ms(50), callback = function(tick)
  if tick["delivery-index"] == 2 then tick:wait(ms(120)) end end }
hs:schedule_once{ delay = ms(700), callback = function()
  hs:register_timer{ key = "regen", interval = ms(50), callback = function() end } end }
hs:schedule_once{ delay = ms(1000), callback = function() error("boom") end }
