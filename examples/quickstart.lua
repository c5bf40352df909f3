-- Quickstart: a recurrence across a DST change, then a small game scene that
-- covers a whole virtual day and runs in a few milliseconds.
-- Run it with `make run` (or `metronome run examples/quickstart.lua`); add
-- --trace to see each job fire, --timeline day.svg to get a picture of it.
local Temporal = require "temporal"

local zone = "America/New_York"

-- 1. A recurrence, expanded eagerly: 02:30 every day does not exist on
--    2024-03-10 in New York (clocks jump from 02:00 to 03:00).
local daily = Temporal["recurrence-set"]{ dtstart = "2024-03-08T02:30:00", rrule = "FREQ=DAILY" }
print("02:30 daily in " .. zone .. ", resolved with disambiguation = compatible:")
for i, at in ipairs(daily:occurrences{ ["zone-id"] = zone, disambiguation = "compatible", limit = 4 }) do
  print(("  %d  %s"):format(i, at:to_zoned_string(zone)))
end

-- 2. A game scene on the host that `metronome run` drives. Virtual time
--    starts at 2000-01-01T00:00:00Z (01:00 in Paris) unless --start says
--    otherwise; nothing here waits for real time.
local host = require "app-host"
local RuntimeTimers = require "runtime-timers"
local hs = host.scheduler
local D = Temporal.duration
local paris = "Europe/Paris"
local start = hs:now()

-- secs formats a duration as exact decimal seconds (12.5s), never through
-- float formatting: total-ns is an exact integer below 2^53 ns (104 days).
local function secs(d)
  local ns = d:total_ns()
  local frac = math.fmod(ns, 1e9)
  local s = ("%d"):format((ns - frac) / 1e9)
  if frac ~= 0 then s = s .. ("%.9f"):format(frac / 1e9):sub(2):gsub("0+$", "") end
  return s .. "s"
end

local function log(what)
  local now = hs:now()
  local clock = now:to_zoned_string(paris):match("T([%d:.]+)")   -- hh:mm:ss[.fff]
  print(("  %-10s %-15s %s"):format(secs(now - start), clock, what))
end

print("\nThe scene (elapsed virtual time, Paris wall clock, what happened):")

-- A physics facet runs every frame while the wave lasts.
local physics = { frames = 0, simulated_ms = 0 }
function physics:update(dt)
  self.frames = self.frames + 1
  self.simulated_ms = self.simulated_ms + dt
end
hs:register("physics", physics)

-- A spawner on an interval: five goblins, one every 2 s, then the wave ends
-- and the physics facet goes away (so `run` stops stepping frame by frame
-- and jumps straight to the next due item).
local spawned, spawner = 0, nil
spawner = hs:schedule_every{ interval = D{ seconds = 2 }, callback = function()
  spawned = spawned + 1
  log(("spawn goblin %d"):format(spawned))
  if spawned == 5 then
    spawner:cancel()
    hs:unregister("physics")
    log(("wave cleared; physics ran %d frames"):format(physics.frames))
  end
end }

-- A debounced input: key presses 100-150 ms apart make one jump, 300 ms
-- after the last press, with that press's arguments.
local jump = RuntimeTimers.Debouncer{ ["delay-ms"] = 300, callback = function(key, n)
  log(("jump! (debounced: press %d of %s)"):format(n, key))
end }
local presses = 0
for _, at in ipairs{ 1000, 1100, 1250, 6000, 6150 } do
  RuntimeTimers.Timeout{ ["delay-ms"] = at, callback = function()
    presses = presses + 1
    log(("press space (%d)"):format(presses))
    jump("space", presses)
  end }
end

-- A daily reward at 09:00 in Paris, whatever the zone's offset that day.
local reward_rule = Temporal["recurrence-set"]{ dtstart = "2000-01-01T09:00:00", rrule = "FREQ=DAILY" }
hs:schedule_recurrence{ ["recurrence-set"] = reward_rule, ["zone-id"] = paris, callback = function(p)
  log(("daily reward #%d (due %s)"):format(p["occurrence-index"], p["scheduled-at"]:to_zoned_string(paris)))
end }

-- Closing time at 23:00 in Paris: the game quits, ending the run.
hs:schedule_once{ delay = D{ hours = 22 }, callback = function()
  log(("closing time: %d goblins, %d presses; quit"):format(spawned, presses))
  host.quit()
end }

-- The main chunk drives the first second itself, 60 frames of 16.667 ms...
for _ = 1, 60 do hs:update(16.667) end
log(("60 frames by hand; physics simulated %s"):format(secs(D["from-ms"](physics.simulated_ms))))

-- ...then pauses: a paused update moves nothing, a step moves one frame.
hs:set_paused(true)
hs:update(5000)
log("paused: update(5000) moved nothing")
hs:step(250)
log("one step of 250 ms while paused")
hs:set_paused(false)

-- From here `metronome run` takes over: frames while physics is registered,
-- then straight from due item to due item until host.quit().
