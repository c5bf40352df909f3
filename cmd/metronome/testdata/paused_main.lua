-- Leaves the host paused when the main chunk returns.
local hs = require("app-host").scheduler
hs:register("physics", function() print("never") end)
hs:set_paused(true)
