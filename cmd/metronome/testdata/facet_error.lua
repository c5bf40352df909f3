-- A facet that fails on its third frame.
local hs = require("app-host").scheduler
local n = 0
hs:register("physics", function(dt)
  n = n + 1
  print("frame", n, dt)
  if n == 3 then error("physics exploded") end
end)
