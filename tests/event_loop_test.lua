-- Conformance tests for the event-loop module (LUA-API "event-loop" and
-- "Settled in review": Event loop; seed 003). Where a rule is HTML's, the
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
