-- app-host: the host `metronome run` drives: typed jobs, facets that run
-- every frame, pause and step, quit.
-- Run it with `metronome run examples/app_host.lua` (add --trace=all to see
-- each job and frame).
local Temporal = require "temporal"
local services = require "app-host.services"
local host = require "app-host"
local hs = host.scheduler
local D = Temporal.duration
local start = hs:now()

local function secs(d)
  local ns = d:total_ns()
  local frac = math.fmod(ns, 1e9)
  local out = ("%d"):format((ns - frac) / 1e9)
  if frac ~= 0 then out = out .. ("%.9f"):format(frac / 1e9):sub(2):gsub("0+$", "") end
  return out .. "s"
end
local function log(what) print(("  %-10s %s"):format(secs(hs:now() - start), what)) end

print(("The run's host starts at %s, running: paused? %s"):format(tostring(hs:now()), tostring(hs:is_paused())))

print("\nOne frame: the jobs due within it first, then the facets in registration order:")
hs:register("input", function(dt) log(("facet input (dt %s ms)"):format(dt)) end)
local ai = { thoughts = 0 }
function ai:update(dt) self.thoughts = self.thoughts + 1; log("facet ai (a table facet: ai:update(dt))") end
hs:register("ai", ai)
hs:schedule_once{ delay = D{ milliseconds = 10 }, callback = function() log("job due at 10ms") end }
hs:update(16)
print("  facets: " .. table.concat(hs:list(), ", "))

print("\nPaused, an update moves nothing (and nothing piles up); a step moves one frame:")
hs:schedule_once{ delay = D{ milliseconds = 20 }, callback = function() log("job due 20ms later") end }
hs:set_paused(true)
hs:update(1000)
log("update(1000) while paused: no job, no facet")
hs:step(25)
hs:set_paused(false)

print("\nA facet registered during a frame first runs in the next one:")
hs:unregister("input")
hs:schedule_once{ delay = D{ milliseconds = 5 }, callback = function()
  hs:register("late", function() log("facet late") end)
  log("job registered facet late")
end }
hs:update(10)
hs:update(10)
hs:unregister("late")
hs:unregister("ai")

print("\nA private host of your own (make-scheduler) moves only when you update it:")
local other = services["make-scheduler"]{ clock = Temporal.clock.fixed(start) }
other:schedule_once{ delay = D{ seconds = 1 }, callback = function() print("  private host: job at 1s") end }
other:update(1000)
print(("  private host at %s; the run's host still at %s"):format(tostring(other:now()), tostring(hs:now())))

print("\nThen `metronome run` takes over: a heartbeat every 500ms until quit, 2s from now:")
local beats = 0
hs:schedule_every{ interval = D{ milliseconds = 500 }, callback = function()
  beats = beats + 1
  log("heartbeat " .. beats)
end }
hs:schedule_once{ delay = D{ seconds = 2 }, callback = function()
  -- os.time, os.date and os.clock read the host's virtual clock.
  log(("os.date() %s, os.time() %d, os.clock() %s"):format(os.date("%Y-%m-%d %H:%M:%S"), os.time(), os.clock()))
  log("quit (the heartbeat would go on forever)")
  host.quit()
end }
