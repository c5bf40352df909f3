-- Prints the host's clock as the script sees it.
local host = require "app-host"
local hs = host.scheduler
print(tostring(hs:now()), os.date("!%Y-%m-%dT%H:%M:%SZ"), os.time(), os.clock())
hs:update(1500)
print(tostring(hs:now()), os.date("!%Y-%m-%dT%H:%M:%SZ"), os.time(), os.clock())
