-- Conformance tests for s:debouncer (docs/lua-api.md,
-- "Debouncer"). Each scheduler here is a fixed-clock
-- runtime-scheduler, except the app-host tests, which use the test's host.
local Temporal = require "temporal"
local RS = require "runtime-scheduler"
local hs = require("app-host").scheduler
local D = Temporal.duration
local T0 = Temporal.instant.parse("2000-01-01T00:00:00Z")
local function ms(n) return D{ milliseconds = n } end

-- rig: a scheduler, a log of firings "key=args@ms", and a debouncer made
-- with opts (callback added).
local function rig(opts, on)
  local s = on or RS.create{ clock = Temporal.clock.fixed(T0) }
  local start = s:now()
  local r = { s = s, log = {} }
  opts.callback = function(key, ...)
    local parts = {}
    for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
    r.log[#r.log + 1] = tostring(key) .. "=" .. table.concat(parts, ",") .. "@" .. (s:now() - start):total_ms()
  end
  r.deb = s:debouncer(opts)
  function r.to(n) s:advance(ms(n) - (s:now() - start)) end
  function r.take() local l = r.log; r.log = {}; return l end
  return r
end

-- ---- Seed 004: the timing model ----

test("a fresh key fires after timeout with the latest arguments", function(t)
  local r = rig{ timeout = ms(100) }
  t:eq(r.deb:debounce("a", 1, "x"), true)
  r.to(99)
  t:eq(r.take(), {})
  r.to(100)
  t:eq(r.take(), { "a=1,x@100" })
end)

test("later touches push by busy-timeout, and only later", function(t)
  local r = rig{ timeout = ms(100), ["busy-timeout"] = ms(50) }
  r.deb:debounce("a", 1)
  r.to(30); r.deb:debounce("a", 2)     -- 80 < 100: stays
  r.to(70); r.deb:debounce("a", 3)     -- 120
  r.to(119)
  t:eq(r.take(), {})
  r.to(120)
  t:eq(r.take(), { "a=3@120" })
end)

test("busy-timeout defaults to timeout", function(t)
  local r = rig{ timeout = ms(100) }
  r.deb:debounce("a", 1)
  r.to(60); r.deb:debounce("a", 2)
  r.to(159)
  t:eq(r.take(), {})
  r.to(160)
  t:eq(r.take(), { "a=2@160" })
end)

test("a key touched forever fires by its force ceiling", function(t)
  local r = rig{ timeout = ms(100), force_min = ms(300), force_max = ms(300) }
  r.deb:debounce("a", 0)
  for i = 1, 5 do r.to(i * 50); r.deb:debounce("a", i) end
  r.to(299)
  t:eq(r.take(), {})
  r.to(300)
  t:eq(r.take(), { "a=5@300" })
end)

test("the timeline of docs/lua-api.md", function(t)
  local r = rig{ timeout = ms(100), ["busy-timeout"] = ms(50), ["force-min"] = ms(300), ["force-max"] = ms(300) }
  local due = {}
  for _, at in ipairs{ 0, 30, 70, 80, 100, 140, 180, 220, 260, 290 } do
    r.to(at)
    r.deb:debounce("doc", at)
    due[#due + 1] = r.s:list()[1]["due-at"] - r.s:now() + ms(at)
  end
  local want = {}
  for i, at in ipairs{ 100, 100, 120, 130, 150, 190, 230, 270, 300, 300 } do want[i] = ms(at) end
  t:eq(due, want)
  r.to(299)
  t:eq(r.take(), {})
  r.to(300)
  t:eq(r.take(), { "doc=290@300" })
end)

test("ceilings come from the seed: the same seed repeats, another differs", function(t)
  local function dues(seed)
    local s = RS.create{ clock = Temporal.clock.fixed(T0) }
    local deb = s:debouncer{ timeout = ms(1), ["busy-timeout"] = D{ hours = 1 },
                             ["force-min"] = ms(100), ["force-max"] = ms(200), seed = seed,
                             callback = function() end }
    local out = {}
    for i = 1, 10 do deb:debounce(i); deb:debounce(i) end
    for _, j in ipairs(s:list()) do
      local due = j["due-in"]:total_ms()
      t:ok(due >= 100 and due <= 200, "ceiling within [force-min, force-max]")
      out[#out + 1] = tostring(j.key) .. ":" .. due
    end
    return out
  end
  t:eq(dues(42), dues(42))
  t:ok(table.concat(dues(42)) ~= table.concat(dues(43)), "seeds 42 and 43 draw alike")
end)

test("a throttle floor holds the key back after it fires", function(t)
  local r = rig{ timeout = ms(100), throttle = ms(500) }
  r.deb:debounce("a", 1)
  r.to(100)
  t:eq(r.take(), { "a=1@100" })
  r.to(150); r.deb:debounce("a", 2)     -- held back to 600
  t:eq(r.deb:is_pending("a"), true)
  r.to(599)
  t:eq(r.take(), {})
  r.to(600)
  t:eq(r.take(), { "a=2@600" })
end)

test("pending? ignores a throttle-only key; cancel forgets the throttle", function(t)
  local r = rig{ timeout = ms(10), throttle = ms(1000) }
  r.deb:debounce("a", 1)
  r.to(10)
  t:eq(r.deb["pending?"](r.deb, "a"), false)
  t:eq(r.deb:cancel("a"), false)           -- nothing was pending
  r.deb:debounce("a", 2)                   -- the throttle is forgotten
  r.to(20)
  t:eq(r.take(), { "a=1@10", "a=2@20" })
end)

-- ---- lodash's edges ----

test("leading fires at the first touch; both edges fire one touch once", function(t)
  local r = rig{ timeout = ms(100), leading = true, trailing = false }
  r.deb:debounce("a", 1)
  t:eq(r.take(), { "a=1@0" })
  r.deb:debounce("a", 2)
  r.to(200)
  t:eq(r.take(), {})
  local b = rig{ timeout = ms(100), leading = true, trailing = true }
  b.deb:debounce("k", 1)
  b.to(500)
  t:eq(b.take(), { "k=1@0" })
  b.deb:debounce("k", 2); b.deb:debounce("k", 3)
  b.to(1000)
  t:eq(b.take(), { "k=2@500", "k=3@600" })
end)

test("no edge fires during a throttle floor", function(t)
  local r = rig{ timeout = ms(100), throttle = ms(300), leading = true, trailing = true }
  r.deb:debounce("a", 1)                -- leading; the burst lasts the floor
  r.to(200); r.deb:debounce("a", 2)     -- trailing at the floor's end
  r.to(310); r.deb:debounce("a", 3)     -- floor until 600: no leading edge
  t:eq(r.take(), { "a=1@0", "a=2@300" })
  r.to(599)
  t:eq(r.take(), {})
  r.to(600)
  t:eq(r.take(), { "a=3@600" })
end)

-- ---- keys, return values, list ----

test("keys are compared with rawequal", function(t)
  local r = rig{ timeout = ms(10) }
  local tbl = {}
  r.deb:debounce(tbl, "t1"); r.deb:debounce({}, "other table"); r.deb:debounce(tbl, "t2")
  r.deb:debounce(1, "one"); r.deb:debounce(1.0, "one again"); r.deb:debounce("1", "string")
  r.deb:debounce(true, "b")
  t:eq(r.s:count(), 5)
  r.to(10)
  local got = r.take()
  table.sort(got)
  t:eq(#got, 5)
  t:ok(got[1]:match("^1=one again@10"), got[1])
end)

test("cancel, flush and pending? return what docs/lua-api.md says", function(t)
  local r = rig{ timeout = ms(100) }
  t:eq(r.deb:flush("a"), false)
  t:eq(r.deb:cancel("a"), false)
  r.deb:debounce("a", 1)
  t:eq(r.deb:is_pending("a"), true)
  t:eq(r.deb:flush("a"), true)
  t:eq(r.take(), { "a=1@0" })
  t:eq(r.deb:is_pending("a"), false)
  r.deb:debounce("a", 2)
  t:eq(r.deb:cancel("a"), true)
  r.to(1000)
  t:eq(r.take(), {})
end)

test("pending keys show in count and list as kind debounce with their key", function(t)
  local r = rig{ timeout = ms(100) }
  r.s:schedule_once{ delay = ms(50), callback = function() end }
  r.deb:debounce("k1"); r.deb:debounce("k2")
  t:eq(r.s:count(), 3)
  local l = r.s:list()
  t:eq({ l[1].kind, l[2].kind, l[2].key, l[3].key }, { "once", "debounce", "k1", "k2" })
  t:eq(l[2]["due-in"], ms(100))
  r.s:clear()
  t:eq(r.deb:is_pending("k1"), false)
end)

test("a callback error comes out of advance, flush or a leading debounce", function(t)
  local s = RS.create{ clock = Temporal.clock.fixed(T0) }
  local deb = s:debouncer{ timeout = ms(1), callback = function(k) error("boom " .. k) end }
  deb:debounce("x")
  t:error(function() s:advance(ms(1)) end, "boom x")
  deb:debounce("y")
  t:error(function() deb:flush("y") end, "[debouncer] made at")
  local lead = s:debouncer{ timeout = ms(1), leading = true, callback = function(k) error("lead " .. k) end }
  t:error(function() lead:debounce("z") end, "lead z")
end)

test("bad options and keys are errors that make nothing", function(t)
  local s = RS.create{ clock = Temporal.clock.fixed(T0) }
  local f = function() end
  t:error(function() s:debouncer{ callback = f } end, ":timeout must be a Temporal.duration")
  t:error(function() s:debouncer{ timeout = ms(0), callback = f } end, ":timeout must be a Temporal.duration > 0")
  t:error(function() s:debouncer{ timeout = 10, callback = f } end, "use runtime-timers for milliseconds")
  t:error(function() s:debouncer{ timeout = ms(1), force_min = ms(2), force_max = ms(1), callback = f } end, ":force-max must be a Temporal.duration >= :force-min")
  t:error(function() s:debouncer{ timeout = ms(1), force_max = ms(1), callback = f } end, ":force-min must be given with :force-max")
  t:error(function() s:debouncer{ timeout = ms(1), throttle = -ms(1), callback = f } end, ":throttle must be a Temporal.duration >= 0")
  t:error(function() s:debouncer{ timeout = ms(1), trailing = false, callback = f } end, "one edge at least")
  t:error(function() s:debouncer{ timeout = ms(1) } end, ":callback must be a function")
  local deb = s:debouncer{ timeout = ms(1), callback = f }
  t:error(function() deb:debounce(nil) end, "key must be a value other than nil and NaN, got nil")
  t:error(function() deb:debounce(0 / 0) end, "got number NaN")
  t:eq(s:count(), 0)
  s:drop()
  t:error(function() deb:debounce("k") end, "debounce: scheduler dropped")
  t:eq(deb:is_pending("k"), false)
end)

-- ---- the app-host scheduler ----

test("hs:debouncer runs on the host's timeline and shows in hs:jobs()", function(t)
  local log = {}
  local deb = hs:debouncer{ timeout = ms(20), callback = function(k, v) log[#log + 1] = k .. "=" .. v end }
  deb:debounce("a", 1)
  local jobs = hs:jobs()
  t:eq({ #jobs, jobs[1].kind, jobs[1].key }, { 1, "debounce", "a" })
  hs:update(19)
  t:eq(log, {})
  deb:debounce("a", 2)                  -- at 19: due at 39
  hs:update(19)
  t:eq(log, {})
  hs:update(1)
  t:eq(log, { "a=2" })
end)
