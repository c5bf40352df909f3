-- A table facet whose update lookup raises (an __index that errors).
local hs = require("app-host").scheduler
local f = { update = function() end }
hs:register("bad", f)
f.update = nil
setmetatable(f, { __index = function() error("no update here") end })
