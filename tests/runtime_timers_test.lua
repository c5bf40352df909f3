-- Conformance tests for runtime-timers (docs/lua-api.md, "runtime-timers"). The timers run on the state's app-host
-- host, so these tests drive that host. Each has a Go twin in
-- compat/timers_test.go.
local Temporal = require "temporal"
local RuntimeTimers = require "runtime-timers"
local host = require "app-host"
local hs = host.scheduler
local D = Temporal.duration
local inf, nan = 1 / 0, 0 / 0

-- Each test starts on a fresh host (the harness gives it one): r is a log of
-- what ran, "name@ms" after the test's start; reset() empties the host
-- again within a test.
local r

local function reset()
  RuntimeTimers.clear()
  hs:clear()
  local start = hs:now()
  r = { log = {} }
  function r.at() return (hs:now() - start):total_ms() end
  function r.note(s) r.log[#r.log + 1] = s end
  function r.cb(name)
    return function(...)
      local n = select("#", ...)
      r.note(name .. "@" .. r.at() .. (n > 0 and "+" .. n or ""))
    end
  end
  function r.take() local l = r.log; r.log = {}; return l end
end

before_each(reset)

-- ---- Seed: RuntimeTimers compatibility ----

test("Timeout runs once after delay-ms", function(t)
  local h = RuntimeTimers.Timeout{ ["delay-ms"] = 100, callback = r.cb("t") }
  local z = RuntimeTimers.Timeout{ delay_ms = 0, callback = r.cb("zero") }
  t:ok(h:is_active())
  t:eq(type(h.id), "number")
  hs:update(0)
  t:eq(r.take(), { "zero@0" })
  hs:update(100 - 1e-6)
  t:eq(r.take(), {})
  hs:update(1e-6)
  t:eq(r.take(), { "t@100" })
  hs:update(1000)
  t:eq(r.take(), {})
  t:ok(not h["active?"](h))
  t:ok(not z:is_active())
end)

test("Interval runs every positive interval-ms", function(t)
  local h = RuntimeTimers.Interval{ ["interval-ms"] = 50, callback = r.cb("i") }
  hs:update(120)
  t:eq(r.take(), { "i@50", "i@100" })
  hs:update(30)
  t:eq(r.take(), { "i@150" })
  t:eq(h:cancel(), true)
  hs:update(1000)
  t:eq(r.take(), {})
  local h2 = RuntimeTimers.Interval{ interval_ms = 0.5, callback = r.cb("half") }
  hs:update(1)
  t:eq(r.take(), { "half@1150.5", "half@1151" })
  h2:drop()
end)

test("Debouncer runs once delay-ms after the latest call", function(t)
  local got = {}
  local db = RuntimeTimers.Debouncer{ ["delay-ms"] = 100, callback = function(...)
    got[#got + 1] = table.concat({ ... }, ",") .. "@" .. r.at()
  end }
  t:eq(db:is_pending(), false)
  t:eq(db(1), true)
  hs:update(60)
  db:call(2, "b")
  hs:update(70)            -- 130: the first call's deadline passed unfired
  db(3, "c", "d")
  t:eq(db["pending?"](db), true)
  hs:update(100 - 1e-6)
  t:eq(got, {})
  hs:update(1e-6)
  t:eq(got, { "3,c,d@230" })
  t:eq(db:is_pending(), false)
  -- nil arguments keep their places
  db(nil, 2)
  local args
  local db2 = RuntimeTimers.Debouncer{ delay_ms = 0, callback = function(...) args = { n = select("#", ...), ... } end }
  db2(nil, 2, nil)
  hs:update(0)
  t:eq(args, { n = 3, [2] = 2 })
  db:cancel()
end)

test("Debouncer cancel, flush and pending?", function(t)
  local got = {}
  local db = RuntimeTimers.Debouncer{ ["delay-ms"] = 10, callback = function(x) got[#got + 1] = tostring(x) .. "@" .. r.at() end }
  t:eq(db:cancel(), false)
  t:eq(db:flush(), false)
  t:eq(got, {})
  db("x")
  t:eq(db:cancel(), true)
  t:eq(db:is_pending(), false)
  t:eq(db:cancel(), false)
  hs:update(20)
  t:eq(got, {})
  db("a")
  hs:update(5)
  db("b")
  t:eq(db:flush(), true)
  t:eq(got, { "b@25" })
  t:eq(db:is_pending(), false)
  hs:update(20)
  t:eq(got, { "b@25" })
  t:ok(tostring(db):find("runtime-timers Debouncer", 1, true))
end)

test("Debouncer rearms from its own callback", function(t)
  local n = 0
  local db
  db = RuntimeTimers.Debouncer{ ["delay-ms"] = 10, callback = function()
    n = n + 1
    if n < 3 then db() end
  end }
  db()
  hs:update(100)
  t:eq(n, 3)
  t:eq(db:is_pending(), false)
end)

test("Debouncer error propagates", function(t)
  local db = RuntimeTimers.Debouncer{ ["delay-ms"] = 1, callback = function() error("debounced boom") end }
  db()
  t:error(function() hs:update(1) end, "debounced boom")
  db()
  t:error(function() db:flush() end, "debounced boom")
  t:eq(db:is_pending(), false)
end)

test("clear cancels only the runtime-timers", function(t)
  local typed = hs:schedule_once{ delay = D{ milliseconds = 10 }, callback = r.cb("typed") }
  local to = RuntimeTimers.Timeout{ ["delay-ms"] = 10, callback = r.cb("timeout") }
  local iv = RuntimeTimers.Interval{ ["interval-ms"] = 5, callback = r.cb("interval") }
  local db = RuntimeTimers.Debouncer{ ["delay-ms"] = 5, callback = r.cb("debounced") }
  db()
  t:eq(RuntimeTimers.clear(), true)
  t:ok(not to:is_active())
  t:ok(not iv:is_active())
  t:ok(not db:is_pending())
  t:ok(typed:is_active())
  t:eq(#hs:jobs(), 1)
  hs:update(20)
  t:eq(r.take(), { "typed@10" })
  RuntimeTimers.Timeout{ ["delay-ms"] = 1, callback = r.cb("after") }
  hs:update(1)
  t:eq(r.take(), { "after@21" })
  -- and the host's clear leaves the timers alone
  RuntimeTimers.Timeout{ ["delay-ms"] = 1, callback = r.cb("kept") }
  hs:clear()
  hs:update(1)
  t:eq(r.take(), { "kept@22" })
end)

test("milliseconds convert to exact nanoseconds at the boundary", function(t)
  RuntimeTimers.Timeout{ ["delay-ms"] = 16.6, callback = r.cb("t16.6") }
  hs:update(16.6 - 1e-6)
  t:eq(r.take(), {})
  hs:update(1e-6)
  t:eq(r.take(), { "t16.6@16.6" })
  -- 0.1 + 0.2 is 0.30000000000000004 ms: 300000 ns, nearest
  reset()
  RuntimeTimers.Timeout{ ["delay-ms"] = 0.1 + 0.2, callback = r.cb("t") }
  hs:update(0.3 - 1e-6)
  t:eq(r.take(), {})
  hs:step(1e-6)
  t:eq(r.take(), { "t@0.3" })
  -- 4e-7 ms is below half a nanosecond: due at once
  reset()
  RuntimeTimers.Timeout{ ["delay-ms"] = 4e-7, callback = r.cb("now") }
  hs:update(0)
  t:eq(r.take(), { "now@0" })
  -- an interval of 16.6 ms stays exact: 60 periods are 996 ms, no drift
  reset()
  local n = 0
  local h = RuntimeTimers.Interval{ ["interval-ms"] = 16.6, callback = function() n = n + 1 end }
  hs:update(996 - 1e-6)
  t:eq(n, 59)
  hs:update(1e-6)
  t:eq(n, 60)
  h:cancel()
end)

test("timers delegate to the host's typed scheduler", function(t)
  RuntimeTimers.Timeout{ ["delay-ms"] = 10, callback = r.cb("t10") }
  hs:schedule_once{ delay = D{ milliseconds = 10 }, callback = r.cb("h10") }
  RuntimeTimers.Interval{ ["interval-ms"] = 5, callback = r.cb("i5") }
  hs:schedule_once{ delay = D{ milliseconds = 5 }, callback = r.cb("h5") }
  RuntimeTimers.Timeout{ ["delay-ms"] = 0, callback = r.cb("t0") }
  hs:register("f", function(dt) r.note("f(" .. dt .. ")@" .. r.at()) end)
  local groups = {}                -- jobs() lists the whole timeline, each job with its group
  for _, j in ipairs(hs:jobs()) do groups[#groups + 1] = j.group end
  t:eq(groups, { "runtime-timers", "runtime-timers", "app-host", "runtime-timers", "app-host" })
  t:eq(hs:count(), 5)
  t:eq(RuntimeTimers.count(), 3)
  hs:set_paused(true)
  hs:update(100)                   -- a paused update advances neither
  t:eq(r.take(), {})
  hs:set_paused(false)
  hs:update(10)
  t:eq(r.take(), { "t0@0", "i5@5", "h5@5", "t10@10", "h10@10", "i5@10", "f(10)@10" })
  hs:set_paused(true)
  hs:step(5)                       -- a step advances both
  t:eq(r.take(), { "i5@15", "f(5)@15" })
  hs:unregister("f")
end)

test("callback errors propagate out of host update and step", function(t)
  RuntimeTimers.Timeout{ ["delay-ms"] = 1, callback = function() error("timeout boom") end }
  RuntimeTimers.Timeout{ ["delay-ms"] = 2, callback = r.cb("later") }
  local ok, msg = pcall(hs.update, hs, 5)
  t:eq(ok, false)
  t:ok(msg:find("timeout boom", 1, true), msg)
  t:ok(msg:find("runtime_timers_test.lua:%d+: timeout boom") ~= nil, msg)
  t:eq(r.at(), 1)
  hs:set_paused(true)
  RuntimeTimers.Interval{ ["interval-ms"] = 3, callback = function() error("interval boom") end }
  t:error(function() hs:step(3) end, "interval boom")
  t:eq(r.take(), { "later@2" })
end)

test("callbacks get no arguments", function(t)
  RuntimeTimers.Timeout{ ["delay-ms"] = 1, callback = r.cb("t") }
  local h = RuntimeTimers.Interval{ ["interval-ms"] = 1, callback = r.cb("i") }
  hs:update(1)
  t:eq(r.take(), { "t@1", "i@1" })
  h:cancel()
end)

test("typed API refuses millisecond keys", function(t)
  local cb = function() end
  local s = (require "runtime-scheduler").create{}
  t:error(function() hs:schedule_once{ ["delay-ms"] = 10, callback = cb } end,
    "bad argument #2 to 'schedule-once' (unknown option :delay-ms; the typed scheduler takes :delay as a Temporal.duration; use runtime-timers for milliseconds)")
  t:error(function() hs:schedule_every{ interval_ms = 10, callback = cb } end,
    "bad argument #2 to 'schedule-every' (unknown option :interval_ms; the typed scheduler takes :interval as a Temporal.duration; use runtime-timers for milliseconds)")
  t:error(function() s:schedule_once{ delay_ms = 10, callback = cb } end, "use runtime-timers for milliseconds")
  t:eq(hs:jobs(), {})
  t:eq(r.take(), {})
end)

test("runtime-timers refuses typed keys", function(t)
  local cb = r.cb("x")
  local d = D{ milliseconds = 10 }
  t:error(function() RuntimeTimers.Timeout{ delay = d, callback = cb } end,
    "bad argument #1 to 'Timeout' (unknown option :delay; runtime-timers takes :delay-ms, a number of milliseconds; for a Temporal.duration :delay use runtime-scheduler (or the app-host scheduler's schedule-once))")
  t:error(function() RuntimeTimers.Interval{ interval = d, callback = cb } end,
    "bad argument #1 to 'Interval' (unknown option :interval; runtime-timers takes :interval-ms, a number of milliseconds; for a Temporal.duration :interval use runtime-scheduler (or the app-host scheduler's schedule-every))")
  t:error(function() RuntimeTimers.Debouncer{ delay = d, callback = cb } end,
    "bad argument #1 to 'Debouncer' (unknown option :delay; runtime-timers takes :delay-ms")
  t:error(function() RuntimeTimers.Timeout{ ["delay-ms"] = d, callback = cb } end,
    "bad argument #1 to 'Timeout' (:delay-ms must be a finite number of milliseconds >= 0 within int64 nanoseconds; for a Temporal.duration use runtime-scheduler, got Temporal.duration PT0.01S)")
  hs:update(1000)
  t:eq(r.take(), {})
end)

test("a colon call says to use a dot", function(t)
  for _, name in ipairs{ "Timeout", "Interval", "Debouncer", "clear" } do
    t:error(function() RuntimeTimers[name](RuntimeTimers, { ["delay-ms"] = 1, callback = r.cb("x") }) end,
      "bad argument #1 to '" .. name .. "' (got the runtime-timers module: call RuntimeTimers." .. name .. " with '.', not ':')")
  end
  t:error(function() RuntimeTimers:Timeout{ ["delay-ms"] = 1, callback = r.cb("x") } end, "with '.', not ':'")
  hs:update(10)
  t:eq(r.take(), {})
end)

-- ---- Bad inputs: each error names the function, the key and the value; nothing changes ----

test("bad arguments to every runtime-timers function change nothing", function(t)
  local keep = RuntimeTimers.Interval{ ["interval-ms"] = 500, callback = r.cb("keep") }
  local db = RuntimeTimers.Debouncer{ ["delay-ms"] = 5, callback = r.cb("db") }
  local cb = r.cb("bad")
  local before = hs:jobs()
  local function T(v) return function() RuntimeTimers.Timeout{ ["delay-ms"] = v, callback = cb } end end
  local function I(v) return function() RuntimeTimers.Interval{ ["interval-ms"] = v, callback = cb } end end
  local function B(v) return function() RuntimeTimers.Debouncer{ ["delay-ms"] = v, callback = cb } end end
  for name, mk in pairs{ Timeout = T, Debouncer = B } do
    local pre = "bad argument #1 to '" .. name .. "' (:delay-ms must be a finite number of milliseconds >= 0 within int64 nanoseconds"
    t:error(mk("16"), pre .. ", got string \"16\")")
    t:error(mk(nil), pre .. ", got nil)")
    t:error(mk(true), pre .. ", got boolean true)")
    t:error(mk(nan), pre .. ", got number NaN)")
    t:error(mk(inf), pre .. ", got number inf)")
    t:error(mk(-inf), pre .. ", got number -inf)")
    t:error(mk(-1), pre .. ", got number -1)")
    t:error(mk(-1e-9), pre .. ", got number -1e-09)")
    t:error(mk(1e300), pre .. ", got number 1e+300)")
  end
  local pre = "bad argument #1 to 'Interval' (:interval-ms must be a finite number of milliseconds >= 0 within int64 nanoseconds"
  t:error(I("16"), pre .. ", got string \"16\")")
  t:error(I(nil), pre .. ", got nil)")
  t:error(I(-5), pre .. ", got number -5)")
  t:error(I(nan), pre .. ", got number NaN)")
  t:error(I(inf), pre .. ", got number inf)")
  local pre0 = "bad argument #1 to 'Interval' (:interval-ms must be a number of milliseconds > 0 that rounds to at least 1 ns"
  t:error(I(0), pre0 .. ", got number 0)")
  t:error(I(4e-7), pre0 .. ", got number 4e-07)")
  for name, f in pairs{ Timeout = T(1), Interval = I(1), Debouncer = B(1) } do
    local key = name == "Interval" and "interval-ms" or "delay-ms"
    local call = RuntimeTimers[name]
    t:error(function() call{ [key] = 1 } end, "bad argument #1 to '" .. name .. "' (:callback must be a function, got nil)")
    t:error(function() call{ [key] = 1, callback = setmetatable({}, { __call = cb }) } end,
      "bad argument #1 to '" .. name .. "' (:callback must be a function, got table)")
    t:error(function() call{ [key] = 1, callback = cb, extra = 1 } end,
      "bad argument #1 to '" .. name .. "' (unknown option :extra (accepted: :callback :" .. key .. " :label))")
    t:error(function() call{ [key] = 1, [key:gsub("-", "_")] = 1, callback = cb } end, "are one option; give one spelling")
    t:error(function() call() end, "bad argument #1 to '" .. name .. "' (option table expected, got nil)")
    t:error(function() call(1, cb) end, "bad argument #1 to '" .. name .. "' (option table expected, got number 1)")
  end
  t:error(function() db.call() end, "bad argument #1 to 'call' (Debouncer expected, got nil")
  t:error(function() db.flush({}) end, "bad argument #1 to 'flush' (Debouncer expected, got table")
  t:error(function() db.cancel(1) end, "bad argument #1 to 'cancel' (Debouncer expected, got number 1")
  t:error(function() db.is_pending() end, "bad argument #1 to 'pending?' (Debouncer expected, got nil")
  -- nothing changed: the host's jobs are as they were and only keep fires
  t:eq(hs:jobs(), before)
  t:ok(keep:is_active())
  t:eq(db:is_pending(), false)
  hs:update(500)
  t:eq(r.take(), { "keep@500" })
  keep:cancel()
end)
