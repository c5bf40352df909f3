-- runtime-timers: millisecond timers for code written against browser-style
-- setTimeout / setInterval / debounce. Milliseconds are converted once to
-- exact nanoseconds; the timers run on the run's host, in one timeline with
-- its typed jobs. Run it with `metronome run examples/runtime_timers.lua`:
-- the script only schedules; `metronome run` moves the host from due timer
-- to due timer.
local RuntimeTimers = require "runtime-timers"
local host = require "app-host"
local hs = host.scheduler
local start = hs:now()

local function secs(d)
  local ns = d:total_ns()
  local frac = math.fmod(ns, 1e9)
  local out = ("%d"):format((ns - frac) / 1e9)
  if frac ~= 0 then out = out .. ("%.9f"):format(frac / 1e9):sub(2):gsub("0+$", "") end
  return out .. "s"
end
local function log(what) print(("  %-10s %s"):format(secs(hs:now() - start), what)) end

-- A bad option is an error that says what it wanted.
local _, err = pcall(RuntimeTimers.Interval, { ["interval-ms"] = 0, callback = print })
print("Interval{interval-ms = 0} fails: " .. (err:gsub("^[^:]*:%d+: ", "")))

print("\nWhat fired, at which virtual time:")

-- Timeout: once, after delay-ms.
RuntimeTimers.Timeout{ ["delay-ms"] = 100, callback = function() log("Timeout 100ms") end }

-- Fractions of a millisecond are kept to the nanosecond: 16.667 ms is
-- 16667000 ns, not 16 ms.
RuntimeTimers.Timeout{ ["delay-ms"] = 16.667, callback = function() log("Timeout 16.667ms") end }

-- Interval: every interval-ms; cancel it from its own callback.
local n, every = 0, nil
every = RuntimeTimers.Interval{ ["interval-ms"] = 250, callback = function()
  n = n + 1
  log("Interval 250ms, tick " .. n)
  if n == 4 then every:cancel(); log("Interval cancelled itself") end
end }

-- Debouncer: a burst of calls makes one call, delay-ms after the last one,
-- with the last call's arguments.
local search = RuntimeTimers.Debouncer{ ["delay-ms"] = 200, callback = function(query)
  log(("Debouncer: search %q"):format(query))
end }
for i, q in ipairs{ "m", "me", "met", "metro" } do
  RuntimeTimers.Timeout{ ["delay-ms"] = 300 + 50 * i, callback = function()
    log(("typed %q"):format(q))
    search(q)
  end }
end

-- flush runs a pending call now; cancel forgets it.
local save = RuntimeTimers.Debouncer{ ["delay-ms"] = 1000, callback = function(what) log("Debouncer: save " .. what) end }
RuntimeTimers.Timeout{ ["delay-ms"] = 1200, callback = function()
  save("draft 1"); save("draft 2")
  log("save() twice; flush() now")
  save:flush()
  save("draft 3")
  save:cancel()
  log("save(\"draft 3\") then cancel(): never saved")
end }

-- clear() cancels every runtime-timers timer of this state.
RuntimeTimers.Timeout{ ["delay-ms"] = 5000, callback = function() log("never: cleared") end }
RuntimeTimers.Timeout{ ["delay-ms"] = 1500, callback = function()
  RuntimeTimers.clear()
  log("clear(): nothing left, so the run ends")
end }
