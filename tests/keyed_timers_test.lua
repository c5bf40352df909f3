-- Keyed timers in virtual time: one test per guarantee (re-registering,
-- cancel, overrun, tick information, leases), then the edges and the bad inputs.
local Temporal = require "temporal"
local RS = require "runtime-scheduler"

local T0 = Temporal.instant.parse("2000-01-01T00:00:00Z")
local function ms(n) return Temporal.duration{ milliseconds = n } end
local function at(s) return (s:now() - T0)["total-ms"](s:now() - T0) end

local function new() return RS.create{ clock = Temporal.clock.fixed(T0) } end

-- record returns a callback that logs "d/s/k@ms" and then runs for busy
-- milliseconds (tick:wait), and the log.
local function recorder(s, busy)
  local log = {}
  local function cb(tick)
    log[#log + 1] = string.format("%d/%d/%d@%s", tick["delivery-index"], tick["scheduled-index"],
      tick["skipped-ticks"], at(s))
    local b = type(busy) == "function" and busy(tick) or busy
    if b and b > 0 then
      tick:wait(ms(b))
      log[#log + 1] = "end@" .. at(s)
    end
  end
  return cb, log
end

-- Generation and cancel

test("re-registering a key: the old generation's pending tick does not run", function(t)
  local s = new()
  local old = 0
  s:register_timer{ key = "k", interval = ms(10), callback = function() old = old + 1 end }
  s:advance(ms(9))          -- the old tick is pending for 10
  local cb, log = recorder(s)
  local tm = s:register_timer{ key = "k", interval = ms(4), callback = cb }
  s:advance(ms(9))
  t:eq(old, 0)
  t:eq(log, { "1/1/0@13", "2/2/0@17" })
  t:eq(tm.generation, 2)
  t:eq(s:count(), 1)
end)

test("cancel stops later ticks but lets the running callback finish", function(t)
  local s = new()
  local cleaned = 0
  local cb, log = recorder(s, 25)
  local tm = s:register_timer{ key = "k", interval = ms(10), callback = cb,
                               ["on-cancel"] = function() cleaned = cleaned + 1 end }
  s:advance(ms(15))
  local done = tm:cancel()
  t:eq(done["done?"](done), false)
  t:eq(cleaned, 0)
  s:advance(ms(100))
  t:eq(log, { "1/1/0@10", "end@35" })
  t:eq(done:is_done(), true)
  t:eq(cleaned, 1)
  t:eq(done:result(), true)
  t:eq(s:count(), 0)
end)

test("concurrent cancels share one result, including the cleanup's failure", function(t)
  local s = new()
  local cleaned = 0
  local cb = recorder(s, 5)
  local tm = s:register_timer{ key = "k", interval = ms(10), callback = cb,
                               ["on-cancel"] = function() cleaned = cleaned + 1; error("cleanup failed") end }
  s:advance(ms(12))
  local a, b = tm:cancel(), tm:cancel()
  t:eq(rawequal(a, b), true)
  t:error(function() a:result() end, "has not ended")
  s:advance(ms(3))
  local c = tm:cancel()
  t:eq(rawequal(a, c), true)
  for _, d in ipairs{ a, b, c } do
    local ok, err = d:result()
    t:eq(ok, false)
    t:eq(tostring(err):find("cleanup failed", 1, true) ~= nil, true)
  end
  t:eq(cleaned, 1)
end)

test("a period shorter than the handler never runs the callback twice at once", function(t)
  local s = new()
  local running, overlaps, n = false, 0, 0
  s:register_timer{ key = "k", interval = ms(10), callback = function(tick)
    if running then overlaps = overlaps + 1 end
    running = true
    n = n + 1
    tick:wait(ms(25))
    running = false
  end }
  s:advance(ms(200))
  t:eq(overlaps, 0)
  t:eq(n, 8)   -- 10, 35, 60, ... 185
end)

-- Tick information

local function churn(s, policy)
  local ticks = {}
  local i = 0
  s:register_timer{ key = "k", interval = ms(3), overrun = policy, ["max-catch-up-ticks"] = 2,
                    callback = function(tick)
    ticks[#ticks + 1] = { d = tick["delivery-index"], s = tick["scheduled-index"], k = tick["skipped-ticks"] }
    i = i + 1
    if i % 3 ~= 0 then tick:wait(ms(i % 7)) end
  end }
  for j = 1, 20 do
    s:advance(ms(j % 5))
    s:jump(ms((j % 3) * 4))
  end
  return ticks
end

local policies = { "skip-late-ticks", "catch-up-bounded", "delay-next-tick" }

test("delivery-index increases by exactly one per callback", function(t)
  for _, p in ipairs(policies) do
    for i, tk in ipairs(churn(new(), p)) do t:eq(tk.d, i) end
  end
end)

test("scheduled-index never decreases and is at least delivery-index", function(t)
  for _, p in ipairs(policies) do
    local prev = 0
    for _, tk in ipairs(churn(new(), p)) do
      t:eq(tk.s >= prev and tk.s >= tk.d, true)
      prev = tk.s
    end
  end
end)

test("skipped-ticks is scheduled-1 first, then scheduled - previous - 1", function(t)
  for _, p in ipairs(policies) do
    local prev = 0
    local ticks = churn(new(), p)
    t:eq(#ticks > 10, true)
    for _, tk in ipairs(ticks) do
      t:eq(tk.k, tk.s - prev - 1)
      prev = tk.s
    end
  end
end)

-- Overrun policy

test("skip-late-ticks delivers only the latest late tick", function(t)
  local s = new()
  local cb, log = recorder(s, function(tick) return tick["delivery-index"] == 1 and 35 or 0 end)
  s:register_timer{ key = "k", interval = ms(10), callback = cb }
  s:advance(ms(55))
  t:eq(log, { "1/1/0@10", "end@45", "2/4/2@45", "3/5/0@50" })
  -- A stall: jump applies the policy (tick 3 at 35 with 2 skipped).
  local s2 = new()
  local cb2, log2 = recorder(s2)
  s2:register_timer{ key = "k", interval = ms(10), callback = cb2 }
  s2:jump(ms(35))
  s2:advance(ms(5))
  t:eq(log2, { "1/3/2@35", "2/4/0@40" })
end)

test("catch-up-bounded delivers up to max-catch-up-ticks in order and skips the rest", function(t)
  local s = new()
  local cb, log = recorder(s, function(tick) return tick["delivery-index"] == 1 and 55 or 0 end)
  s:register_timer{ key = "k", interval = ms(10), overrun = "catch-up-bounded", ["max-catch-up-ticks"] = 3, callback = cb }
  s:advance(ms(70))
  -- Ticks 2..6 came due while the handler ran (10..65): 2 and 3 are skipped.
  t:eq(log, { "1/1/0@10", "end@65", "2/4/2@65", "3/5/0@65", "4/6/0@65", "5/7/0@70" })
  local s2 = new()
  local cb2, log2 = recorder(s2)
  s2:register_timer{ key = "k", interval = ms(10), overrun = "catch-up-bounded", ["max-catch-up-ticks"] = 2, callback = cb2 }
  s2:jump(ms(35))
  t:eq(log2, { "1/2/1@35", "2/3/0@35" })
end)

test("delay-next-tick recomputes the period from the handler's end", function(t)
  local s = new()
  local cb, log = recorder(s, function(tick) return tick["delivery-index"] == 1 and 35 or 0 end)
  s:register_timer{ key = "k", interval = ms(10), overrun = "delay-next-tick", callback = cb }
  s:advance(ms(70))
  -- It ends at 45: no fire then, the next tick one interval later.
  t:eq(log, { "1/1/0@10", "end@45", "2/5/3@55", "3/6/0@65" })
  local s2 = new()
  local cb2, log2 = recorder(s2)
  s2:register_timer{ key = "k", interval = ms(10), overrun = "delay-next-tick", callback = cb2 }
  s2:jump(ms(35))
  s2:advance(ms(20))
  t:eq(log2, { "1/3/2@35", "2/4/0@45", "3/5/0@55" })
end)

-- Owner lease

test("past the lease no tick starts, and a long stall releases no burst", function(t)
  local s = new()
  local o = s:owner{ lease = ms(25), id = "spot-42" }
  t:eq(o.id, "spot-42")
  local cb, log = recorder(s)
  o:register_timer{ key = "k", interval = ms(10), callback = cb }
  s:advance(ms(100))
  t:eq(log, { "1/1/0@10", "2/2/0@20" })
  t:eq(s:count(), 0)       -- a timer whose lease expired is not pending
  s:jump(ms(10000))
  s:advance(ms(1000))
  t:eq(#log, 2)
  t:eq(o:renew(), true)    -- at 11100: on from the next nominal tick
  s:advance(ms(30))
  t:eq(log, { "1/1/0@10", "2/2/0@20", "3/1110/1107@11100", "4/1111/0@11110", "5/1112/0@11120" })
end)

-- Edges

test("transfer drops the old authority's late ticks and renews", function(t)
  local s = new()
  local o = s:owner{ lease = ms(100) }
  local cb, log = recorder(s, function(tick) return tick["delivery-index"] == 1 and 25 or 0 end)
  o:register_timer{ key = "k", interval = ms(10), callback = cb }
  s:advance(ms(20))
  t:eq(o:transfer(), true)
  s:advance(ms(30))
  t:eq(log, { "1/1/0@10", "end@35", "2/3/1@35", "3/4/0@40", "4/5/0@50" })
end)

test("the new generation's first tick waits for the old handler", function(t)
  local s = new()
  local cb, log = recorder(s, 20)
  s:register_timer{ key = "k", interval = ms(10), callback = cb }
  s:advance(ms(10))
  local cb2, log2 = recorder(s)
  s:register_timer{ key = "k", interval = ms(5), callback = cb2 }
  s:advance(ms(25))
  t:eq(log, { "1/1/0@10", "end@30" })
  t:eq(log2, { "1/4/3@30", "2/5/0@35" })
end)

test("keyed ticks share count, list, next, run-all and trace with plain jobs", function(t)
  local s = new()
  local order = {}
  s:schedule_once{ delay = ms(10), callback = function() order[#order + 1] = "once" end }
  local tm = s:register_timer{ key = "k", interval = ms(10), callback = function() order[#order + 1] = "timer" end }
  t:eq(s:count(), 2)
  local l = s:list()
  t:eq(l[2].kind, "timer")
  t:eq(l[2].key, "k")
  t:eq(l[2].generation, 1)
  t:eq(l[2].id, tm.id)
  s:trace(true)
  t:eq(s:next(), true)
  t:eq(order, { "once", "timer" })
  local tr = s:trace()
  t:eq(tr[2].kind, "timer")
  t:eq(tr[2].key, "k")
  t:eq(tr[2].generation, 1)
  t:eq(tr[2]["delivery-index"], 1)
  t:eq(tr[2]["scheduled-index"], 1)
  t:eq(tr[2]["skipped-ticks"], 0)
  t:error(function() s["run-all"](s, { ["loop-limit"] = 5 }) end, "more than 5 fires")
  t:eq(tm:drop(), true)
  t:eq(tm["active?"](tm), false)
  t:eq(s:count(), 0)
end)

test("clear and drop cancel keyed timers", function(t)
  local s = new()
  local cleaned = 0
  local tm = s:register_timer{ key = "k", interval = ms(10), callback = function() end,
                               on_cancel = function() cleaned = cleaned + 1 end }
  s:clear()
  t:eq(cleaned, 1)
  t:eq(tm:cancel():result(), true)
  s:register_timer{ key = "k", interval = ms(10), callback = function() end,
                    on_cancel = function() cleaned = cleaned + 1 end }
  s:drop()
  t:eq(cleaned, 2)
end)

test("tick:wait returns the virtual time it took, longer after a jump", function(t)
  local s = new()
  local waited = {}
  s:register_timer{ key = "k", interval = ms(10), callback = function(tick)
    waited[#waited + 1] = tick:wait(ms(5))
  end }
  s:advance(ms(15))
  s:advance(ms(5))
  s:jump(ms(100))
  t:eq(waited[1], ms(5))
  t:eq(waited[2], ms(100))
end)

test("a callback without parameters still runs in a coroutine; one with ... gets the tick", function(t)
  local s = new()
  local seen, main = {}, coroutine.running()
  local n = 0
  s:register_timer{ key = "a", interval = ms(10), callback = function()
    local co = coroutine.running()
    seen[#seen + 1] = co ~= nil and co ~= main and coroutine.status(co) == "running"
    n = n + 1
  end }
  s:register_timer{ key = "b", interval = ms(10), callback = function(...)
    seen[#seen + 1] = select("#", ...) == 1 and select(1, ...)["delivery-index"] == n
  end }
  s:advance(ms(20))
  t:eq(seen, { true, true, true, true })
end)

test("a callback's error propagates with its position; the timer goes on", function(t)
  local s = new()
  local n = 0
  s:register_timer{ key = "k", interval = ms(10), callback = function()
    n = n + 1
    if n == 1 then error("boom") end
  end }
  t:error(function() s:advance(ms(25)) end, "keyed_timers_test.lua")
  s:advance(ms(10))   -- time stayed at the failing tick (10): the next is 20
  t:eq(n, 2)
end)

test("keyed timers on the app-host scheduler", function(t)
  local hs = require("app-host").scheduler
  local n = 0
  local tm = hs:register_timer{ key = "k", interval = ms(10), callback = function(tick) n = tick["delivery-index"] end }
  local o = hs:owner{ lease = ms(15) }
  local m = 0
  o:register_timer{ key = "k", interval = ms(10), callback = function() m = m + 1 end }
  hs:update(40)
  t:eq(n, 4)
  t:eq(m, 1)
  hs:clear()
  t:eq(tm:cancel():result(), true)
end)

-- Bad inputs: each names the function, the option and what was expected,
-- and registers nothing.

test("bad inputs are errors that register nothing", function(t)
  local s = new()
  local f = function() end
  local cases = {
    { { key = "", interval = ms(1), callback = f }, ":key must be a non-empty string" },
    { { key = 5, interval = ms(1), callback = f }, ":key must be a non-empty string, got number 5" },
    { { key = "k", interval = ms(0), callback = f }, ":interval must be a Temporal.duration > 0" },
    { { key = "k", interval = ms(-1), callback = f }, ":interval must be a Temporal.duration > 0" },
    { { key = "k", interval = 10, callback = f }, ":interval must be a Temporal.duration (use runtime-timers for milliseconds)" },
    { { key = "k", interval = ms(1), overrun = "skip", callback = f }, [[:overrun must be "skip-late-ticks", "catch-up-bounded" or "delay-next-tick"]] },
    { { key = "k", interval = ms(1), overrun = "catch-up-bounded", ["max-catch-up-ticks"] = 0, callback = f }, ":max-catch-up-ticks must be an integer from 1 to 2147483647 under catch-up-bounded, got number 0" },
    { { key = "k", interval = ms(1), overrun = "catch-up-bounded", ["max-catch-up-ticks"] = -1, callback = f }, ":max-catch-up-ticks must be an integer from 1 to 2147483647 under catch-up-bounded, got number -1" },
    { { key = "k", interval = ms(1), overrun = "catch-up-bounded", ["max-catch-up-ticks"] = 2147483648, callback = f }, ":max-catch-up-ticks must be an integer from 1 to 2147483647 under catch-up-bounded, got number 2147483648" },
    { { key = "k", interval = ms(1), ["max-catch-up-ticks"] = 1.5, callback = f }, ":max-catch-up-ticks must be an integer, got number 1.5" },
    { { key = "k", interval = ms(1) }, ":callback must be a function, got nil" },
    { { key = "k", interval = ms(1), callback = f, period = ms(1) }, "unknown option :period" },
    { { key = "k", interval = ms(1), callback = f, ["on-cancel"] = 1 }, ":on-cancel must be a function" },
  }
  for _, c in ipairs(cases) do
    t:error(function() s:register_timer(c[1]) end, "bad argument #2 to 'register-timer' (" .. c[2])
  end
  -- max-catch-up-ticks is range-checked only under catch-up-bounded.
  s:register_timer{ key = "ok", interval = ms(1), ["max-catch-up-ticks"] = 0, callback = f }:drop()
  t:eq(s:count(), 0)
  t:error(function() s:owner{ lease = ms(0) } end, "bad argument #2 to 'owner' (:lease must be a Temporal.duration > 0")
  t:error(function() s:owner{ lease = ms(5), id = "" } end, ":id must be a non-empty string")
  local kept
  s:register_timer{ key = "k", interval = ms(1), callback = function(tick) kept = tick end }
  s:advance(ms(1))
  t:error(function() kept:wait(ms(1)) end, "tick:wait: called outside its tick's callback")
  s:register_timer{ key = "y", interval = ms(1), callback = function() coroutine.yield() end }
  t:error(function() s:advance(ms(1)) end, "a keyed timer's callback must not yield; use tick:wait")
end)
