-- The handle and time API (docs/lua-api.md, "Scheduling options and handles"):
-- schedule-once's :at, schedule-every's :delay and :count, :label, and a
-- handle's due, remaining and reset, on runtime-scheduler, the app-host
-- scheduler and runtime-timers.
local Temporal = require "temporal"
local RS = require "runtime-scheduler"
local RuntimeTimers = require "runtime-timers"

local T0 = Temporal.instant.parse("2000-01-01T00:00:00Z")
local function ms(n) return Temporal.duration{ milliseconds = n } end
local function ns(n) return Temporal.duration{ nanoseconds = n } end

local function new()
  local s = RS.create{ clock = Temporal.clock.fixed(T0) }
  local log = {}
  local function cb(name)
    return function() log[#log + 1] = name .. "@" .. (s:now() - T0)["total-ms"](s:now() - T0) end
  end
  local function take() local l = log; log = {}; return l end
  return s, cb, take
end

test("schedule_once{ at } fires at that instant; at == now is due now", function(t)
  local s, cb, take = new()
  s:advance(ms(5))
  s:schedule_once{ at = T0 + ms(10), callback = cb("at") }
  s:schedule_once{ at = s:now(), callback = cb("now") }
  s:advance(ms(0))
  t:eq(take(), { "now@5" })
  s:advance(ms(5) - ns(1))
  t:eq(take(), {})
  s:advance(ns(1))
  t:eq(take(), { "at@10" })
end)

test("schedule_once{ at } refuses a past instant, both :at and :delay, and a non-instant", function(t)
  local s, cb = new()
  s:advance(ms(10))
  t:error(function() s:schedule_once{ at = T0, callback = cb("x") } end,
    ":at must be an instant not before now (2000-01-01T00:00:00.01Z), got 2000-01-01T00:00:00Z")
  t:error(function() s:schedule_once{ at = T0 + ms(20), delay = ms(1), callback = cb("x") } end,
    "options :delay and :at are two ways to say when; give one")
  t:error(function() s:schedule_once{ at = 5, callback = cb("x") } end, ":at must be a Temporal.instant, got number 5")
  t:eq(s:count(), 0)
end)

test("schedule_every{ delay } anchors the grid; count ends the handle, catch-up included", function(t)
  local s, cb, take = new()
  local h = s:schedule_every{ interval = ms(10), delay = ms(3), count = 3, callback = cb("e") }
  s:advance(ms(3))
  t:eq(take(), { "e@3" })
  s:advance(ms(30))
  t:eq(take(), { "e@13", "e@23" })
  t:eq(h:is_active(), false)
  t:eq(s:count(), 0)
end)

test("schedule_every: delay 0 is due now; a jump's single fire counts once", function(t)
  local s, cb, take = new()
  local h = s:schedule_every{ interval = ms(10), delay = ms(0), count = 2, callback = cb("z") }
  s:advance(ms(0))
  t:eq(take(), { "z@0" })
  s:jump(ms(35))
  t:eq(take(), { "z@35" })
  t:eq(h["active?"](h), false)
end)

test("schedule_every refuses a bad delay or count and schedule_recurrence refuses count", function(t)
  local s, cb = new()
  t:error(function() s:schedule_every{ interval = ms(10), delay = ms(-1), callback = cb("x") } end, ":delay must be a duration >= 0")
  t:error(function() s:schedule_every{ interval = ms(10), count = 0, callback = cb("x") } end, ":count must be an integer >= 1, got number 0")
  t:error(function() s:schedule_every{ interval = ms(10), count = 1.5, callback = cb("x") } end, ":count must be an integer")
  local rs = Temporal["recurrence-set"]{ dtstart = "2000-01-01T00:00:00", rrule = "FREQ=DAILY" }
  t:error(function() s:schedule_recurrence{ ["recurrence-set"] = rs, ["zone-id"] = "UTC", count = 2, callback = cb("x") } end,
    "unknown option :count; schedule-recurrence caps its fires with :limit (use :limit)")
  t:eq(s:count(), 0)
end)

test("label shows in list, in trace and in errors beside the position", function(t)
  local s = new()
  s:trace(true)
  local h = s:schedule_every{ interval = ms(10), label = "regen", callback = function() error("boom") end }
  s:schedule_once{ delay = ms(20), callback = function() end }
  local l = s:list()
  t:eq(l[1].label, "regen")
  t:eq(l[2].label, nil)
  local ok, err = pcall(s.advance, s, ms(10))
  t:eq(ok, false)
  t:ok(tostring(err):find("every #" .. h.id .. " 'regen' scheduled at ", 1, true), tostring(err))
  t:eq(s:trace()[1].label, "regen")
  t:error(function() s:schedule_once{ delay = ms(1), label = 5, callback = print } end, ":label must be a string, got number 5")
end)

test("due and remaining report the next deadline; nil when inactive", function(t)
  local s = new()
  local h = s:schedule_once{ delay = ms(10), callback = function() end }
  s:advance(ms(4))
  t:eq(h:due(), T0 + ms(10))
  t:eq(h:remaining(), ms(6))
  s:advance(ms(6))
  t:eq(h:due(), nil)
  t:eq(h:remaining(), nil)
  local seen = {}
  local e
  e = s:schedule_every{ interval = ms(5), callback = function()
    seen[#seen + 1] = e:remaining():total_ms()
    seen[#seen + 1] = e:due() == s:now() + ms(5)
  end }
  s:advance(ms(5))
  t:eq(seen, { 5, true })
  e:cancel()
  t:eq(e:due(), nil)
end)

test("reset re-arms a pending, fired or cancelled one-shot with the same id", function(t)
  local s, cb, take = new()
  local h = s:schedule_once{ delay = ms(10), callback = cb("o") }
  local id = h.id
  s:advance(ms(10))
  t:eq(take(), { "o@10" })
  t:eq(h:reset(), true) -- the original delay
  t:eq(h.id, id)
  t:eq(s:list()[1].id, id)
  s:advance(ms(10))
  t:eq(take(), { "o@20" })
  h:cancel()
  h:reset(ms(1))
  s:advance(ms(1))
  t:eq(take(), { "o@21" })
end)

test("reset orders the job as if scheduled at the call", function(t)
  local s, cb, take = new()
  local a = s:schedule_once{ delay = ms(10), callback = cb("a") }
  s:schedule_once{ delay = ms(10), callback = cb("b") }
  a:reset(ms(10))
  s:advance(ms(10))
  t:eq(take(), { "b@10", "a@10" })
end)

test("reset on an interval restarts its grid and its count", function(t)
  local s, cb, take = new()
  local e = s:schedule_every{ interval = ms(10), count = 2, callback = cb("e") }
  s:advance(ms(10))
  e:reset(ms(3))
  s:advance(ms(30))
  t:eq(take(), { "e@10", "e@13", "e@23" })
end)

test("reset refuses bad input, dropped, recurrence, keyed and spawn handles", function(t)
  local s = new()
  local h = s:schedule_once{ delay = ms(10), callback = function() end }
  t:error(function() h:reset(ms(-1)) end, "bad argument #2 to 'reset' (duration must be >= 0, got -PT0.001S)")
  t:error(function() h:reset(5) end, "a typed handle takes a Temporal.duration (milliseconds are for runtime-timers handles)")
  t:eq(h:remaining(), ms(10))
  h:drop()
  t:error(function() h:reset() end, "reset: the handle was dropped")
  local rs = Temporal["recurrence-set"]{ dtstart = "2000-01-01T00:00:00", rrule = "FREQ=DAILY" }
  local r = s:schedule_recurrence{ ["recurrence-set"] = rs, ["zone-id"] = "UTC", callback = function() end }
  t:error(function() r:reset() end, "reset: a recurrence handle cannot be reset")
  local k = s:register_timer{ key = "k", interval = ms(5), callback = function() end }
  t:error(function() k:reset() end, "reset: a keyed timer cannot be reset")
  local sp = s:spawn(function() s:wait(ms(5)) end)
  t:error(function() sp:reset() end, "reset: a spawn handle cannot be reset")
end)

test("register_timer and debouncer take a label", function(t)
  local s = new()
  s:register_timer{ key = "k", interval = ms(5), label = "regen", callback = function() end }
  t:eq(s:list()[1].label, "regen")
  local deb = s:debouncer{ timeout = ms(5), label = "save", callback = function() end }
  deb:debounce("x")
  t:eq(s:list()[2].label, "save")
end)

test("the app-host scheduler has at, count, label, due, remaining and reset", function(t)
  local hs = require("app-host").scheduler
  local log = {}
  local h = hs:schedule_once{ at = hs:now() + ms(10), label = "boom", callback = function() log[#log + 1] = "at" end }
  local e = hs:schedule_every{ interval = ms(10), count = 1, callback = function() log[#log + 1] = "every" end }
  t:eq(h:remaining(), ms(10))
  t:eq(hs:jobs()[1].label, "boom")
  hs:step(10)
  t:eq(log, { "at", "every" })
  t:eq(e:is_active(), false)
  h:reset(ms(5))
  hs:step(5)
  t:eq(log, { "at", "every", "at" })
end)

test("runtime-timers handles reset in milliseconds and take a label", function(t)
  local hs = require("app-host").scheduler
  local n = 0
  local h = RuntimeTimers.Timeout{ ["delay-ms"] = 100, label = "fuse", callback = function() n = n + 1 end }
  t:eq(RuntimeTimers.list()[1].label, "fuse")
  hs:step(100)
  t:eq(n, 1)
  t:eq(h:reset(), true) -- the original 100 ms
  hs:step(99)
  t:eq(n, 1)
  h:reset(10)
  t:eq(h:remaining(), ms(10))
  hs:step(10)
  t:eq(n, 2)
  t:error(function() h:reset(ms(5)) end, "a runtime-timers handle takes milliseconds (for a Temporal.duration use runtime-scheduler)")
  t:error(function() h:reset(-1) end, "bad argument #2 to 'reset'")
  local i = RuntimeTimers.Interval{ ["interval-ms"] = 50, callback = function() end }
  t:eq(i:remaining(), ms(50))
  i:cancel()
end)

test("reset inside the job's own callback re-arms it", function(t)
  local s, cb, take = new()
  local h
  local n = 0
  h = s:schedule_once{ delay = ms(10), callback = function()
    n = n + 1
    if n < 3 then h:reset() end
  end }
  s:advance(ms(100))
  t:eq(n, 3)
  local e
  e = s:schedule_every{ interval = ms(10), callback = function()
    cb("e")()
    e:reset(ms(25))
  end }
  s:advance(ms(60))
  t:eq(take(), { "e@110", "e@135", "e@160" })
  t:eq(e:remaining(), ms(25))
end)

test("a keyed timer reports its next tick", function(t)
  local s = new()
  local seen
  local k
  k = s:register_timer{ key = "k", interval = ms(10), delay = ms(4), callback = function() seen = k:remaining() end }
  t:eq(k:due(), T0 + ms(4))
  s:advance(ms(4))
  t:eq(seen, ms(10))
  t:eq(k:remaining(), ms(10))
  k:cancel()
  t:eq(k:due(), nil)
  t:eq(k:remaining(), nil)
end)

test("reset after clear re-arms; on a dropped scheduler it is an error", function(t)
  local s, cb, take = new()
  local h = s:schedule_every{ interval = ms(10), callback = cb("e") }
  s:clear()
  t:eq(h:due(), nil)
  h:reset()
  s:advance(ms(10))
  t:eq(take(), { "e@10" })
  s:drop()
  t:error(function() h:reset() end, "scheduler dropped")
  t:eq(h:due(), nil)
end)
