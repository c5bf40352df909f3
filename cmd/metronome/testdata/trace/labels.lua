-- Jobs with a label option: --trace ends their lines with it, and the
-- timeline's lane titles carry it.
local Temporal = require "temporal"
local hs = require("app-host").scheduler
local ms = function(n) return Temporal.duration{ milliseconds = n } end
local regen = hs:schedule_every{ interval = ms(10), label = "regen", callback = function() end }
hs:register_timer{ key = "save", interval = ms(15), label = "autosave", callback = function() end }
hs:schedule_once{ delay = ms(20), callback = function() regen:cancel() end }
