-- The intervals scene on keyed timers: the same 10,000 timers (MINSTD from 42) as
-- w1.lua, each registered by key with register-timer, first due at its
-- phase and then every period, so the fire count is w1.lua's. Each fire is
-- a keyed tick: a pooled coroutine and a tick table.
local Temporal = require "temporal"
local RS = require "runtime-scheduler"
local N, H = tonumber((...)) or 1000, tonumber((select(2, ...))) or 1
local seed = 42
local function rnd() seed = (seed * 48271) % 2147483647; return seed / 2147483647 end
local s = RS.create{ clock = Temporal.clock.fixed(Temporal.instant["from-epoch-ms"](0)) }
local fires = 0
local function cb() fires = fires + 1 end
for i = 1, N do
  local period = 1000 + math.floor(rnd() * 59000)
  local phase = math.floor(rnd() * period)
  s:register_timer{ key = "w" .. i, delay = Temporal.duration{ milliseconds = phase },
                    interval = Temporal.duration{ milliseconds = period }, callback = cb }
end
s:advance(Temporal.duration{ milliseconds = math.floor(H * 3600000) })
print(("{\"peer\":\"metronome-lua-keyed\",\"N\":%d,\"hours\":%s,\"fires\":%d}"):format(N, tostring(H), fires))
