-- Conformance tests for the event-loop module (docs/lua-api.md,
-- "event-loop"). Where a rule is HTML's, the
-- comment names the web-platform-tests case or the spec step it follows
-- (HTML = the WHATWG HTML standard, "Timers" and "Event loops").
local EventLoop = require "event-loop"

-- fresh: a loop on a virtual clock and a log of "name@ms".
local function fresh()
  local loop = EventLoop.new()
  local r = { loop = loop, log = {} }
  function r.note(s) r.log[#r.log + 1] = s end
  function r.cb(name)
    return function(...)
      local extra = select("#", ...) > 0 and ("+" .. table.concat({ ... }, ",")) or ""
      r.note(name .. "@" .. loop:now() .. extra)
    end
  end
  function r.take() local s = table.concat(r.log, " "); r.log = {}; return s end
  return r
end

-- ---- Timer ordering ----

test("timers fire in (due, sequence) order, with their extra arguments", function(t)
  -- HTML timer initialization steps: "wait until any invocations of this
  -- algorithm that had the same method context, that started before this
  -- one, and whose timeout is equal to or less than this one's, have
  -- completed" (WPT html/webappapis/timers: ordering of equal timeouts).
  local r = fresh()
  local loop = r.loop
  loop:set_timeout(r.cb("b"), 10)
  loop:set_timeout(r.cb("a"), 5, "x", "y")
  loop:set_timeout(r.cb("c"), 10)
  loop:set_timeout(r.cb("z"))           -- missing delay is 0
  loop:set_timeout(r.cb("n"), -20)      -- WPT negative-settimeout.any.js: negative is 0
  loop:set_timeout(r.cb("nan"), 0 / 0)  -- NaN is 0
  loop:run(100)
  t:eq(r.take(), "z@0 n@0 nan@0 a@5+x,y b@10 c@10")
end)

test("an interval's repeat is sequenced after the timers its callback created", function(t)
  -- HTML timer initialization steps: the repeat re-runs the steps after
  -- the handler, so its sequence comes after what the handler set.
  local r = fresh()
  local loop = r.loop
  local n = 0
  local id
  id = loop:set_interval(function()
    n = n + 1
    r.note("i" .. n .. "@" .. loop:now())
    if n == 1 then loop:set_timeout(r.cb("inner"), 10) end
    if n == 2 then loop:clear_interval(id) end
  end, 10)
  loop:run(100)
  t:eq(r.take(), "i1@10 inner@20 i2@20")
end)

test("clear_timeout and clear_interval share one id space; unknown ids are a no-op", function(t)
  -- WPT html/webappapis/timers/cleartimeout-clearinterval.any.js
  -- ("Clear timeout with clearInterval", "Clear interval with clearTimeout").
  local r = fresh()
  local loop = r.loop
  loop:clear_interval(loop:set_timeout(r.cb("t"), 0))
  loop:clear_timeout(loop:set_interval(r.cb("i"), 0))
  loop:clear_timeout(12345)
  loop:clear_timeout("x")
  loop:clear_timeout(nil)
  local other = EventLoop.new()
  other:clear_timeout(loop:set_timeout(r.cb("kept"), 1)) -- another loop's id: a no-op here
  loop:run(100)
  t:eq(r.take(), "kept@1")
end)

test("a timer cleared by an earlier task of the same turn never fires", function(t)
  -- HTML "run steps after a timeout": the task checks the map of active
  -- timers when it runs, so clearTimeout from an earlier task wins.
  local r = fresh()
  local loop = r.loop
  local victim
  loop:set_timeout(function() r.note("first"); loop:clear_timeout(victim) end, 10)
  victim = loop:set_timeout(r.cb("victim"), 10)
  loop:set_timeout(r.cb("last"), 10)
  loop:run(100)
  t:eq(r.take(), "first last@10")
end)

test("a throwing interval keeps repeating and on_error sees each error", function(t)
  local r = fresh()
  local loop = r.loop
  local seen = {}
  loop:on_error(function(msg, info) seen[#seen + 1] = info.kind end)
  local id = loop:set_interval(function() error("boom") end, 5)
  loop:advance(20)
  t:eq(table.concat(seen, " "), "interval interval interval interval")
  loop:clear_interval(id)
  loop:on_error(nil)
  loop:set_timeout(function() error("one") end, 1)
  loop:set_timeout(function() error("two") end, 2)
  t:error(function() loop:advance(5) end, "one (and 1 more error in this advance")
end)

-- ---- Clamping ----

test("timers nested more than five levels deep wait at least 4 ms", function(t)
  -- HTML timer initialization steps 5-7 (nesting level > 5 and timeout
  -- < 4: timeout = 4); WPT html/webappapis/timers (nesting clamp).
  local r = fresh()
  local loop = r.loop
  local n = 0
  local function nest()
    n = n + 1
    r.note(n .. "@" .. loop:now())
    if n < 8 then loop:set_timeout(nest, 0) end
  end
  loop:set_timeout(nest, 0)
  loop:run(1000)
  t:eq(r.take(), "1@0 2@0 3@0 4@0 5@0 6@0 7@4 8@8")
end)

test("an interval's repeats count as nesting", function(t)
  local r = fresh()
  local loop = r.loop
  local n, id = 0, nil
  id = loop:set_interval(function()
    n = n + 1
    r.note(tostring(loop:now()))
    if n == 8 then loop:clear_interval(id) end
  end, 1)
  loop:run(1000)
  t:eq(r.take(), "1 2 3 4 5 6 10 14")
end)

test("a microtask runs at nesting level 0", function(t)
  -- HTML: a microtask is not a timer task, so timers it sets start at level 0.
  local r = fresh()
  local loop = r.loop
  local n = 0
  local function nest()
    n = n + 1
    if n < 7 then loop:set_timeout(nest, 0); return end
    loop:queue_microtask(function() loop:set_timeout(r.cb("from-micro"), 0) end)
    loop:set_timeout(r.cb("from-timer"), 0)
  end
  loop:set_timeout(nest, 0)
  loop:run(1000)
  t:eq(r.take(), "from-micro@4 from-timer@8")
end)

-- ---- Microtask order ----

test("the microtask checkpoint runs after every task; microtasks queue microtasks", function(t)
  -- HTML "perform a microtask checkpoint" after each task; WPT
  -- html/webappapis/microtask-queuing/queue-microtask.any.js (FIFO order).
  local r = fresh()
  local loop = r.loop
  loop:set_task_hook(function() r.note("hook") end)
  loop:queue_task(function()
    r.note("task1")
    loop:queue_microtask(function() r.note("m1"); loop:queue_microtask(r.cb("m3")) end)
    loop:queue_microtask(r.cb("m2"), "a")
  end)
  loop:queue_task(r.cb("task2"))
  loop:run(0)
  t:eq(r.take(), "task1 m1 m2@0+a m3@0 hook task2@0 hook")
end)

test("microtasks queued outside any task run when the next run starts", function(t)
  local r = fresh()
  local loop = r.loop
  loop:queue_microtask(r.cb("outside"))
  t:eq(loop:next_timer(), 0) -- the next run has work: the microtask
  t:ok(loop:needs_frame())
  loop:set_timeout(r.cb("timer"), 0)
  t:eq(r.take(), "")
  loop:run(0)
  t:eq(r.take(), "outside@0 timer@0")
end)

test("tasks run in FIFO batches; a task queued by the batch runs in a later batch", function(t)
  local r = fresh()
  local loop = r.loop
  loop:queue_task(function() r.note("a"); loop:queue_task(r.cb("c")) end)
  loop:queue_task(r.cb("b"))
  loop:set_timeout(r.cb("t"), 0)
  loop:run(0)
  -- The due timer runs after the first batch, before the batch of c.
  t:eq(r.take(), "a b@0 t@0 c@0")
end)

-- ---- Frames ----

test("frames fall on a 16 ms grid; one requested in a frame runs in the next", function(t)
  -- HTML "run the animation frame callbacks": the callbacks are taken
  -- when the frame starts, so a request made in one is for the next.
  local r = fresh()
  local loop = r.loop
  loop:advance(5)
  loop:request_animation_frame(function(ms)
    r.note("f1@" .. ms)
    loop:request_animation_frame(function(ms2) r.note("f2@" .. ms2) end)
  end)
  local gone = loop:request_animation_frame(r.cb("cancelled"))
  loop:cancel_animation_frame(gone)
  loop:cancel_animation_frame(999) -- unknown: a no-op
  t:ok(loop:needs_frame())
  t:ok(loop["needs-frame"](loop))
  loop:run(100)
  t:eq(r.take(), "f1@16 f2@32")
  t:ok(not loop:needs_frame())
end)

test("a frame goes before a timer only when it is due strictly earlier", function(t)
  local r = fresh()
  local loop = r.loop
  loop:request_animation_frame(function(ms) r.note("frame@" .. ms) end)
  loop:set_timeout(r.cb("t16"), 16)
  loop:set_timeout(r.cb("t17"), 17)
  loop:run(100)
  t:eq(r.take(), "t16@16 frame@16 t17@17")
end)

test("the checkpoint runs after each frame callback", function(t)
  local r = fresh()
  local loop = r.loop
  loop:request_animation_frame(function() r.note("f1"); loop:queue_microtask(r.cb("m")) end)
  loop:request_animation_frame(r.cb("f2"))
  loop:run(16)
  t:eq(r.take(), "f1 m@16 f2@16+16") -- a frame callback gets the frame time
end)

-- ---- run(until) on the virtual clock ----

test("run(until) jumps only to due items and leaves now at the last one", function(t)
  local r = fresh()
  local loop = r.loop
  loop:set_timeout(r.cb("a"), 10)
  loop:set_timeout(r.cb("b"), 30)
  t:eq(loop:next_timer(), 10)
  loop:run(20)
  t:eq(r.take(), "a@10")
  t:eq(loop:now(), 10)
  t:eq(loop:next_timer(), 30)
  loop:advance(5)
  t:eq(loop:now(), 15)
  loop:run(math.huge)
  t:eq(r.take(), "b@30")
  t:eq(loop:next_timer(), math.huge)
end)

test("run-all stops at its loop limit; run-to-last runs to the last timer", function(t)
  local r = fresh()
  local loop = r.loop
  local id = loop:set_interval(function() end, 10)
  t:error(function() loop["run-all"](loop, { ["loop-limit"] = 5 }) end, "more than 5 tasks")
  loop:clear_interval(id)
  loop:set_timeout(r.cb("x"), 100)
  loop:set_timeout(function() loop:set_timeout(r.cb("later"), 500) end, 50)
  local now = loop:now()
  loop["run-to-last"](loop)
  t:eq(r.take(), "x@" .. (now + 100))
  t:eq(loop:now(), now + 100)
  loop:run_all()
  t:eq(r.take(), "later@" .. (now + 550))
end)

test("a Lua source runs in turns and its deadline is an item", function(t)
  local r = fresh()
  local loop = r.loop
  local queue, due = {}, nil
  loop:register_source{
    name = "net", class = "turn",
    ready = function() return #queue > 0 or (due ~= nil and loop:now() >= due) end,
    run = function()
      if due and loop:now() >= due then due = nil; queue[#queue + 1] = "polled" end
      if #queue == 0 then return false end
      r.note(table.remove(queue, 1) .. "@" .. loop:now())
    end,
    deadline = function() return due end,
  }
  queue = { "m1", "m2" }
  loop:set_timeout(r.cb("t"), 0)
  due = 25
  t:eq(loop:next_timer(), 0)
  loop:run(100)
  -- Turn sources drain before a due timer; the deadline moves the clock.
  t:eq(r.take(), "m1@0 m2@0 t@0 polled@25")
  t:error(function() loop:register_source{ name = "net", class = "turn", ready = print, run = print } end,
    "registered already")
end)

-- ---- The test clock: the verbs a @sinonjs/fake-timers user reaches for ----
-- Each test names the sinon behaviour it matches, or the HTML rule the loop
-- follows instead.

test("new{ now = ms } starts a virtual clock there", function(t)
  -- sinon: install({ now }) / createClock(now) starts the clock at now.
  local loop = EventLoop.new{ now = 200 }
  t:eq(loop:now(), 200)
  local at
  loop:set_timeout(function() at = loop:now() end, 10)
  loop:run_all()
  t:eq(at, 210)
  t:error(function() EventLoop.new{ now = -1 } end, ":now must be a loop time in ms from 0 to 9e12")
end)

test("advance(ms) runs what is due up to now + ms and returns now", function(t)
  -- sinon: clock.tick(ms) returns clock.now; timers set by callbacks inside
  -- the window fire in the same call. advance() is tick(0): what is due now.
  local r = fresh()
  local loop = r.loop
  loop:set_timeout(function() r.note("a@" .. loop:now()); loop:set_timeout(r.cb("b"), 5) end, 10)
  loop:set_timeout(r.cb("z"), 0)
  t:eq(loop:advance(), 0)
  t:eq(r.take(), "z@0")
  t:eq(loop:advance(20), 20)
  t:eq(r.take(), "a@10 b@15")
  t:eq(loop["advance"](loop, 0.5), 20.5) -- HTML time is fractional: no rounding to whole ms, as sinon does
end)

test("next() moves to the earliest timer, runs it and the microtasks after it", function(t)
  -- sinon: clock.next() fires the first timer and returns now; with none it
  -- does nothing. Beyond sinon: a queued task runs first (it is due now), and
  -- an animation frame is an item like a timer (sinon's rAF is a timer too).
  local r = fresh()
  local loop = r.loop
  loop:set_timeout(function() r.note("a@" .. loop:now()); loop:queue_microtask(r.cb("m")) end, 10)
  loop:set_timeout(r.cb("b"), 10)
  loop:request_animation_frame(function(at) r.note("frame@" .. at) end)
  loop:queue_task(r.cb("task"))
  t:eq(loop:next(), 0)
  t:eq(r.take(), "task@0")
  t:eq(loop:next(), 10)
  t:eq(r.take(), "a@10 m@10")
  t:eq(loop:next(), 10)
  t:eq(loop:next(), 16)
  t:eq(r.take(), "b@10 frame@16")
  t:eq(loop:next(), 16) -- nothing pending: time stays
end)

test("jump(ms) moves time first; each timer due on the way fires once, late", function(t)
  -- sinon: clock.jump(ms) "firing callbacks at most once": every timer due
  -- before now + ms runs once at the new now, an interval then repeats from
  -- there.
  local r = fresh()
  local loop = r.loop
  loop:set_interval(r.cb("iv"), 10)
  loop:set_timeout(r.cb("a"), 5)
  loop:set_timeout(r.cb("later"), 50)
  t:eq(loop:jump(35), 35)
  t:eq(r.take(), "iv@35 a@35")
  loop:advance(15)
  t:eq(r.take(), "iv@45 later@50")
  t:error(function() loop:jump(-1) end, "bad argument #2 to 'jump' (ms must be a number of milliseconds >= 0")
end)

test("run_microtasks() is the microtask checkpoint alone", function(t)
  -- sinon: clock.runMicrotasks() runs the queued jobs and those they queue,
  -- and no timer, and time stays.
  local r = fresh()
  local loop = r.loop
  loop:set_timeout(r.cb("t"), 0)
  loop:queue_microtask(function() r.note("m1"); loop:queue_microtask(r.cb("m2")) end)
  loop["run-microtasks"](loop)
  t:eq(r.take(), "m1 m2@0")
  t:eq(loop:count(), 1)
end)

test("run_to_frame() runs up to the next 16 ms frame, that frame included", function(t)
  -- sinon: clock.runToFrame() ticks to the next frame, firing the animation
  -- frame callbacks and the timers on the way. HTML's frames fall on the
  -- loop's own 16 ms grid, not on one counted from when the clock started as
  -- sinon's do.
  local log = {}
  local loop = EventLoop.new{ now = 20 }
  loop:set_timeout(function() log[#log + 1] = "a@" .. loop:now() end, 5)
  loop:request_animation_frame(function(at) log[#log + 1] = "frame@" .. at end)
  t:eq(loop:run_to_frame(), 32)
  t:eq(table.concat(log, " "), "a@25 frame@32")
  t:eq(loop:run_to_frame(), 48) -- no frame requested: to the next frame time all the same
end)

test("run_all() runs until nothing is pending, under its loop limit, and returns now", function(t)
  -- sinon: clock.runAll() runs timers set meanwhile too and throws past
  -- loopLimit; its microtasks count against the limit as here. The default
  -- limit is 10,000 (sinon's is 1000); an error leaves what did not run
  -- queued, so a test can inspect it.
  local r = fresh()
  local loop = r.loop
  loop:set_timeout(function() loop:set_timeout(r.cb("chained"), 100) end, 10)
  t:eq(loop:run_all(), 110)
  t:eq(r.take(), "chained@110")
  local n = 0
  for _ = 1, 12 do loop:queue_microtask(function() n = n + 1 end) end
  t:error(function() loop:run_all{ loop_limit = 10 } end,
    "run-all: more than 10 tasks and microtasks ran and work is still pending; the last was the microtask queued at event_loop_test.lua:")
  t:eq(n, 10)
  t:eq(loop:count(), 2)
  loop:run_all()
  t:eq(n, 12)
end)

test("run_to_last() runs to the latest timer pending at the call and returns now", function(t)
  -- sinon: clock.runToLast() runs every timer up to the last one scheduled
  -- when it was called; timers set meanwhile run only if due before it.
  -- Unlike sinon it keeps run-all's loop limit, so an interval far shorter
  -- than the way to the last timer ends with an error, not a hang.
  local r = fresh()
  local loop = r.loop
  loop:set_timeout(r.cb("a"), 10)
  loop:set_timeout(function() loop:set_timeout(r.cb("beyond"), 1) end, 20)
  t:eq(loop:run_to_last(), 20)
  t:eq(r.take(), "a@10")
  t:eq(loop:count(), 1)
  loop:reset()
  loop:set_interval(function() end, 5)
  loop:set_timeout(r.cb("tomorrow"), 86400000)
  t:error(function() loop["run-to-last"](loop, { ["loop-limit"] = 100 }) end,
    "run-to-last: more than 100 tasks and microtasks ran and work is still pending; the last was the interval set at event_loop_test.lua:")
  t:eq(loop:count(), 2)
end)

test("count() counts timers, queued tasks, microtasks and frame callbacks", function(t)
  -- sinon: clock.countTimers() counts the timers and the queued jobs
  -- (microtasks); an animation frame callback is a timer there as here.
  local loop = EventLoop.new()
  t:eq(loop:count(), 0)
  local id = loop:set_timeout(function() end, 5)
  loop:set_interval(function() end, 5)
  loop:queue_task(function() end)
  loop:queue_microtask(function() end)
  loop:request_animation_frame(function() end)
  t:eq(loop:count(), 5)
  loop:clear_timeout(id)
  t:eq(loop:count(), 4)
end)

test("reset() drops everything pending and puts now back to the start", function(t)
  -- sinon: clock.reset() removes every timer and job without firing them and
  -- restores now. Ids keep counting, so an id from before never clears a
  -- timer set after.
  local ran = false
  local loop = EventLoop.new{ now = 100 }
  local old = loop:set_timeout(function() ran = true end, 5)
  loop:advance(3)
  loop:queue_microtask(function() ran = true end)
  loop:queue_task(function() ran = true end)
  loop:request_animation_frame(function() ran = true end)
  loop:reset()
  t:eq(loop:now(), 100)
  t:eq(loop:count(), 0)
  local fired = false
  loop:set_timeout(function() fired = true end, 1)
  loop:clear_timeout(old)
  loop:run_all()
  t:eq(ran, false)
  t:eq(fired, true)
  t:error(function()
    loop:queue_task(function() loop:reset() end)
    loop:run_all()
  end, "reset: the event loop is running")
end)

test("a chain that never lets time move stops at the loop limit, per instant", function(t)
  -- HTML, not sinon: a timer set from a microtask runs at nesting level 0 and
  -- is never clamped, so a timer -> microtask -> 0 ms timer chain keeps time
  -- at one instant (sinon's tick would spin). run, advance, next, jump and
  -- run-to-last allow loop-limit callbacks at one instant and raise past it.
  for _, verb in ipairs{ "run", "advance", "run_to_last", "jump" } do
    local loop = EventLoop.new{ ["loop-limit"] = 200 }
    local function chain() loop:queue_microtask(function() loop:set_timeout(chain, 0) end) end
    loop:set_timeout(chain, 0)
    loop:set_timeout(function() end, 1000)
    local arg = verb ~= "run_to_last" and 1000 or nil
    t:error(function() loop[verb](loop, arg) end, "more than 200 tasks and microtasks ran")
    t:ok(loop:count() >= 1, verb) -- the next link stays queued
  end
  -- Many callbacks spread over time are not a chain.
  local loop = EventLoop.new{ loop_limit = 10 }
  local n = 0
  loop:set_interval(function() n = n + 1 end, 5)
  loop:advance(100)
  t:eq(n, 20)
end)
