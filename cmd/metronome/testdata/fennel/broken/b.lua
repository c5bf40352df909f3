local x = 1
local y = = 2
