-- A run saved with --state and resumed (state_test.go): the arguments
-- "quit" and "hang" stop it at the checkpoint with host.quit() or by
-- looping there until a signal stops it.
local Temporal = require "temporal"
local host = require "app-host"
local hs = host.scheduler

local function ms(n) return Temporal.duration{ milliseconds = n } end
local function say(text) print(tostring(hs:now()) .. " " .. text) end

local deb = hs:debouncer{ label = "save", timeout = ms(900), ["force-min"] = ms(1000), ["force-max"] = ms(2000),
  seed = 3, callback = function(key, n) say("saved " .. key .. " " .. n) end }

local handlers = {
  tick = function() say("tick"); deb:debounce("slot", tostring(hs:now())) end,
  boom = function() say("boom") end,
  regen = function(t) say(string.format("regen %d/%d", t["delivery-index"], t["scheduled-index"])) end,
  ["end"] = function() say("end"); host.quit() end,
  checkpoint = function()
    say("checkpoint")
    if arg[1] == "quit" then host.quit() end
    if arg[1] == "hang" then while true do end end
  end,
}

if not host.handlers(handlers) then
  hs:schedule_every{ interval = ms(600), count = 12, label = "tick", callback = handlers.tick }
  hs:schedule_once{ delay = ms(7500), label = "boom", callback = handlers.boom }
  hs:register_timer{ key = "regen", interval = ms(700), callback = handlers.regen }
  hs:schedule_once{ delay = ms(4200), label = "checkpoint", callback = handlers.checkpoint }
  hs:schedule_once{ delay = ms(9000), label = "end", callback = handlers["end"] }
end
