-- The intervals scene on the event loop: the scene of w1.lua (N intervals, periods 1..60 s drawn by MINSTD from 42,
-- random phase, H hours of virtual time, Lua callbacks) written with set_timeout / set_interval.
-- Run: metronome run w1_eventloop.lua N H   (prints the fire count)
local EventLoop = require "event-loop"
local N, H = tonumber((...)) or 1000, tonumber((select(2, ...))) or 1
local seed = 42
local function rnd() seed = (seed * 48271) % 2147483647; return seed / 2147483647 end
local loop = EventLoop.new{ clock = "virtual" }
local fires = 0
local function cb() fires = fires + 1 end
for _ = 1, N do
  local period = 1000 + math.floor(rnd() * 59000)
  local phase = math.floor(rnd() * period)
  loop:set_timeout(function() cb(); loop:set_interval(cb, period) end, phase)
end
loop:advance(math.floor(H * 3600000))
print(("{\"peer\":\"metronome-event-loop\",\"N\":%d,\"hours\":%s,\"fires\":%d}"):format(N, tostring(H), fires))
