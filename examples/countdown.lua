-- Countdown: a three-second scene to watch in real time:
--
--   metronome run --realtime examples/countdown.lua
--
-- Without --realtime the same scene runs on the virtual clock and ends at
-- once, with the same output. Jobs run at their exact deadlines either way;
-- with --realtime the render facet gets the measured time between frames.
local Temporal = require "temporal"
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
local function log(what) print(("  %-6s %s"):format(secs(hs:now() - start), what)) end

-- A render facet runs every frame (--frame-ms, default 16.667) until liftoff.
local frames = 0
hs:register("render", function(dt) frames = frames + 1 end)

print("Countdown:")
for i = 3, 1, -1 do
  hs:schedule_once{ delay = D{ seconds = 3 - i }, callback = function() log(tostring(i) .. "...") end }
end
hs:schedule_once{ delay = D{ seconds = 3 }, callback = function()
  hs:unregister("render")
  log(("liftoff! (%d frames rendered on the way)"):format(frames))
end }
hs:schedule_once{ delay = D{ seconds = 3, milliseconds = 500 }, callback = function()
  log("orbit reached; nothing is pending, so the run ends")
end }
