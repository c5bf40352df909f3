-- Closures keep sharing locals with their enclosing function after an error
-- is caught (gopher-lua closes them too eagerly, yuin/gopher-lua#448; the
-- sandbox's pcall and error, and every Metronome binding, avoid that path).
local Temporal = require "temporal"
local RS = require "runtime-scheduler"
local function ms(n) return Temporal.duration{ milliseconds = n } end

test("a closure's writes reach its caller after pcall of error", function(t)
  local x
  local function run(f) f() end
  run(function() local _, m = pcall(error, "e"); x = m end)
  t:eq(x, "e")
end)

test("error keeps its position and level", function(t)
  local _, m = pcall(error, "plain", 0)
  t:eq(m, "plain")
  _, m = pcall(function() error("here") end)
  t:ok(m:find("upvalues_test.lua:%d+: here") ~= nil, m)
  _, m = pcall(function() local function inner() error("caller", 2) end inner() end)
  t:ok(m:find("upvalues_test.lua:%d+: caller") ~= nil, m)
  local obj = {}
  _, m = pcall(error, obj)
  t:ok(rawequal(m, obj))
end)

test("a callback's count stays shared after a caught callback error", function(t)
  local s = RS.create{ clock = Temporal.clock.fixed(Temporal.instant.parse("2000-01-01T00:00:00Z")) }
  local fires = 0
  s:schedule_every{ interval = ms(10), callback = function() fires = fires + 1 end }
  s:schedule_once{ delay = ms(15), callback = function() error("boom") end }
  local ok = pcall(s.advance, s, ms(100))
  t:eq(ok, false)
  s:advance(ms(85))
  t:eq(fires, 10)
end)

test("a caught argument error leaves closures connected", function(t)
  local s = RS.create{ clock = Temporal.clock.fixed(Temporal.instant.parse("2000-01-01T00:00:00Z")) }
  local n = 0
  local function bump() n = n + 1 end
  t:eq(pcall(s.schedule_once, s, { delay = 5, callback = bump }), false)
  s:schedule_once{ delay = ms(1), callback = bump }
  s:advance(ms(1))
  bump()
  t:eq(n, 2)
end)
