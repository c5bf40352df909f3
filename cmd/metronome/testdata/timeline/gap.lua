-- Two bursts hours apart: too few lanes to write the gap up its band, so
-- the axis labels it.
local D = require('temporal').duration
local hs = require('app-host').scheduler
local function burst()
  local n, beat = 0, nil
  beat = hs:schedule_every{ interval = D{ milliseconds = 250 }, callback = function()
    n = n + 1
    if n == 8 then beat:cancel() end
  end }
end
burst()
hs:schedule_once{ delay = D{ hours = 5 }, callback = burst }
