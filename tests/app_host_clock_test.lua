-- The test-clock verbs on the app-host scheduler (docs/lua-api.md,
-- "Test-clock verbs"): next, run-all, run-to-last,
-- jump, count and trace move the host's timed work (its jobs and its
-- runtime-timers, in one timeline), never its facets, ignoring pause; and
-- RuntimeTimers.count / list.
local Temporal = require "temporal"
local RuntimeTimers = require "runtime-timers"
local hs = require("app-host").scheduler
local D = Temporal.duration
local start = Temporal.instant.parse("2000-01-01T00:00:00Z")

local function ms(n) return D["from-ms"](n) end

-- log: what ran, "name@ms" after the start; a facet notes every frame
local log
local function note(name) return function() log[#log + 1] = name .. "@" .. (hs:now() - start):total_ms() end end

before_each(function(t)
  log = {}
  hs:register("facet", note("facet"))
end)

test("next runs the earliest deadline of the whole timeline, without facets", function(t)
  RuntimeTimers.Timeout{ ["delay-ms"] = 5, callback = note("timeout") }
  hs:schedule_once{ delay = ms(5), callback = note("once") }
  hs:schedule_once{ delay = ms(8), callback = note("later") }
  hs:set_paused(true)                       -- pause is ignored, as by step
  t:eq(hs:next(), true)
  t:eq(log, { "timeout@5", "once@5" })      -- both due at 5, in creation order
  t:eq(hs:next(), true)
  t:eq(log, { "timeout@5", "once@5", "later@8" })
  t:eq(hs:next(), false)                    -- nothing pending: time stays
  t:eq(hs:now(), start + ms(8))
end)

test("run-all runs until nothing is pending, and fails while an interval is active", function(t)
  RuntimeTimers.Timeout{ ["delay-ms"] = 30, callback = note("t30") }
  hs:schedule_once{ delay = ms(10), callback = function()
    note("o10")()
    hs:schedule_once{ delay = ms(5), callback = note("o15") }
  end }
  t:eq(hs["run-all"](hs), true)
  t:eq(log, { "o10@10", "o15@15", "t30@30" })
  t:eq(hs:count(), 0)
  RuntimeTimers.Interval{ ["interval-ms"] = 1, callback = function() end }
  t:error(function() hs:run_all{ ["loop-limit"] = 50 } end,
    "run-all: more than 50 fires and work is still pending; the next is every #")
  t:error(function() hs:run_all{ loop_limit = 0 } end, "bad argument #2 to 'run-all' (:loop-limit must be an integer >= 1, got number 0)")
  t:error(function() hs:run_all{ limit = 5 } end, "bad argument #2 to 'run-all' (unknown option :limit")
end)

test("run-to-last stops at the latest deadline pending when it was called", function(t)
  hs:schedule_once{ delay = ms(10), callback = function()
    note("o10")()
    hs:schedule_once{ delay = ms(100), callback = note("beyond") }
  end }
  RuntimeTimers.Timeout{ ["delay-ms"] = 20, callback = note("t20") }
  t:eq(hs["run-to-last"](hs), true)
  t:eq(log, { "o10@10", "t20@20" })
  t:eq(hs:now(), start + ms(20))
  t:eq(hs:count(), 1)
end)

test("run-to-last keeps run-all's loop limit and names the job it stopped at", function(t)
  hs:schedule_every{ interval = ms(5), callback = function() end }
  hs:schedule_once{ delay = Temporal.duration{ hours = 24 }, callback = note("tomorrow") }
  t:error(function() hs:run_to_last() end,
    "run-to-last: more than 10000 fires and work is still pending; the next is every #")
  t:error(function() hs:run_to_last{ loop_limit = 10 } end, "run-to-last: more than 10 fires")
  t:error(function() hs:run_to_last{ loop_limit = 0 } end, "bad argument #2 to 'run-to-last' (:loop-limit must be an integer >= 1, got number 0)")
  t:eq(log, {})
end)

test("jump fires each due job once, and an interval stays on its grid", function(t)
  hs:schedule_every{ interval = ms(10), callback = note("every") }
  RuntimeTimers.Interval{ ["interval-ms"] = 4, callback = note("rt") }
  t:eq(hs:jump(ms(35)), true)
  t:eq(log, { "rt@35", "every@35" })        -- once each at now + d, in (deadline, creation) order
  log = {}
  hs:step(5)                                -- 40: both grids go on (the facet runs in a step)
  t:eq(log, { "rt@36", "every@40", "rt@40", "facet@40" })
  t:error(function() hs:jump(35) end, "bad argument #2 to 'jump' (Temporal.duration expected, got number 35)")
  t:error(function() hs:jump(D{ seconds = -1 }) end, "bad argument #2 to 'jump' (duration must be a duration >= 0, got -PT1S)")
end)

test("count is everything on the timeline and jobs lists the same set with its group", function(t)
  t:eq(hs:count(), 0)
  hs:schedule_every{ interval = ms(10), callback = function() end }
  RuntimeTimers.Timeout{ ["delay-ms"] = 5, callback = function() end }
  local db = RuntimeTimers.Debouncer{ ["delay-ms"] = 20, callback = function() end }
  db()
  local jobs = hs:jobs()
  t:eq(#jobs, hs:count())
  t:eq(hs:count(), 3)
  t:eq({ jobs[1].group, jobs[1].kind, jobs[1]["due-in"] }, { "runtime-timers", "once", ms(5) })
  t:eq({ jobs[2].group, jobs[2].kind, jobs[2].interval }, { "app-host", "every", ms(10) })
  t:eq({ jobs[3].group, jobs[3]["due-at"] }, { "runtime-timers", start + ms(20) })
  t:eq(hs:list(), { "facet" })              -- list stays facet names
  -- RuntimeTimers.count and list cover this state's runtime-timers only
  t:eq(RuntimeTimers.count(), 2)
  local rt = RuntimeTimers.list()
  t:eq({ #rt, rt[1].id, rt[2].id }, { 2, jobs[1].id, jobs[3].id })
  t:eq(rt[1].group, nil)
  t:error(function() RuntimeTimers:count() end, "call RuntimeTimers.count with '.', not ':'")
  t:error(function() RuntimeTimers:list() end, "call RuntimeTimers.list with '.', not ':'")
end)

test("trace records the fires of the whole timeline", function(t)
  t:eq(hs:trace(), {})
  t:eq(hs:trace(true), true)
  local h = hs:schedule_once{ delay = ms(5), callback = function() end }
  local to = RuntimeTimers.Timeout{ ["delay-ms"] = 7, callback = function() end }
  hs:update(10)
  t:eq(hs:trace(), {
    { event = "fire", at = start + ms(5), id = h.id, kind = "once" },
    { event = "fire", at = start + ms(7), id = to.id, kind = "once" },
  })
  t:eq(hs:trace(false), true)
  RuntimeTimers.Timeout{ ["delay-ms"] = 1, callback = function() end }
  hs:update(1)
  t:eq(#hs:trace(), 2)                       -- stopped: kept, not extended
  t:error(function() hs:trace("yes") end, "bad argument #2 to 'trace' (boolean or nothing expected, got string \"yes\")")
end)

test("a trace belongs to its test's host", function(t)
  t:eq(hs:trace(), {})
end)

test("the verbs are an error from inside the host", function(t)
  local errs = {}
  hs:register("mover", function()
    local _, err = pcall(hs.next, hs)
    errs.facet = err
  end)
  hs:schedule_once{ delay = ms(1), callback = function()
    local _, err = pcall(hs.run_to_last, hs)
    errs.job = err
  end }
  hs:update(1)
  t:ok(tostring(errs.facet):find("next: called from inside a callback of the same scheduler", 1, true), errs.facet)
  t:ok(tostring(errs.job):find("run-to-last: called from inside a callback of the same scheduler", 1, true), errs.job)
  for _, name in ipairs{ "next", "run-all", "run-to-last", "jump", "count", "trace", "jobs" } do
    t:error(function() hs[name]() end, "bad argument #1 to '" .. name .. "' (app-host scheduler expected, got nil (call methods with ':'))")
  end
end)
