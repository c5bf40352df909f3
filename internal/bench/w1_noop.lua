-- The intervals scene with no-op interval callbacks: the same 10,000 intervals (MINSTD from
-- 42) as w1.lua, but each interval's callback is an empty function, so
-- ns/fire is the scheduler plus one Go-to-Lua call. The fire count is the
-- scene's closed form (the one-shots plus each interval's ticks up to the
-- end), computed while scheduling; w1.lua checks that the scheduler fires
-- exactly that many.
local Temporal = require "temporal"
local RS = require "runtime-scheduler"
local N, H = tonumber((...)) or 1000, tonumber((select(2, ...))) or 1
local seed = 42
local function rnd() seed = (seed * 48271) % 2147483647; return seed / 2147483647 end
local s = RS.create{ clock = Temporal.clock.fixed(Temporal.instant["from-epoch-ms"](0)) }
local endMs = math.floor(H * 3600000)
local fires = 0
local function noop() end
for _ = 1, N do
  local period = 1000 + math.floor(rnd() * 59000)
  local phase = math.floor(rnd() * period)
  if phase <= endMs then fires = fires + 1 + math.floor((endMs - phase) / period) end
  s:schedule_once{ delay = Temporal.duration{ milliseconds = phase }, callback = function()
    s:schedule_every{ interval = Temporal.duration{ milliseconds = period }, callback = noop } end }
end
s:advance(Temporal.duration{ milliseconds = endMs })
print(("{\"peer\":\"metronome-lua-noop\",\"N\":%d,\"hours\":%s,\"fires\":%d}"):format(N, tostring(H), fires))
