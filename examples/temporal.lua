-- temporal: exact durations, instants, zones and recurrence sets.
-- Run it with `metronome run examples/temporal.lua`. Nothing here moves
-- time: these are values.
local Temporal = require "temporal"
local D, I = Temporal.duration, Temporal.instant

print("Durations are integer nanoseconds; tostring is ISO 8601:")
local frame = D["from-ms"](16.667)
print("  from-ms(16.667)       " .. tostring(frame) .. " = " .. frame:total_ns() .. " ns")
print("  60 frames             " .. tostring(frame * 60))
print("  PT0.1S + PT0.2S       " .. tostring(D.parse("PT0.1S") + D.parse("PT0.2S")) .. "   (floats: " .. tostring(0.1 + 0.2) .. ")")
print("  duration{...}         " .. tostring(D{ hours = 1, minutes = -15, milliseconds = 250 }))
print("  -(1.5 s)              " .. tostring(-D{ seconds = 1, milliseconds = 500 }))
print("  PT1H30M in ms         " .. D.parse("PT1H30M"):total_ms())
print("  PT2S < PT2.000000001S " .. tostring(D.parse("PT2S") < D.parse("PT2.000000001S")))
local _, err = pcall(D.parse, "P1D")
print("  parse(\"P1D\")          error: " .. err)

print("\nInstants are UTC nanoseconds; zones only format and resolve:")
local t = I.parse("2024-03-10T06:59:00Z")
print("  parse                 " .. tostring(t))
print("  + PT1M                " .. tostring(t + D{ minutes = 1 }))
print("  in New York           " .. t:to_zoned_string("America/New_York"))
print("  one minute later      " .. (t + D{ minutes = 1 }):to_zoned_string("America/New_York") .. "   (clocks jumped to 03:00)")
print("  epoch-ms              " .. t:epoch_ms())
print("  epoch-ns              " .. t:epoch_ns() .. "   (a string: past 2^53)")
print("  difference            " .. tostring(I.parse("2024-03-11T00:00:00Z") - t))
local _, err2 = pcall(I.parse, "2024-03-10T06:59:00")
print("  parse without offset  error: " .. err2)

print("\nA local time resolved in a zone (TC39 Temporal's disambiguation):")
local function resolve(local_time, zone)
  for _, how in ipairs{ "compatible", "earlier", "later", "reject" } do
    local ok, r = pcall(I.from_local, local_time, zone, how)
    print(("  %-19s %-10s %s"):format(local_time, how, ok and r:to_zoned_string(zone) or "error: " .. r))
  end
end
resolve("2024-03-10T02:30:00", "America/New_York")   -- in the spring-forward gap
resolve("2024-11-03T01:30:00", "America/New_York")   -- in the fall-back overlap

print("\nRecurrence sets expand in local time, then resolve each time in the zone:")
local weekly = Temporal["recurrence-set"]{
  dtstart = "2024-03-25T09:00:00",
  rrule = "FREQ=WEEKLY;BYDAY=MO,WE;COUNT=5",
  exdate = { "2024-03-27T09:00:00" },    -- removed
  rdate = { "2024-03-30T12:00:00" },     -- added
}
for i, at in ipairs(weekly:occurrences{ ["zone-id"] = "Europe/Paris" }) do
  print(("  %d  %s   %s"):format(i, at:to_zoned_string("Europe/Paris"), tostring(at)))
end
print("  (Paris moved to summer time on 2024-03-31: the UTC hour changes, 09:00 local does not)")

local hourly = Temporal["recurrence-set"]{ dtstart = "2024-03-31T00:30:00", rrule = "FREQ=HOURLY" }
local window = hourly:occurrences{ ["zone-id"] = "Europe/Paris", disambiguation = "compatible",
                                   after = I.parse("2024-03-31T00:00:00Z"), before = I.parse("2024-03-31T03:00:00Z") }
print("\nHourly at :30 across the gap, within after/before: 02:30 does not exist, compatible")
print("moves it to 03:30, the same instant as 03:30 itself, so it is one occurrence:")
for i, at in ipairs(window) do
  print(("  %d  %s"):format(i, at:to_zoned_string("Europe/Paris")))
end
