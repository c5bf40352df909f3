-- A spawner's 300 one-shots from one line, an interval, a facet and a quit:
-- past the lane cap the one-shots share a lane.
local D = require('temporal').duration
local hs = require('app-host').scheduler
for i = 1, 300 do hs:schedule_once{ delay = D{ milliseconds = i * 7 }, callback = function() end } end
hs:schedule_every{ interval = D{ milliseconds = 1 }, callback = function() end }
hs:register("render", function() end)
hs:schedule_once{ delay = D{ seconds = 3 }, callback = function() require('app-host').quit() end }
