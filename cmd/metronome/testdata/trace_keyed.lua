local Temporal = require "temporal"
local hs = require("app-host").scheduler
local ms = function(n) return Temporal.duration{ milliseconds = n } end
hs:register_timer{ key = "regen", interval = ms(10), callback = function(tick)
  if tick["delivery-index"] == 1 then tick:wait(ms(25)) end end }
hs:update(40)
hs:clear()
