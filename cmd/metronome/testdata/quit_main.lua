-- Quits in the main chunk: nothing after it runs.
local Temporal = require "temporal"
local host = require "app-host"
host.scheduler:schedule_once{ delay = Temporal.duration{ seconds = 1 }, callback = function() print("never") end }
host.quit()
print("main chunk done")
