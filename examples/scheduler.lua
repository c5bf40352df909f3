-- runtime-scheduler: a typed scheduler of your own, moved only by you.
-- Run it with `metronome run examples/scheduler.lua`. The script drives its
-- scheduler itself (advance, jump, next, run-all); `metronome run` has
-- nothing left to do when it returns.
local Temporal = require "temporal"
local RuntimeScheduler = require "runtime-scheduler"
local D = Temporal.duration

local start = Temporal.instant.parse("2024-03-09T12:00:00Z")
local s = RuntimeScheduler.create{ clock = Temporal.clock.fixed(start) }

-- secs formats a duration as exact decimal seconds, never through a float.
local function secs(d)
  local ns = d:total_ns()
  local frac = math.fmod(ns, 1e9)
  local out = ("%d"):format((ns - frac) / 1e9)
  if frac ~= 0 then out = out .. ("%.9f"):format(frac / 1e9):sub(2):gsub("0+$", "") end
  return out .. "s"
end
local function log(what) print(("  %-13s %s"):format(secs(s:now() - start), what)) end
local function ms(n) return D{ milliseconds = n } end

print("Once, every, and the order of ties (deadline, then creation):")
local tick = s:schedule_every{ interval = ms(10), callback = function() log("every 10ms") end }
s:schedule_once{ delay = ms(20), callback = function() log("once at 20ms (created after the interval: runs second)") end }
s:advance(ms(35))      -- fires at 10, 20, 20, 30: an advance catches up every period
log("advance(35ms) returned; now = " .. tostring(s:now()))

print("\nA jump models a host that was suspended: each due job runs once:")
s:jump(ms(100))        -- one fire at 135 ms, then back on the 10 ms grid
log("jump(100ms) returned")
s:advance(ms(5))
tick:cancel()
log("interval cancelled: active? " .. tostring(tick:is_active()))

print("\nA recurrence fires each occurrence not before now, in a zone:")
local noon = Temporal["recurrence-set"]{ dtstart = "2024-03-09T12:00:00", rrule = "FREQ=DAILY" }
s:schedule_recurrence{ ["recurrence-set"] = noon, ["zone-id"] = "America/New_York", limit = 3,
  callback = function(p)
    log(("noon in New York, occurrence %d: %s"):format(p["occurrence-index"], p["scheduled-at"]:to_zoned_string("America/New_York")))
  end }
for _, job in ipairs(s:list()) do
  print(("  pending: #%d %s due in %s"):format(job.id, job.kind, tostring(job["due-in"])))
end
s:next()               -- jump to the earliest deadline and run what is due there
log("next() ran the first occurrence")
s["run-all"](s)        -- run until nothing is pending (DST starts on the 10th: 23 h later in UTC)
log("run-all: " .. s:count() .. " jobs pending")

print("\nErrors come out of the call that fired the job; nothing is lost:")
s:schedule_once{ delay = ms(1), callback = function() error("boom") end }
s:schedule_once{ delay = ms(2), callback = function() log("the job after the failing one still runs") end }
local ok, err = pcall(s.advance, s, ms(5))
log("advance failed: " .. tostring(not ok) .. "; " .. err:match("^[^\n]*"))
s:advance(ms(5))
log("the next advance goes on from there")

print("\nThe fire log (s:trace):")
s:trace(true)
s:schedule_every{ interval = D{ minutes = 1 }, callback = function() end }
s:advance(D{ minutes = 3 })
for _, f in ipairs(s:trace()) do
  print(("  %s  %s #%d"):format(tostring(f.at), f.kind, f.id))
end
s:drop()
