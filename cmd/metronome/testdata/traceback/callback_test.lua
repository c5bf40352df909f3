-- Tests whose schedulers' callbacks fail.
local Temporal = require "temporal"
local clock = Temporal.clock.fixed(Temporal.instant.parse("2000-01-01T00:00:00Z"))
local ms = function(n) return Temporal.duration{ milliseconds = n } end
local function explode() error("boom") end

test("a job fails", function(t)
  local s = require("runtime-scheduler").create{ clock = clock }
  s:schedule_every{ interval = ms(5), callback = function() explode() end }
  s:advance(ms(10))
end)

test("a job fails inside another job", function(t)
  local outer = require("runtime-scheduler").create{ clock = clock }
  local inner = require("runtime-scheduler").create{ clock = clock }
  inner:schedule_once{ delay = ms(5), callback = function() error("inner boom") end }
  outer:schedule_once{ delay = ms(1), callback = function()
    inner:advance(ms(10))
  end }
  outer:advance(ms(10))
end)
