-- Quickstart: four days of virtual time, run in a few milliseconds.
-- Run it with `make run` (or `metronome run examples/quickstart.lua`).
local Temporal = require "temporal"
local RuntimeScheduler = require "runtime-scheduler"

local zone = "America/New_York"
local start = Temporal.instant.parse("2024-03-08T12:00:00Z")

-- 1. A recurrence, expanded eagerly: 02:30 every day does not exist on
--    2024-03-10 in New York (clocks jump from 02:00 to 03:00).
local daily = Temporal["recurrence-set"]{ dtstart = "2024-03-08T02:30:00", rrule = "FREQ=DAILY" }
print("02:30 daily in " .. zone .. ", resolved with disambiguation = compatible:")
for i, at in ipairs(daily:occurrences{ ["zone-id"] = zone, disambiguation = "compatible", limit = 4 }) do
  print(("  %d  %s"):format(i, at:to_zoned_string(zone)))
end

-- 2. The same rule on a scheduler, beside a one-shot and an interval.
local s = RuntimeScheduler.create{ clock = Temporal.clock.fixed(start) }
local function log(what)
  print(("  +%-12s %-28s %s"):format(tostring(s:now() - start), s:now():to_zoned_string(zone), what))
end

s:schedule_once{ delay = Temporal.duration{ milliseconds = 1500 }, callback = function() log("once: hello") end }

local ticks = 0
local tick
tick = s:schedule_every{ interval = Temporal.duration{ seconds = 1 }, callback = function()
  ticks = ticks + 1
  log("every: tick " .. ticks)
  if ticks == 3 then tick:cancel() end
end }

s:schedule_recurrence{ ["recurrence-set"] = daily, ["zone-id"] = zone, disambiguation = "compatible", limit = 3,
  callback = function(p) log(("recurrence: occurrence %d"):format(p["occurrence-index"])) end }

print("\ntimeline (elapsed virtual time, local time, what fired):")
s:advance(Temporal.duration{ hours = 96 })
print(("\n%s of virtual time; %d jobs still pending"):format(tostring(s:now() - start), s:count()))
