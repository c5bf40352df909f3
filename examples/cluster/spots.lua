-- Ten Spots shared by every process that runs this scene with the same
-- --cluster: each Spot is an owner with an id, so its timers tick in one
-- process at a time.
--
--   metronome run --realtime --trace --cluster etcd://127.0.0.1:2379 spots.lua a
--
-- arg[1] names the process in its output (default "?").
local Temporal = require "temporal"
local host = require "app-host"
local hs = host.scheduler

local me = arg[1] or "?"
local function ms(n) return Temporal.duration{ milliseconds = n } end

local spots = {}
for i = 1, 10 do
  local id = "spot-" .. i
  local o = hs:owner{ id = id, lease = Temporal.duration{ seconds = 2 } }
  local hp = 0
  o:register_timer{ key = "regen", interval = ms(500), callback = function(tick)
    hp = hp + 1
    -- tick.fence is what a write to shared state would be fenced on.
    print(string.format("%s  %-7s regen #%d  fence %s", me, id, tick["scheduled-index"], tick.fence))
  end }
  spots[#spots + 1] = { id = id, owner = o }
end

local mine = {}
for _, s in ipairs(spots) do
  if s.owner:is_owned() then mine[#mine + 1] = s.id end
end
print(string.format("%s  owns %d of 10 at start: %s", me, #mine, table.concat(mine, " ")))
