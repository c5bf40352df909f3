-- The event loop: a browser's setTimeout, queueMicrotask and
-- requestAnimationFrame for scripts, on a virtual clock starting at 0 ms.
-- Run it with `metronome run examples/event_loop.lua`; the script drives
-- its loop itself.
local EventLoop = require "event-loop"
local loop = EventLoop.new{}
local function log(what) print(("  %5.1f ms  %s"):format(loop:now(), what)) end

print("Timers run by due time, then by the order they were set; a microtask runs")
print("right after the task that queued it, before the next timer:")
loop:set_timeout(function() log("timeout 10") end, 10)
loop:set_timeout(function()
  log("timeout 5")
  loop:queue_microtask(function() log("  microtask queued by timeout 5") end)
end, 5)
loop:set_timeout(function() log("timeout 5, set second") end, 5)
loop:advance(10)

print("\nNested timers: a 0 ms timer set by a task nested more than five levels deep waits")
print("at least 4 ms (HTML's clamp):")
local depth = 0
local function nest()
  depth = depth + 1
  log("nesting level " .. depth)
  if depth < 8 then loop:set_timeout(nest, 0) end
end
loop:set_timeout(nest, 0)
loop["run-all"](loop)

print("\nAnimation frames fall on a 16 ms grid; a frame requested inside a frame runs in the next:")
local frames = 0
local function frame(t)
  frames = frames + 1
  log(("frame %d at %d ms"):format(frames, t))
  if frames < 3 then loop:request_animation_frame(frame) end
end
loop:request_animation_frame(frame)
loop:advance(50)

print("\nAn error in a task is reported and the loop goes on:")
loop:on_error(function(msg) log("on_error: " .. msg:match("[^\n]*")) end)   -- its first line; a traceback follows
local n = 0
local id
id = loop:set_interval(function()
  n = n + 1
  if n == 2 then error("tick two failed", 0) end
  log("interval tick " .. n)
  if n == 3 then loop:clear_interval(id) end
end, 10)
loop:advance(40)
