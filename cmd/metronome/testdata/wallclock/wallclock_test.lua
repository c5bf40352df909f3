local Temporal = require "temporal"

test("a scheduler without a clock starts at the host's instant", function(t)
  t:eq(tostring(require("runtime-scheduler").create():now()), "2000-01-01T00:00:00Z")
end)

test("the wall clock", function(t)
  t:ok(Temporal.clock.system():now() > Temporal.instant.parse("2024-01-01T00:00:00Z"))
end)
