-- The debouncer: a search box that queries once typing pauses,
-- but never later than a ceiling while typing goes on. Run it with
-- `metronome run examples/debouncer.lua`; time is virtual, so the typing
-- below takes no real time.
local Temporal = require "temporal"
local RuntimeScheduler = require "runtime-scheduler"

local start = Temporal.instant.parse("2024-03-09T12:00:00Z")
local s = RuntimeScheduler.create{ clock = Temporal.clock.fixed(start) }
local function ms(n) return Temporal.duration{ milliseconds = n } end
local function at() return ("%4d ms"):format((s:now() - start):total_ms()) end

local search = s:debouncer{
  timeout = ms(300),                         -- a fresh key fires 300 ms after its first touch
  ["busy-timeout"] = ms(200),                -- each later touch pushes it to 200 ms after that touch
  ["force-min"] = ms(800), ["force-max"] = ms(800),   -- but never past 800 ms after the first
  throttle = ms(100),                        -- and not again within 100 ms of firing
  label = "search",
  callback = function(box, text) print(("  %s  query %s: %q"):format(at(), box, text)) end,
}

print("Typing a word with short pauses: one query, with the latest text:")
for i, text in ipairs{ "m", "me", "met", "metr" } do
  s:schedule_once{ delay = ms(i * 100), callback = function() search:debounce("box", text) end }
end
s:advance(ms(1000))

print("\nTyping without a pause: the 800 ms ceiling fires a query while it goes on:")
for i = 1, 12 do
  s:schedule_once{ delay = ms(i * 100), callback = function() search:debounce("box", ("x"):rep(i)) end }
end
s:advance(ms(2000))

print("\nKeys are independent; flush fires one now, cancel forgets one:")
search:debounce("name", "Ada")
search:debounce("city", "Paris")
print(("  %s  flush name ran the callback: %s"):format(at(), tostring(search:flush("name"))))
print(("  %s  cancel city was pending: %s"):format(at(), tostring(search:cancel("city"))))
s:advance(ms(1000))
print(("  %s  pending keys: %d"):format(at(), s:count()))
