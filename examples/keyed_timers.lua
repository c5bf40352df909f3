-- Keyed timers: one timer per key, generations, tick
-- information, overrun policies and an owner's lease, all in virtual time.
-- Run it with `metronome run examples/keyed_timers.lua`.
local Temporal = require "temporal"
local RuntimeScheduler = require "runtime-scheduler"

local start = Temporal.instant.parse("2024-03-09T12:00:00Z")
local s = RuntimeScheduler.create{ clock = Temporal.clock.fixed(start) }
local function ms(n) return Temporal.duration{ milliseconds = n } end
local function at() return ("%d ms"):format((s:now() - start):total_ms()) end
local function show(name, tick)
  print(("  %-8s %-10s generation %d  delivery %d  scheduled %d  skipped %d"):format(name, at(),
    tick.generation, tick["delivery-index"], tick["scheduled-index"], tick["skipped-ticks"]))
end

print("A handler slower than its period never runs twice at once; skip-late-ticks")
print("delivers only the latest tick when it is free again:")
local regen = s:register_timer{ key = "regen", interval = ms(10), label = "regen",
  callback = function(tick)
    show("regen", tick)
    if tick["delivery-index"] == 1 then tick:wait(ms(25)) end   -- this handler takes 25 ms of virtual time
  end }
s:advance(ms(50))
regen:cancel()

print("\ncatch-up-bounded delivers up to max-catch-up-ticks of the missed ticks, in order,")
print("after the host was suspended (jump):")
local autosave = s:register_timer{ key = "autosave", interval = ms(10), overrun = "catch-up-bounded",
  ["max-catch-up-ticks"] = 2, callback = function(tick) show("autosave", tick) end }
s:jump(ms(45))          -- ticks 1 to 4 came due while suspended: 3 and 4 run now
autosave:cancel()

print("\nRe-registering a key starts a new generation; the old one's pending tick never runs,")
print("and its cancel completion carries the cleanup's result:")
local first = s:register_timer{ key = "spawn", interval = ms(10), callback = function(tick) show("spawn", tick) end,
  ["on-cancel"] = function() error("could not despawn", 0) end }
s:register_timer{ key = "spawn", interval = ms(15), callback = function(tick) show("spawn", tick) end }
local done = first:cancel()
print("  old generation done? " .. tostring(done["done?"](done)) .. "; result: " .. table.concat({ tostring(select(1, done:result())), tostring(select(2, done:result())) }, ", "))
s:advance(ms(15))
s:clear()

print("\nAn owner's lease: past its deadline no tick starts, and renewing resumes at the next tick:")
local spot = s:owner{ lease = ms(25) }
spot:register_timer{ key = "pulse", interval = ms(10), callback = function(tick) show("pulse", tick) end }
s:advance(ms(60))       -- ticks at 10 and 20; the lease ends at 25
print("  " .. at() .. " renew")
spot:renew()
s:advance(ms(20))
