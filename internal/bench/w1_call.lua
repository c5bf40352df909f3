-- The intervals scene with callbacks that call a function: w1.lua whose callback is not a leaf,
-- the base of w1_keyed_call.lua (the same callback, resumed as a keyed timer). Run: metronome run w1_call.lua N H
local Temporal = require "temporal"
local RS = require "runtime-scheduler"
local N, H = tonumber((...)) or 1000, tonumber((select(2, ...))) or 1
local seed = 42
local function rnd() seed = (seed * 48271) % 2147483647; return seed / 2147483647 end
local s = RS.create{ clock = Temporal.clock.fixed(Temporal.instant["from-epoch-ms"](0)) }
local fires = 0
local function bump() fires = fires + 1 end
local function cb() bump() end
for _ = 1, N do
  local period = 1000 + math.floor(rnd() * 59000)
  local phase = math.floor(rnd() * period)
  s:schedule_once{ delay = Temporal.duration{ milliseconds = phase }, callback = function()
    cb(); s:schedule_every{ interval = Temporal.duration{ milliseconds = period }, callback = cb } end }
end
s:advance(Temporal.duration{ milliseconds = math.floor(H * 3600000) })
print(("{\"peer\":\"metronome-lua-call\",\"N\":%d,\"hours\":%s,\"fires\":%d}"):format(N, tostring(H), fires))
