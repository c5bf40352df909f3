-- runtime-scheduler: its time model, catch-up and lifecycle policy, and
-- the edges of docs/lua-api.md, as scripts see them.
local Temporal = require "temporal"
local RS = require "runtime-scheduler"

local T0 = Temporal.instant.parse("2000-01-01T00:00:00Z")
local function ms(n) return Temporal.duration{ milliseconds = n } end
local function ns(n) return Temporal.duration{ nanoseconds = n } end

-- new returns a scheduler on a fixed clock and a log of "name@elapsed-ms".
local function new()
  local s = RS.create{ clock = Temporal.clock.fixed(T0) }
  local log = {}
  local function cb(name)
    return function() log[#log + 1] = name .. "@" .. (s:now() - T0)["total-ms"](s:now() - T0) end
  end
  local function take() local l = log; log = {}; return l end
  return s, cb, take
end

test("create accepts only :clock and defaults to the host's instant", function(t)
  -- Under metronome test (and metronome run) a scheduler without a clock
  -- starts where the test's host is, never at the wall clock.
  local hs = require("app-host").scheduler
  t:eq(RS.create():now(), T0)
  hs:update(1500)
  t:eq(RS.create{}:now(), T0 + ms(1500))
  t:error(function() RS.create{ clock = Temporal.clock.fixed(T0), epoch = 1 } end, "unknown option :epoch")
  t:error(function() RS.create{ clock = 5 } end, ":clock must be a Temporal.clock, got number 5")
end)

test("the epoch is clock:now() at create", function(t)
  local s = RS.create{ clock = Temporal.clock.fixed(T0) }
  t:eq(s:now(), T0)
end)

test("deadlines are exact nanoseconds", function(t)
  local s, cb, take = new()
  s:schedule_once{ delay = ms(10) + ns(1), callback = cb("a") }
  t:eq(s:advance(ms(10)), true)
  t:eq(take(), {})
  s:advance(ns(1))
  t:eq(take(), { "a@10.000001" })
end)

test("advance drains work scheduled inside the window at the job's deadline", function(t)
  local s, cb, take = new()
  local seen
  s:schedule_once{ delay = ms(10), callback = function()
    seen = s:now()
    s:schedule_once{ delay = ms(5), callback = cb("child") }
  end }
  s:advance(ms(20))
  t:eq(seen, T0 + ms(10))
  t:eq(take(), { "child@15" })
  t:eq(s:now(), T0 + ms(20))
end)

test("one-shot fires once and is inactive afterwards", function(t)
  local s, cb, take = new()
  local h = s:schedule_once{ delay = ms(1), callback = cb("a") }
  t:eq(h:is_active(), true)
  s:advance(ms(100))
  t:eq(take(), { "a@1" })
  t:eq(h["active?"](h), false)
end)

test("an interval fires once per missed interval", function(t)
  local s, cb, take = new()
  s:schedule_every{ interval = ms(10), callback = cb("tick") }
  s:advance(ms(35))
  t:eq(take(), { "tick@10", "tick@20", "tick@30" })
  s:advance(ms(5))
  t:eq(take(), { "tick@40" })
end)

test("due jobs run by deadline then creation order; repeats keep their number", function(t)
  local s, cb, take = new()
  s:schedule_every{ interval = ms(10), callback = cb("every") }
  s:schedule_once{ delay = ms(20), callback = cb("late") }
  s:schedule_once{ delay = ms(10), callback = cb("early") }
  s:advance(ms(20))
  t:eq(take(), { "every@10", "early@10", "every@20", "late@20" })
end)

test("a callback error propagates with its message; nothing is lost or run twice", function(t)
  local s, cb, take = new()
  s:schedule_once{ delay = ms(5), callback = cb("a") }
  s:schedule_once{ delay = ms(10), callback = function() error("boom") end }
  s:schedule_once{ delay = ms(10), callback = cb("b") }
  t:error(function() s:advance(ms(100)) end, "boom")
  t:eq(take(), { "a@5" })
  t:eq(s:now(), T0 + ms(10))
  s:advance(ms(0))
  t:eq(take(), { "b@10" })
end)

test("the error says where it was raised", function(t)
  local s = new()
  s:schedule_once{ delay = ms(1), callback = function() error("exploded here") end }
  local ok, err = pcall(s.advance, s, ms(1))
  t:eq(ok, false)
  t:ok(tostring(err):find("runtime_scheduler_test.lua:%d+: exploded here") ~= nil, tostring(err))
end)

test("error objects (tables) come out as they are", function(t)
  local s = new()
  local obj = { code = 7 }
  s:schedule_once{ delay = ms(1), callback = function() error(obj) end }
  local ok, err = pcall(s.advance, s, ms(1))
  t:eq(ok, false)
  t:ok(rawequal(err, obj))
end)

test("cancel and drop are idempotent and return true", function(t)
  local s, cb, take = new()
  local a = s:schedule_once{ delay = ms(1), callback = cb("a") }
  local b = s:schedule_every{ interval = ms(1), callback = cb("b") }
  t:eq({ a:cancel(), a:cancel(), b:drop(), b:drop() }, { true, true, true, true })
  t:eq({ a:is_active(), b:is_active() }, { false, false })
  s:advance(ms(10))
  t:eq(take(), {})
end)

test("handles carry the id list() shows", function(t)
  local s, cb = new()
  local a = s:schedule_once{ delay = ms(1), callback = cb("a") }
  local b = s:schedule_every{ interval = ms(1), callback = cb("b") }
  local l = s:list()
  t:eq({ l[1].id, l[2].id }, { a.id, b.id })
  t:eq(tostring(a), "handle #" .. a.id)
end)

test("cancelling an interval inside its callback stops its catch-up", function(t)
  local s = new()
  local n = 0
  local h
  h = s:schedule_every{ interval = ms(10), callback = function() n = n + 1; h:cancel() end }
  s:advance(ms(100))
  t:eq(n, 1)
  t:eq(h:is_active(), false)
end)

test("clear deactivates all pending work and the scheduler stays usable", function(t)
  local s, cb, take = new()
  local a = s:schedule_once{ delay = ms(1), callback = cb("a") }
  s:schedule_every{ interval = ms(1), callback = cb("b") }
  t:eq(s:clear(), true)
  t:eq({ s:count(), a:is_active() }, { 0, false })
  s:advance(ms(10))
  s:schedule_once{ delay = ms(1), callback = cb("c") }
  s:advance(ms(1))
  t:eq(take(), { "c@11" })
end)

test("clear inside a callback stops siblings at the same deadline", function(t)
  local s, cb, take = new()
  s:schedule_once{ delay = ms(10), callback = function() s:clear() end }
  s:schedule_once{ delay = ms(10), callback = cb("sibling") }
  s:advance(ms(20))
  t:eq(take(), {})
end)

test("drop deactivates everything; later calls but drop are errors", function(t)
  local s, cb = new()
  local h = s:schedule_once{ delay = ms(1), callback = cb("a") }
  t:eq({ s:drop(), s:drop() }, { true, true })
  t:eq(h:is_active(), false)
  t:eq(h:cancel(), true)
  t:error(function() s:advance(ms(1)) end, "advance: scheduler dropped")
  t:error(function() s:update(1) end, "update: scheduler dropped")
  t:error(function() s:schedule_once{ delay = ms(1), callback = cb("b") } end, "schedule-once: scheduler dropped")
  t:error(function() s:list() end, "list: scheduler dropped")
  t:error(function() s:now() end, "now: scheduler dropped")
end)

test("advance from inside a callback is an error", function(t)
  local s = new()
  local inner
  s:schedule_once{ delay = ms(1), callback = function()
    local _, err = pcall(s.advance, s, ms(1))
    inner = err
  end }
  s:advance(ms(1))
  t:ok(tostring(inner):find("advance: called from inside a callback of the same scheduler", 1, true) ~= nil, tostring(inner))
end)

test("update converts milliseconds exactly", function(t)
  local s, cb, take = new()
  s:schedule_once{ delay = Temporal.duration{ microseconds = 16600 }, callback = cb("a") }
  s:update(16.6)
  t:eq(take(), { "a@16.6" })
  t:eq(s:now() - T0, Temporal.duration{ microseconds = 16600 })
end)

test("bad inputs are refused with clear errors and change nothing", function(t)
  local s, cb = new()
  s:schedule_once{ delay = ms(10), callback = cb("a") }
  s:schedule_every{ interval = ms(7), callback = cb("b") }
  local before = s:list()
  local cases = {
    { function() s:update(0/0) end, "delta-ms must be a finite number of milliseconds >= 0" },
    { function() s:update(1/0) end, "got +Inf" },
    { function() s:update(-1/0) end, "got -Inf" },
    { function() s:update(-1) end, "got -1" },
    { function() s:update("16") end, "bad argument #2 to 'update' (delta-ms must be a number, got string \"16\")" },
    { function() s:advance(10) end, "Temporal.duration expected, got number 10; use update for milliseconds" },
    { function() s:advance(ms(-1)) end, "duration must be a duration >= 0" },
    { function() s:schedule_once{ delay = 10, callback = cb("x") } end,
      ":delay must be a Temporal.duration (use runtime-timers for milliseconds), got number 10" },
    { function() s:schedule_once{ delay = ms(-1), callback = cb("x") } end, ":delay must be a duration >= 0" },
    { function() s:schedule_once{ delay = ms(1) } end, ":callback must be a function, got nil" },
    { function() s:schedule_once{ delay = ms(1), callback = setmetatable({}, { __call = function() end }) } end,
      ":callback must be a function, got table" },
    { function() s:schedule_once{ ["delay-ms"] = 5, callback = cb("x") } end, "use runtime-timers for milliseconds" },
    { function() s:schedule_every{ ["interval-ms"] = 5, callback = cb("x") } end, "use runtime-timers for milliseconds" },
    { function() s:schedule_every{ interval = ms(0), callback = cb("x") } end, ":interval must be a duration > 0, got PT0S" },
    { function() s:schedule_every{ interval = ms(-5), callback = cb("x") } end, ":interval must be a duration > 0" },
    { function() s:schedule_once{ delay = ms(1), callback = cb("x"), extra = 1 } end, "unknown option :extra (accepted: :at :callback :delay :label)" },
    { function() s:schedule_once{ delay = ms(1), callback = cb("x"), ["zone-id"] = "UTC", zone_id = "UTC" } end, "unknown option" },
    { function() s:schedule_once(5) end, "option table expected, got number 5" },
    { function() s.schedule_once{ delay = ms(1), callback = cb("x") } end, "call methods with ':'" },
    { function() s:set_loop_limit(0) end, "an integer >= 1 expected, got number 0" },
    { function() s:set_loop_limit(1.5) end, "got number 1.5" },
    { function() s:run_all{ ["loop-limit"] = 0 } end, ":loop-limit must be an integer >= 1" },
    { function() s:trace("yes") end, "boolean or nothing expected" },
  }
  for i, c in ipairs(cases) do
    t:error(c[1], c[2])
  end
  local after = s:list()
  t:eq(#after, #before)
  for i = 1, #before do
    t:eq({ after[i].id, after[i].kind, after[i]["due-at"] }, { before[i].id, before[i].kind, before[i]["due-at"] })
  end
end)

test("both spellings of one key are an error", function(t)
  local s, cb = new()
  local rs = Temporal["recurrence-set"]{ dtstart = "2024-01-01T00:00:00", rrule = "FREQ=DAILY" }
  t:error(function()
    s:schedule_recurrence{ ["recurrence-set"] = rs, recurrence_set = rs, ["zone-id"] = "UTC", callback = cb("x") }
  end, "are one option; give one spelling")
end)

test("list shows active jobs in due order with canonical keys and snake aliases", function(t)
  local s, cb = new()
  s:schedule_once{ delay = ms(30), callback = cb("a") }
  local e = s:schedule_every{ interval = ms(10), callback = cb("b") }
  s:advance(ms(5))
  local l = s:list()
  t:eq(#l, 2)
  t:eq(l[1].id, e.id)
  t:eq(l[1].kind, "every")
  t:eq(l[1]["due-at"], T0 + ms(10))
  t:eq(l[1].due_at, T0 + ms(10))
  t:eq(l[1]["due-in"], ms(5))
  t:eq(l[1].interval, ms(10))
  t:eq(l[2].kind, "once")
  t:eq(l[2].interval, nil)
  local keys = {}
  for k in pairs(l[1]) do keys[#keys + 1] = k end
  table.sort(keys)
  t:eq(keys, { "due-at", "due-in", "id", "interval", "kind" })
end)

test("the loop guard stops a zero-delay re-arm and names the job", function(t)
  local s = new()
  s:set_loop_limit(50)
  local function spin() s:schedule_once{ delay = ms(0), callback = spin } end
  s:schedule_once{ delay = ms(1), callback = spin }
  t:error(function() s:advance(ms(10)) end, "loop limit: once #")
  t:eq(s:now(), T0 + ms(1))
end)

test("work scheduled before the call never counts toward the loop guard", function(t)
  local s = new()
  local n = 0
  for _ = 1, 20000 do s:schedule_once{ delay = ms(1), callback = function() n = n + 1 end } end
  s:advance(ms(1))
  t:eq(n, 20000)
end)

test("next jumps to the earliest deadline", function(t)
  local s, cb, take = new()
  s:schedule_once{ delay = ms(30), callback = cb("a") }
  s:schedule_once{ delay = ms(10), callback = cb("b") }
  t:eq(s:next(), true)
  t:eq(take(), { "b@10" })
  t:eq(s:next(), true)
  t:eq(s:next(), false)
  t:eq(take(), { "a@30" })
end)

test("run-all runs until nothing is pending and fails while an interval is active", function(t)
  local s, cb, take = new()
  s:schedule_once{ delay = ms(10), callback = function() s:schedule_once{ delay = ms(100), callback = cb("chained") } end }
  t:eq(s["run-all"](s), true)
  t:eq(take(), { "chained@110" })
  s:schedule_every{ interval = ms(1), callback = cb("tick") }
  t:error(function() s:run_all{ ["loop-limit"] = 20 } end, "run-all: more than 20 fires")
end)

test("run-to-last stops at the latest deadline pending at the call", function(t)
  local s, cb, take = new()
  s:schedule_once{ delay = ms(10), callback = cb("a") }
  s:schedule_once{ delay = ms(20), callback = function() s:schedule_once{ delay = ms(1), callback = cb("beyond") } end }
  s["run-to-last"](s)
  t:eq(take(), { "a@10" })
  t:eq(s:count(), 1)
  t:eq(s:now(), T0 + ms(20))
end)

test("run-to-last keeps run-all's loop limit and names the job it stopped at", function(t)
  local s, cb, take = new()
  s:schedule_every{ interval = ms(5), callback = function() end }
  s:schedule_once{ delay = Temporal.duration{ hours = 24 }, callback = cb("tomorrow") }
  local ok, err = pcall(s.run_to_last, s)
  t:eq(ok, false)
  t:ok(err:find("run-to-last: more than 10000 fires and work is still pending; the next is every #1 scheduled at ", 1, true), err)
  t:error(function() s["run-to-last"](s, { ["loop-limit"] = 3 }) end, "run-to-last: more than 3 fires")
  t:eq(take(), {})
  t:eq(s:count(), 2)
end)

test("jump: each due job runs once at now + d; an interval stays on its grid", function(t)
  local s, cb, take = new()
  s:schedule_every{ interval = ms(10), callback = cb("tick") }
  s:jump(ms(35))
  t:eq(take(), { "tick@35" })
  s:advance(ms(5))
  t:eq(take(), { "tick@40" })
end)

test("trace records every fire", function(t)
  local s, cb = new()
  local e = s:schedule_every{ interval = ms(10), callback = cb("tick") }
  s:trace(true)
  s:advance(ms(20))
  local tr = s:trace()
  t:eq(#tr, 2)
  t:eq({ tr[1].at, tr[1].id, tr[1].kind }, { T0 + ms(10), e.id, "every" })
  t:eq(tr[2].at, T0 + ms(20))
end)

test("recurrence: payload, limit, and occurrences before now skipped", function(t)
  local s = RS.create{ clock = Temporal.clock.fixed(Temporal.instant.parse("2024-03-09T00:00:00Z")) }
  local rs = Temporal["recurrence-set"]{ dtstart = "2024-03-08T02:30:00", rrule = "FREQ=DAILY" }
  local got = {}
  local h = s:schedule_recurrence{ ["recurrence-set"] = rs, ["zone-id"] = "America/New_York",
    disambiguation = "compatible", limit = 3, callback = function(p, extra)
      got[#got + 1] = { tostring(p["scheduled-at"]), p["occurrence-index"], p.occurrence_index, extra }
    end }
  t:eq(s:list()[1]["occurrence-index"], 1)
  s:advance(Temporal.duration{ hours = 24 * 10 })
  t:eq(got, {
    { "2024-03-09T07:30:00Z", 1, 1, nil },
    { "2024-03-10T07:30:00Z", 2, 2, nil },
    { "2024-03-11T06:30:00Z", 3, 3, nil },
  })
  t:eq(h:is_active(), false)
end)

test("recurrence: a rejected first occurrence is an error at schedule-recurrence", function(t)
  local s = RS.create{ clock = Temporal.clock.fixed(Temporal.instant.parse("2024-03-10T00:00:00Z")) }
  local rs = Temporal["recurrence-set"]{ dtstart = "2024-03-08T02:30:00", rrule = "FREQ=DAILY" }
  t:error(function()
    s:schedule_recurrence{ ["recurrence-set"] = rs, ["zone-id"] = "America/New_York", callback = function() end }
  end, "2024-03-10T02:30:00")
  t:eq(s:count(), 0)
end)

test("recurrence: a rejection within ten years is an error at schedule-recurrence", function(t)
  local s = RS.create{ clock = Temporal.clock.fixed(Temporal.instant.parse("2024-03-08T00:00:00Z")) }
  local rs = Temporal["recurrence-set"]{ dtstart = "2024-03-08T02:30:00", rrule = "FREQ=DAILY" }
  local f = function() end
  t:error(function()
    s:schedule_recurrence{ ["recurrence-set"] = rs, ["zone-id"] = "America/New_York", callback = f }
  end, 'a coming occurrence: local time 2024-03-10T02:30:00 does not exist in America/New_York (skipped by a DST gap); disambiguation "reject" refuses it: give "compatible", "earlier" or "later"')
  t:eq(s:count(), 0)
  -- a limit that ends the job before the gap night, or another disambiguation, schedules it
  s:schedule_recurrence{ ["recurrence-set"] = rs, ["zone-id"] = "America/New_York", callback = f, limit = 2 }
  s:schedule_recurrence{ ["recurrence-set"] = rs, ["zone-id"] = "America/New_York", callback = f, disambiguation = "later" }
  t:eq(s:count(), 2)
end)

test("recurrence: a rejection past ten years comes out of the previous fire and the handle goes on", function(t)
  -- March 14 is the second Sunday of March in 2038 and next in 2049
  local s = RS.create{ clock = Temporal.clock.fixed(Temporal.instant.parse("2039-01-01T00:00:00Z")) }
  local rs = Temporal["recurrence-set"]{ dtstart = "2039-03-14T02:30:00", rrule = "FREQ=YEARLY" }
  local idx = {}
  local h = s:schedule_recurrence{ ["recurrence-set"] = rs, ["zone-id"] = "America/New_York",
    callback = function(p) idx[#idx + 1] = p["occurrence-index"] end }
  local year = Temporal.duration{ hours = 365 * 24 }
  s:advance(year * 9)
  t:eq(#idx, 9)
  t:error(function() s:advance(year) end, "2049-03-14T02:30:00")
  t:eq(#idx, 10)
  t:eq(h:is_active(), true)
  s:advance(year * 2)
  t:eq(idx[11], 11)
end)

test("recurrence: bad options", function(t)
  local s = new()
  local rs = Temporal["recurrence-set"]{ dtstart = "2024-01-01T00:00:00", rrule = "FREQ=DAILY" }
  local f = function() end
  t:error(function() s:schedule_recurrence{ ["recurrence-set"] = rs, callback = f } end, ":zone-id must be a string, got nil")
  t:error(function() s:schedule_recurrence{ ["recurrence-set"] = rs, ["zone-id"] = "", callback = f } end, 'zone ""')
  t:error(function() s:schedule_recurrence{ ["recurrence-set"] = rs, ["zone-id"] = "Mars/Olympus", callback = f } end, "Mars/Olympus")
  t:error(function() s:schedule_recurrence{ ["recurrence-set"] = "FREQ=DAILY", ["zone-id"] = "UTC", callback = f } end,
    ":recurrence-set must be a Temporal.recurrence-set")
  t:error(function() s:schedule_recurrence{ ["recurrence-set"] = rs, ["zone-id"] = "UTC", callback = f, limit = 0 } end,
    ":limit must be an integer >= 1")
  t:error(function() s:schedule_recurrence{ ["recurrence-set"] = rs, ["zone-id"] = "UTC", callback = f, limit = 1.5 } end,
    ":limit must be an integer")
  t:error(function() s:schedule_recurrence{ ["recurrence-set"] = rs, ["zone-id"] = "UTC", callback = f, disambiguation = "latest" } end,
    ':disambiguation must be "reject", "compatible", "earlier" or "later"')
  t:eq(s:count(), 0)
end)

test("a callback scheduled inside a finished coroutine still fires", function(t)
  local s, cb, take = new()
  local co = coroutine.create(function()
    s:schedule_once{ delay = ms(1), callback = cb("from-coroutine") }
  end)
  assert(coroutine.resume(co))
  t:eq(coroutine.status(co), "dead")
  s:advance(ms(1))
  t:eq(take(), { "from-coroutine@1" })
end)

test("advance may be called from inside a coroutine", function(t)
  local s, cb, take = new()
  s:schedule_once{ delay = ms(1), callback = cb("a") }
  local co = coroutine.wrap(function() s:advance(ms(2)) end)
  co()
  t:eq(take(), { "a@1" })
end)
