-- spawn / wait (docs/lua-api.md, "spawn / wait"): straight-line code that waits for
-- virtual time, on runtime-scheduler and the app-host scheduler.
local Temporal = require "temporal"
local RS = require "runtime-scheduler"

local T0 = Temporal.instant.parse("2000-01-01T00:00:00Z")
local function ms(n) return Temporal.duration{ milliseconds = n } end

local function new()
  local s = RS.create{ clock = Temporal.clock.fixed(T0) }
  local log = {}
  local function at(name) log[#log + 1] = name .. "@" .. (s:now() - T0):total_ms() end
  local function take() local l = log; log = {}; return l end
  return s, at, take
end

test("spawn runs f(...) at once up to its first wait", function(t)
  local s, at, take = new()
  local h = s:spawn(function(a, b)
    at("start " .. a .. b)
    local took = s:wait(ms(10))
    at("woke after " .. took:total_ms())
    s:wait(ms(5))
    at("end")
  end, "x", "y")
  t:eq(take(), { "start xy@0" })
  t:eq(s:count(), 1)
  t:eq(s:list()[1].kind, "spawn")
  t:eq(h:remaining(), ms(10))
  t:eq(h:is_active(), true)
  s:advance(ms(10))
  t:eq(take(), { "woke after 10@10" })
  s:advance(ms(5))
  t:eq(take(), { "end@15" })
  t:eq(h:is_active(), false)
  t:eq(s:count(), 0)
end)

test("wait returns more than d after a jump", function(t)
  local s = new()
  local took
  s:spawn(function() took = s:wait(ms(10)) end)
  s:jump(ms(25))
  t:eq(took, ms(25))
end)

test("next and run-all see waiting spawns; each resume is a fire", function(t)
  local s, at, take = new()
  s:spawn(function() for _ = 1, 3 do s:wait(ms(7)); at("tick") end end)
  t:eq(s:next(), true)
  t:eq(take(), { "tick@7" })
  s["run-all"](s)
  t:eq(take(), { "tick@14", "tick@21" })
  s:spawn(function() while true do s:wait(ms(1)) end end)
  t:error(function() s:run_all{ ["loop-limit"] = 5 } end, "more than 5 fires")
end)

test("a wait of zero forever trips the loop limit", function(t)
  local s = new()
  s:set_loop_limit(10)
  s:spawn(function() while true do s:wait(ms(0)) end end)
  t:error(function() s:advance(ms(1)) end, "loop limit")
end)

test("cancel ends the spawn at its current wait", function(t)
  local s, at, take = new()
  local h = s:spawn(function() s:wait(ms(10)); at("never") end)
  t:eq(h:cancel(), true)
  t:eq(h:is_active(), false)
  t:eq(h:due(), nil)
  s:advance(ms(20))
  t:eq(take(), {})
  t:eq(h:drop(), true)
end)

test("an error before the first wait is raised by spawn, after it by the call that resumed it", function(t)
  local s = new()
  t:error(function() s:spawn(function() error("early") end) end, "early")
  t:eq(s:count(), 0)
  s:spawn(function() s:wait(ms(5)); error("late") end)
  t:error(function() s:advance(ms(5)) end, "late")
  t:eq(s:count(), 0)
end)

test("wait is allowed only in coroutines this scheduler runs", function(t)
  local s = new()
  local other = new()
  t:error(function() s:wait(ms(1)) end, "wait: allowed only inside a function this scheduler runs as a coroutine")
  local err
  s:spawn(function() err = select(2, pcall(other.wait, other, ms(1))) end)
  t:ok(tostring(err):find("allowed only inside", 1, true), tostring(err))
  local co = coroutine.create(function() return s:wait(ms(1)) end)
  local ok, msg = coroutine.resume(co)
  t:eq(ok, false)
  t:ok(tostring(msg):find("allowed only inside", 1, true), tostring(msg))
  t:error(function() s:wait(ms(-1)) end, "bad argument #2 to 'wait' (duration must be >= 0")
  t:error(function() s:wait(5) end, "bad argument #2 to 'wait' (Temporal.duration expected, got number 5")
  t:error(function() s:spawn(5) end, "bad argument #2 to 'spawn' (function expected, got number 5)")
end)

test("a raw coroutine.yield from a spawned function is an error", function(t)
  local s = new()
  t:error(function() s:spawn(function() coroutine.yield() end) end, "coroutine.yield: a spawned function must not yield; use s:wait(duration)")
end)

test("in a keyed timer's callback s:wait equals tick:wait", function(t)
  local s, at, take = new()
  s:register_timer{ key = "k", interval = ms(10), callback = function(tick)
    at("tick " .. tick["delivery-index"])
    local took = s:wait(ms(3))
    at("waited " .. took:total_ms())
  end }
  s:advance(ms(13))
  t:eq(take(), { "tick 1@10", "waited 3@13" })
end)

test("s:wait suspends a keyed callback that declares no parameter too", function(t)
  local s, at, take = new()
  s:register_timer{ key = "k", interval = ms(10), callback = function()
    at("tick")
    s:wait(ms(3))
    at("waited")
  end }
  s:advance(ms(12))
  t:eq(take(), { "tick@10" })
  s:advance(ms(1))
  t:eq(take(), { "waited@13" })
end)

test("a keyed callback that makes no call runs as a plain call: reading its tick still works", function(t)
  local s = new()
  local seen = {}
  s:register_timer{ key = "k", interval = ms(10), callback = function(tick)
    seen[#seen + 1] = tick["delivery-index"]
  end }
  s:advance(ms(30))
  t:eq(seen, { 1, 2, 3 })
end)

test("s:wait reached through a metamethod of a keyed callback is a clear error", function(t)
  local s = new()
  local proxy = setmetatable({}, { __index = function() s:wait(ms(5)); return 1 end })
  local n = 0
  s:register_timer{ key = "k", interval = ms(10), callback = function() n = n + proxy.x end }
  local ok, err = pcall(function() s:advance(ms(10)) end)
  t:eq(ok, false)
  t:ok(tostring(err):find("wait: allowed only inside", 1, true), tostring(err))
  t:eq(n, 0)
end)

test("the app-host scheduler spawns and waits, counted in count and jobs", function(t)
  local hs = require("app-host").scheduler
  local log = {}
  local h = hs:spawn(function() hs:wait(ms(10)); log[#log + 1] = "woke" end)
  t:eq(hs:count(), 1)
  t:eq(#hs:jobs(), 1)
  t:eq(hs:jobs()[1].kind, "spawn")
  hs:step(10)
  t:eq(log, { "woke" })
  t:eq(h:is_active(), false)
  t:eq(hs:count(), 0)
end)

-- gopher-lua runs metamethods, pcall'd functions and library callbacks as a
-- nested VM run: a yield there could not be resumed (the next resume hit a
-- Go nil pointer). Lua 5.1 refuses such a yield, and so does Metronome.
local ACROSS = "attempt to yield across a metamethod or C-call boundary"

test("coroutine.yield inside pcall inside a coroutine is refused at once", function(t)
  local co = coroutine.create(function()
    local ok, err = pcall(function() coroutine.yield("in pcall") end)
    return ok, err
  end)
  local resumed, ok, err = coroutine.resume(co)
  t:eq(resumed, true)
  t:eq(ok, false)
  t:ok(tostring(err):find(ACROSS, 1, true), tostring(err))
  t:eq(coroutine.status(co), "dead")
end)

test("coroutine.yield from a metamethod, an iterator or a sort comparator is refused", function(t)
  local x = setmetatable({}, { __add = function() coroutine.yield("add"); return 1 end })
  local bodies = {
    function() return x + 1 end,
    function() for _ in function() coroutine.yield("iter") end do end end,
    function() table.sort({ 3, 2, 1 }, function(a, b) coroutine.yield("sort"); return a < b end) end,
  }
  for i, body in ipairs(bodies) do
    local co = coroutine.create(body)
    local ok, err = coroutine.resume(co)
    t:eq(ok, false, "body " .. i)
    t:ok(tostring(err):find(ACROSS, 1, true), tostring(err))
    t:eq(coroutine.status(co), "dead")
  end
end)

test("s:wait and tick:wait inside pcall fail with the same error, and the work goes on", function(t)
  local s = new()
  local errs = {}
  s:spawn(function()
    local ok, err = pcall(function() s:wait(ms(5)) end)
    errs[#errs + 1] = ok and "waited" or err
  end)
  s:register_timer{ key = "k", interval = ms(10), callback = function(tick)
    local ok, err = pcall(function() tick:wait(ms(5)) end)
    errs[#errs + 1] = ok and "waited" or err
  end }
  s:advance(ms(10))
  t:eq(#errs, 2)
  for _, e in ipairs(errs) do t:ok(tostring(e):find(ACROSS, 1, true), tostring(e)) end
  t:eq(s:count(), 1) -- the keyed timer, still registered
end)

test("a coroutine resumed inside a metamethod still yields at its own top level", function(t)
  local co = coroutine.create(function() coroutine.yield("top"); return "end" end)
  local x = setmetatable({}, { __index = function() local _, v = coroutine.resume(co); return v end })
  t:eq(x.a, "top")
  t:eq(x.b, "end")
end)
