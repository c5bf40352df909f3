-- A game that saves its timers and resumes them in another process.
--
--   metronome run --state save.json examples/save_game.lua quit
--       quits at the checkpoint, 4.5 s before the bomb; save.json holds the timers
--   metronome run --state save.json examples/save_game.lua
--       resumes from save.json where the first run stopped
--
-- Without --state (or while the file does not exist) it starts a new game
-- and plays 20 hours of virtual time to the end. The lines after
-- "checkpoint" are the same in a resumed run as in one that never
-- stopped: the bomb goes off 4.5 s later, the regeneration has its ticks
-- left, the poison counts on, the reward keeps its local times in Paris,
-- and the autosave debounced by the player's moves keeps its deadline.
local Temporal = require "temporal"
local host = require "app-host"
local hs = host.scheduler

local hour = Temporal.duration{ hours = 1 }
local function say(fmt, ...) print(string.format("%s " .. fmt, tostring(hs:now()), ...)) end

-- A debouncer is bound again by its label: make it before host.handlers.
-- Moves half an hour apart push the autosave back; the ceiling saves at
-- the latest 90 minutes after the first unsaved move.
local minute = Temporal.duration{ minutes = 1 }
local autosave = hs:debouncer{ label = "autosave", timeout = minute * 45,
  ["force-min"] = minute * 90, ["force-max"] = minute * 90, seed = 1,
  callback = function(slot, moved) say("autosave %s (last move at %s)", slot, moved) end }

-- Every timer is bound to its callback by label: the saved timers get
-- these functions again in the next run.
local handlers = {
  bomb = function() say("the bomb goes off") end,
  regen = function() say("regenerate 5 hp") end,
  poison = function(tick) say("poison tick %d", tick["delivery-index"]) end,
  reward = function(p)
    say("reward #%d (09:00 or 21:00 in Paris: %s)", p["occurrence-index"], tostring(p["scheduled-at"]))
  end,
  move = function() autosave:debounce("slot-1", tostring(hs:now())) end,
  checkpoint = function()
    say("checkpoint")
    if arg[1] == "quit" then host.quit() end
  end,
  ["game-over"] = function()
    say("game over")
    host.quit()
  end,
}

-- host.handlers restores the saved timers (with --state FILE, when FILE
-- exists) and says whether it did; a new game schedules them.
if not host.handlers(handlers) then
  say("new game")
  hs:schedule_once{ delay = hour * 14, label = "bomb", callback = handlers.bomb }
  hs:schedule_once{ delay = hour * 14 - Temporal.duration{ milliseconds = 4500 }, label = "checkpoint",
                    callback = handlers.checkpoint }
  hs:schedule_every{ interval = hour * 4, count = 4, label = "regen", callback = handlers.regen }
  hs:register_timer{ key = "poison", interval = hour * 3, callback = handlers.poison }
  hs:schedule_every{ interval = minute * 30, count = 30, label = "move", callback = handlers.move }
  local rs = Temporal["recurrence-set"]{ dtstart = "2000-01-01T09:00:00", rrule = "FREQ=DAILY;BYHOUR=9,21" }
  hs:schedule_recurrence{ ["recurrence-set"] = rs, ["zone-id"] = "Europe/Paris", label = "reward",
                          limit = 2, callback = handlers.reward }
  hs:schedule_once{ delay = hour * 20, label = "game-over", callback = handlers["game-over"] }
end
