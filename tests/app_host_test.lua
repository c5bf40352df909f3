-- Conformance tests for app-host and app-host.services (docs/lua-api.md,
-- "app-host": the host's update, pause and step, and its share of catch-up
-- and lifecycle). Each test has a Go twin in hostservices/host_test.go.
local Temporal = require "temporal"
local services = require "app-host.services"
local D = Temporal.duration
local epoch = Temporal.instant.parse("2000-01-01T00:00:00Z")
local inf, nan = 1 / 0, 0 / 0

local function ms(n) return D["from-ms"](n) end

-- rig: a fresh host on a fixed clock and a log of what ran, "name@ms".
local function rig(clock)
  local r = { hs = services["make-scheduler"]{ clock = clock or Temporal.clock.fixed(epoch) }, log = {} }
  function r.at() return (r.hs:now() - epoch):total_ms() end
  function r.note(s) r.log[#r.log + 1] = s end
  -- callbacks get no arguments: any would show as "+n"
  function r.cb(name)
    return function(...)
      local n = select("#", ...)
      r.note(name .. "@" .. r.at() .. (n > 0 and "+" .. n or ""))
    end
  end
  function r.facet(name) return function(dt) r.note(name .. "(" .. dt .. ")@" .. r.at()) end end
  function r.take() local l = r.log; r.log = {}; return l end
  function r.once(name, d) return r.hs:schedule_once{ delay = ms(d), callback = r.cb(name) } end
  function r.every(name, d) return r.hs:schedule_every{ interval = ms(d), callback = r.cb(name) } end
  return r
end

-- ---- Seed: Host scheduler integration ----

test("make-scheduler owns a private scheduler", function(t)
  local a = rig()
  local b = rig(Temporal.clock.fixed(epoch + D{ seconds = 5 }))
  t:eq(b.hs:now(), epoch + D{ seconds = 5 })
  t:eq(a.hs:now(), epoch)
  a.once("a", 10)
  b.hs:update(20)
  t:eq(a.take(), {})
  t:eq(#a.hs:jobs(), 1)
  t:eq(#b.hs:jobs(), 0)
  -- the snake spelling and the default clock: the test host's instant
  t:eq(services.make_scheduler():now(), epoch)
  t:eq(services.make_scheduler{}:now(), epoch)
  t:ok(tostring(a.hs):find("app-host scheduler at 2000-01-01T00:00:00Z", 1, true))
end)

test("typed schedule-once delegates", function(t)
  local r = rig()
  local h = r.hs["schedule-once"](r.hs, { delay = ms(10), callback = r.cb("a") })
  t:ok(h:is_active())
  local jobs = r.hs:jobs()
  t:eq(#jobs, 1)
  t:eq(jobs[1].kind, "once")
  t:eq(jobs[1]["due-in"], ms(10))
  t:eq(jobs[1].due_at, epoch + ms(10))
  r.hs:update(10 - 1e-6)     -- one nanosecond early
  t:eq(r.take(), {})
  r.hs:update(1e-6)
  t:eq(r.take(), { "a@10" })
  t:ok(not h["active?"](h))
end)

test("typed schedule-every delegates", function(t)
  local r = rig()
  r.hs["schedule-every"](r.hs, { interval = ms(10), callback = r.cb("e") })
  r.hs:update(35)
  t:eq(r.take(), { "e@10", "e@20", "e@30" })
  r.hs:update(5)
  t:eq(r.take(), { "e@40" })
  local jobs = r.hs:jobs()
  t:eq(jobs[1].kind, "every")
  t:eq(jobs[1].interval, ms(10))
end)

test("typed schedule-recurrence delegates", function(t)
  local r = rig()
  local rs = Temporal["recurrence-set"]{ dtstart = "2000-01-01T00:00:01", rrule = "FREQ=SECONDLY;COUNT=3" }
  local got = {}
  r.hs["schedule-recurrence"](r.hs, { ["recurrence-set"] = rs, ["zone-id"] = "UTC", callback = function(p)
    got[#got + 1] = tostring(p["scheduled-at"]) .. " #" .. p.occurrence_index
  end })
  t:eq(r.hs:jobs()[1].kind, "recurrence")
  r.hs:update(10000)
  t:eq(got, { "2000-01-01T00:00:01Z #1", "2000-01-01T00:00:02Z #2", "2000-01-01T00:00:03Z #3" })
  t:eq(#r.hs:jobs(), 0)
end)

test("facet registry separate from jobs", function(t)
  local r = rig()
  r.once("job", 10)
  t:eq(r.hs:list(), {})
  t:eq(r.hs:register("physics", r.facet("physics")), true)
  t:eq(#r.hs:jobs(), 1)
  t:eq(r.hs:unregister("job"), false)
  t:eq(r.hs:clear(), true)
  t:eq(#r.hs:jobs(), 0)
  t:eq(r.hs:list(), { "physics" })
  r.once("job2", 1)
  t:eq(r.hs:unregister("physics"), true)
  t:eq(#r.hs:jobs(), 1)
end)

test("update runs jobs before facets", function(t)
  local r = rig()
  r.hs:register("physics", r.facet("physics"))
  r.once("a", 16)
  r.every("e", 10)
  r.hs:register("ai", { update = function(self, dt) r.note("ai(" .. dt .. ")@" .. r.at()) end })
  t:eq(r.hs:update(16), true)
  t:eq(r.take(), { "e@10", "a@16", "physics(16)@16", "ai(16)@16" })
  r.hs:update(4)
  t:eq(r.take(), { "e@20", "physics(4)@20", "ai(4)@20" })
end)

test("paused update advances neither jobs nor facets", function(t)
  local r = rig()
  r.hs:register("physics", r.facet("physics"))
  r.once("a", 0)
  r.every("e", 1)
  local before = r.hs:jobs()
  t:eq(r.hs:set_paused(true), true)
  t:eq(r.hs:is_paused(), true)
  t:eq(r.hs["paused?"](r.hs), true)
  t:eq(r.hs:update(1000), true)
  r.hs:update(0)
  t:eq(r.take(), {})
  t:eq(r.hs:now(), epoch)
  t:eq(r.hs:jobs(), before)
end)

test("step advances jobs and facets while paused", function(t)
  local r = rig()
  r.hs:register("physics", r.facet("physics"))
  r.every("e", 10)
  r.hs["set-paused"](r.hs, true)
  t:eq(r.hs:step(10), true)
  t:eq(r.take(), { "e@10", "physics(10)@10" })
  r.hs:update(10)
  t:eq(r.take(), {})
  r.hs:step(5)
  t:eq(r.take(), { "physics(5)@15" })
  t:eq(r.hs:is_paused(), true)
end)

test("step when not paused is an update", function(t)
  local r = rig()
  r.hs:register("f", r.facet("f"))
  r.once("a", 5)
  r.hs:step(5)
  t:eq(r.take(), { "a@5", "f(5)@5" })
end)

-- ---- Seed: Catch-up and lifecycle policy, as the host sees it ----

test("paused updates accumulate no hidden time", function(t)
  local r = rig()
  r.hs:register("f", r.facet("f"))
  r.once("at10", 10)
  r.once("at16", 16)
  r.once("at17", 17)
  r.once("at5s", 5000)
  r.every("e", 8)
  r.hs:set_paused(true)
  for _ = 1, 10 do r.hs:update(1000) end
  t:eq(r.take(), {})
  r.hs:set_paused(false)
  r.hs:update(16)
  t:eq(r.take(), { "e@8", "at10@10", "at16@16", "e@16", "f(16)@16" })
  t:eq(r.hs:now(), epoch + ms(16))
  t:eq(#r.hs:jobs(), 3)
end)

test("explicit step advances scheduled work while paused", function(t)
  local r = rig()
  r.once("a", 16)
  r.hs:set_paused(true)
  r.hs:update(16)
  t:eq(r.take(), {})
  r.hs:step(16)
  t:eq(r.take(), { "a@16" })
end)

test("host step catches up each missed interval", function(t)
  local r = rig()
  r.every("e", 10)
  r.hs:set_paused(true)
  r.hs:step(35)
  t:eq(r.take(), { "e@10", "e@20", "e@30" })
end)

test("job error propagates out of update and step", function(t)
  for _, step in ipairs{ false, true } do
    local r = rig()
    r.hs:register("f", r.facet("f"))
    r.once("a", 5)
    r.hs:schedule_once{ delay = ms(10), callback = function() error("boom") end }
    r.once("c", 15)
    if step then r.hs:set_paused(true) end
    t:error(function()
      if step then r.hs:step(20) else r.hs:update(20) end
    end, "boom")
    t:eq(r.take(), { "a@5" })
    t:eq(r.hs:now(), epoch + ms(10))
    r.hs:set_paused(false)
    r.hs:update(5)
    t:eq(r.take(), { "c@15", "f(5)@15" })
  end
  local r = rig()
  r.hs:schedule_once{ delay = ms(1), callback = function() error("where") end }
  local ok, msg = pcall(r.hs.update, r.hs, 1)
  t:ok(not ok)
  t:ok(msg:find("app_host_test.lua:%d+: where") ~= nil, msg)
  -- one traceback, of the callback's frames, whose last line names the job
  local _, tracebacks = msg:gsub("stack traceback:", "")
  t:eq(tracebacks, 1)
  t:ok(msg:find("\n\t%[job%] once #1 scheduled at [^\n]*app_host_test%.lua:%d+$") ~= nil, msg)
end)

test("clear deactivates host jobs only", function(t)
  local r = rig()
  local h = r.once("host", 5)
  t:eq(r.hs:clear(), true)
  t:ok(not h:is_active())
  t:eq(r.hs:jobs(), {})
  r.hs:update(5)
  t:eq(r.take(), {})
  local h2 = r.once("again", 1)
  t:eq(h2:cancel(), true)
  t:eq(h2:cancel(), true)
  r.hs:update(5)
  t:eq(r.take(), {})
end)

test("update from inside the host is an error", function(t)
  local r = rig()
  -- results go into a table: gopher-lua (yuin/gopher-lua#448) loses writes to
  -- an enclosing function's locals made after a caught error
  local seen = {}
  r.hs:register("f", function() seen.facet = select(2, pcall(r.hs.step, r.hs, 1)) end)
  r.hs:schedule_once{ delay = ms(0), callback = function() seen.job = select(2, pcall(r.hs.update, r.hs, 1)) end }
  r.hs:update(1)
  t:ok(tostring(seen.facet):find("step: called from inside a callback of the same scheduler", 1, true), seen.facet)
  t:ok(tostring(seen.job):find("update: called from inside a callback of the same scheduler", 1, true), seen.job)
  t:ok(not tostring(seen.job):find("update: update:", 1, true), seen.job)
  t:eq(r.hs:now(), epoch + ms(1))
end)

-- ---- Facet rules ----

test("register taken name is an error naming it", function(t)
  local r = rig()
  r.hs:register("physics", r.facet("physics"))
  t:error(function() r.hs:register("physics", r.facet("other")) end,
    'register: facet "physics": a facet with this name is already registered')
  r.hs:update(1)
  t:eq(r.take(), { "physics(1)@1" })
end)

test("register refuses bad names and facets", function(t)
  local r = rig()
  t:error(function() r.hs:register("", r.facet("x")) end,
    "bad argument #2 to 'register' (name must be a non-empty string, got \"\")")
  t:error(function() r.hs:register(1, r.facet("x")) end,
    "bad argument #2 to 'register' (name must be a string, got number 1)")
  t:error(function() r.hs:register("x") end,
    "bad argument #3 to 'register' (facet must be a function or a table with an update method, got nil)")
  t:error(function() r.hs:register("x", 5) end,
    "bad argument #3 to 'register' (facet must be a function or a table with an update method, got number 5)")
  t:error(function() r.hs:register("x", { tick = function() end }) end,
    "bad argument #3 to 'register' (a table facet needs an update method, got update = nil)")
  t:error(function() r.hs.register("x", r.facet("x")) end,
    "bad argument #1 to 'register' (app-host scheduler expected, got string \"x\" (call methods with ':'))")
  t:eq(r.hs:list(), {})
end)

test("unregister unknown name returns false", function(t)
  local r = rig()
  t:eq(r.hs:unregister("nope"), false)
  r.hs:register("a", r.facet("a"))
  t:eq(r.hs:unregister("a"), true)
  t:eq(r.hs:unregister("a"), false)
  t:error(function() r.hs:unregister() end, "bad argument #2 to 'unregister' (name must be a string, got nil)")
end)

test("facets listed in registration order", function(t)
  local r = rig()
  for _, n in ipairs{ "zeta", "alpha", "mid" } do r.hs:register(n, r.facet(n)) end
  r.hs:unregister("zeta")
  r.hs:register("zeta", r.facet("zeta"))
  t:eq(r.hs:list(), { "alpha", "mid", "zeta" })
  r.hs:update(2)
  t:eq(r.take(), { "alpha(2)@2", "mid(2)@2", "zeta(2)@2" })
end)

test("facet registered during update first runs next update", function(t)
  local r = rig()
  local added = false
  r.hs:register("a", function()
    r.note("a@" .. r.at())
    if not added then
      added = true
      r.hs:register("late", r.facet("late"))
    end
  end)
  r.hs:schedule_once{ delay = ms(0), callback = function() r.hs:register("byjob", r.facet("byjob")) end }
  r.hs:update(1)
  t:eq(r.take(), { "a@1" })
  t:eq(r.hs:list(), { "a", "byjob", "late" })
  r.hs:update(1)
  t:eq(r.take(), { "a@2", "byjob(1)@2", "late(1)@2" })
end)

test("facet unregistered during update does not run later in it", function(t)
  local r = rig()
  r.hs:register("a", function() r.note("a@" .. r.at()); r.hs:unregister("c") end)
  r.hs:register("b", r.facet("b"))
  r.hs:register("c", r.facet("c"))
  r.hs:register("d", r.facet("d"))
  r.hs:schedule_once{ delay = ms(0), callback = function() r.hs:unregister("d") end }
  r.hs:update(1)
  t:eq(r.take(), { "a@1", "b(1)@1" })
  r.hs:update(1)
  t:eq(r.take(), { "a@2", "b(1)@2" })
end)

test("no facet skipped or run twice in a frame", function(t)
  local r = rig()
  r.hs:register("a", r.facet("a"))
  r.hs:register("b", function()
    r.note("b@" .. r.at())
    r.hs:unregister("a")
    r.hs:unregister("b")
    r.hs:register("a", r.facet("a"))
  end)
  r.hs:register("c", r.facet("c"))
  r.hs:register("d", r.facet("d"))
  r.hs:update(1)
  t:eq(r.take(), { "a(1)@1", "b@1", "c(1)@1", "d(1)@1" })
  r.hs:update(1)
  t:eq(r.take(), { "c(1)@2", "d(1)@2", "a(1)@2" })
end)

test("facets receive the frame delta", function(t)
  local r = rig()
  local got, selves, extra = {}, {}, "unset"
  local obj = { name = "obj" }
  function obj:update(dt) selves[#selves + 1] = self.name; got[#got + 1] = dt end
  r.hs:register("fn", function(dt, x) got[#got + 1] = dt; extra = x end)
  r.hs:register("obj", obj)
  r.hs:update(16.6)
  r.hs:step(0)
  t:eq(got, { 16.6, 16.6, 0, 0 })
  t:eq(selves, { "obj", "obj" })
  t:eq(extra, nil)
  t:eq(r.hs:now(), epoch + D{ microseconds = 16600 })
  -- a table facet's update is looked up each frame
  function obj:update(dt) got[#got + 1] = -dt end
  got = {}
  r.hs:update(2)
  t:eq(got, { 2, -2 })
end)

test("facet error stops remaining facets and names the facet", function(t)
  local r = rig()
  r.hs:register("a", r.facet("a"))
  r.hs:register("bad", function() error("kaput") end)
  r.hs:register("c", r.facet("c"))
  local ok, msg = pcall(r.hs.update, r.hs, 1)
  t:ok(not ok)
  t:ok(msg:find("kaput", 1, true), msg)
  t:ok(msg:find('\n\t[facet] "bad"', 1, true), msg)
  t:eq(r.take(), { "a(1)@1" })
  t:eq(r.hs:now(), epoch + ms(1))
  -- a table facet whose update went away
  local r2 = rig()
  local obj = { update = function() end }
  r2.hs:register("obj", obj)
  obj.update = nil
  t:error(function() r2.hs:update(1) end, 'update: facet "obj": update must be a function, got nil')
  -- an error object passes through as it is
  local r3 = rig()
  local e = { code = 7 }
  r3.hs:register("obj", function() error(e) end)
  local ok3, got = pcall(r3.hs.update, r3.hs, 1)
  t:eq(ok3, false)
  t:ok(got == e)
end)

test("set-paused inside a frame takes effect next frame", function(t)
  local r = rig()
  r.hs:register("pauser", function() r.note("pauser"); r.hs:set_paused(true) end)
  r.hs:register("after", r.facet("after"))
  r.hs:update(1)
  r.hs:update(1)
  t:eq(r.take(), { "pauser", "after(1)@1" })
end)

-- ---- Bad inputs: each error names the function and the value; nothing changes ----

test("bad deltas are errors that change nothing", function(t)
  for _, paused in ipairs{ false, true } do
    local r = rig()
    r.hs:register("f", r.facet("f"))
    r.once("a", 0)
    r.hs:set_paused(paused)
    local before = r.hs:jobs()
    for _, m in ipairs{ "update", "step" } do
      local function call(v) return function() r.hs[m](r.hs, v) end end
      t:error(call("16"), "bad argument #2 to '" .. m .. "' (delta-ms must be a number, got string \"16\")")
      t:error(call(nil), "bad argument #2 to '" .. m .. "' (delta-ms must be a number, got nil)")
      t:error(call(ms(16)), "bad argument #2 to '" .. m .. "' (delta-ms must be a number, got Temporal.duration PT0.016S)")
      t:error(call(nan), "bad argument #2 to '" .. m .. "' (delta-ms must be a finite number of milliseconds >= 0 within int64 nanoseconds, got NaN)")
      t:error(call(inf), "bad argument #2 to '" .. m .. "' (delta-ms must be a finite number of milliseconds >= 0 within int64 nanoseconds, got +Inf)")
      t:error(call(-inf), "bad argument #2 to '" .. m .. "' (delta-ms must be a finite number of milliseconds >= 0 within int64 nanoseconds, got -Inf)")
      t:error(call(-1), "bad argument #2 to '" .. m .. "' (delta-ms must be a finite number of milliseconds >= 0 within int64 nanoseconds, got -1)")
      t:error(call(1e300), "delta-ms must be a finite number of milliseconds >= 0 within int64 nanoseconds, got 1e+300")
    end
    t:eq(r.take(), {})
    t:eq(r.hs:now(), epoch)
    t:eq(r.hs:jobs(), before)
    t:eq(r.hs:is_paused(), paused)
  end
end)

test("bad arguments to every host method change nothing", function(t)
  local r = rig()
  r.every("keep", 5)
  r.hs:register("f", r.facet("f"))
  local before = r.hs:jobs()
  local cb = function() end
  local hs = r.hs
  -- millisecond keys are refused by the typed methods
  t:error(function() hs:schedule_once{ ["delay-ms"] = 10, callback = cb } end,
    "bad argument #2 to 'schedule-once' (unknown option :delay-ms; the typed scheduler takes :delay as a Temporal.duration; use runtime-timers for milliseconds)")
  t:error(function() hs:schedule_once{ delay_ms = 10, callback = cb } end, "use runtime-timers for milliseconds")
  t:error(function() hs:schedule_every{ ["interval-ms"] = 10, callback = cb } end,
    "bad argument #2 to 'schedule-every' (unknown option :interval-ms; the typed scheduler takes :interval as a Temporal.duration; use runtime-timers for milliseconds)")
  t:error(function() hs:schedule_every{ interval_ms = 10, callback = cb } end, "use runtime-timers for milliseconds")
  t:error(function() hs:schedule_once{ delay = 10, callback = cb } end,
    "bad argument #2 to 'schedule-once' (:delay must be a Temporal.duration (use runtime-timers for milliseconds), got number 10)")
  t:error(function() hs:schedule_once{ delay = "16", callback = cb } end, ":delay must be a Temporal.duration, got string \"16\"")
  t:error(function() hs:schedule_once{ delay = -ms(1), callback = cb } end, "bad argument #2 to 'schedule-once' (:delay must be a duration >= 0")
  t:error(function() hs:schedule_every{ interval = ms(0), callback = cb } end, "bad argument #2 to 'schedule-every' (:interval must be a duration > 0")
  t:error(function() hs:schedule_once{ delay = ms(1) } end, "bad argument #2 to 'schedule-once' (:callback must be a function, got nil)")
  t:error(function() hs:schedule_once{ delay = ms(1), callback = setmetatable({}, { __call = cb }) } end,
    ":callback must be a function, got table")
  t:error(function() hs:schedule_once{ delay = ms(1), callback = cb, extra = 1 } end,
    "bad argument #2 to 'schedule-once' (unknown option :extra (accepted: :at :callback :delay :label))")
  t:error(function() hs:schedule_once{ delay = ms(1), callback = cb, callback_x = 1 } end, "unknown option :callback_x")
  t:error(function() hs:schedule_once() end, "bad argument #2 to 'schedule-once' (option table expected, got nil)")
  t:error(function() hs:schedule_recurrence{ ["zone-id"] = "UTC", callback = cb } end,
    "bad argument #2 to 'schedule-recurrence' (:recurrence-set must be a Temporal.recurrence-set, got nil)")
  t:error(function() hs.schedule_once{ delay = ms(1), callback = cb } end,
    "bad argument #1 to 'schedule-once' (app-host scheduler expected, got table (call methods with ':'))")
  -- pause flag and the rest
  t:error(function() hs:set_paused(1) end, "bad argument #2 to 'set-paused' (paused must be a boolean, got number 1)")
  t:error(function() hs:set_paused() end, "bad argument #2 to 'set-paused' (paused must be a boolean, got nil)")
  t:error(function() hs:set_paused("true") end, "paused must be a boolean, got string \"true\"")
  t:error(function() hs.now() end, "bad argument #1 to 'now' (app-host scheduler expected, got nil")
  t:error(function() hs.jobs({}) end, "bad argument #1 to 'jobs' (app-host scheduler expected, got table")
  t:error(function() hs.clear(1) end, "bad argument #1 to 'clear' (app-host scheduler expected, got number 1")
  t:error(function() hs.list() end, "bad argument #1 to 'list'")
  t:error(function() hs.is_paused() end, "bad argument #1 to 'paused?'")
  t:error(function() hs.step(5) end, "bad argument #1 to 'step'")
  t:eq(hs:jobs(), before)
  t:eq(hs:list(), { "f" })
  t:eq(hs:is_paused(), false)
  t:eq(hs:now(), epoch)
  t:eq(r.take(), {})
end)

test("make-scheduler refuses bad options", function(t)
  t:error(function() services.make_scheduler{ clock = 5 } end,
    "bad argument #1 to 'make-scheduler' (:clock must be a Temporal.clock, got number 5)")
  t:error(function() services.make_scheduler{ epoch = 5 } end,
    "bad argument #1 to 'make-scheduler' (unknown option :epoch (accepted: :clock))")
  t:error(function() services.make_scheduler("x") end,
    "bad argument #1 to 'make-scheduler' (option table expected, got string \"x\")")
end)

-- ---- The state's own host ----

test("app-host gives the state's host and quit", function(t)
  local host = require "app-host"
  t:eq(type(host.quit), "function")
  local hs = host.scheduler
  t:ok(hs ~= nil)
  for _, m in ipairs{ "schedule-once", "schedule_once", "schedule-every", "schedule_every",
                      "schedule-recurrence", "schedule_recurrence", "jobs", "clear", "register",
                      "unregister", "list", "update", "step", "set-paused", "set_paused",
                      "paused?", "is_paused", "now" } do
    t:eq(type(hs[m]), "function", m)
  end
  t:ok(require "app-host" == host)
  t:ok(getmetatable(hs) == getmetatable(services.make_scheduler()))
end)
