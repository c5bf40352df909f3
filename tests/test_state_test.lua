-- The state a test file runs in, the same under `go test ./tests` and
-- `metronome test` (luatest.HostState): a host of its own on a virtual clock
-- from 2000-01-01T00:00:00Z, which os.time, os.date and os.clock read.
local host = require "app-host"
local hs = host.scheduler

test("os.time and os.date read the host's clock", function(t)
  t:eq(os.date("!%Y", os.time()), "2000")
  t:eq(os.time(), 946684800)
  t:eq(os.date("!%Y-%m-%dT%H:%M:%SZ"), "2000-01-01T00:00:00Z")
  t:eq(tostring(hs:now()), "2000-01-01T00:00:00Z")
end)

test("os.clock is the host's elapsed time", function(t)
  t:eq(os.clock(), 0)
  hs:update(1500)
  t:eq(os.clock(), 1.5)
  t:eq(os.time(), 946684801)
  t:eq(os.date("!%H:%M:%S"), "00:00:01")
end)

test("nothing runs to quit", function(t)
  t:eq(host.quit(), false)
end)
