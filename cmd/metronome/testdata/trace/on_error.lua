-- Under hs:on_error a failing interval keeps repeating: the timeline rings
-- each failed fire, and the run ends normally.
local Temporal = require "temporal"
local hs = require("app-host").scheduler
local n = 0
hs:on_error(function() end)
local e
e = hs:schedule_every{ interval = Temporal.duration{ seconds = 1 }, callback = function()
  n = n + 1
  if n == 4 then e:cancel() end
  if n % 2 == 0 then error("even") end
end }
