-- What a script without a clock of its own gets: the host's instant, and
-- the wall clock only when the run allows it.
local Temporal = require "temporal"
local hs = require("app-host").scheduler
hs:update(1500)
print(require("runtime-scheduler").create():now(), require("app-host.services").make_scheduler{}:now())
local ok, err = pcall(Temporal.clock.system)
print(ok and "wall clock allowed" or err)
