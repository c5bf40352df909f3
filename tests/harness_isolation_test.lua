-- The script-test harness: each test gets a fresh app-host host; hooks and
-- describe blocks (docs/lua-api.md, "Script tests").
-- The tests that check isolation come in pairs: the first leaves work on
-- the host, the second sees none of it, whatever order they run in.
local Temporal = require "temporal"
local RuntimeTimers = require "runtime-timers"
local host = require "app-host"
local hs = host.scheduler
local D = Temporal.duration
local start = Temporal.instant.parse("2000-01-01T00:00:00Z")

-- what each hook saw, in order; reset by the outermost before_each
local log

-- a fresh host looks the same from either test of a pair
local function pristine(t)
  t:eq(hs:now(), start)
  t:eq(hs:is_paused(), false)
  t:eq(hs:jobs(), {})
  t:eq(hs:list(), {})
  t:eq(os.time(), 946684800)
  t:eq(os.clock(), 0)
end

-- leaves an interval, a timeout, a facet, a pause and moved time behind
local function litter()
  hs:schedule_every{ interval = D{ milliseconds = 10 }, callback = function() end }
  RuntimeTimers.Interval{ ["interval-ms"] = 5, callback = function() end }
  RuntimeTimers.Timeout{ ["delay-ms"] = 1000, callback = function() end }
  hs:register("physics", function() end)
  hs:update(25)
  hs:set_paused(true)
  hs:on_error(function() end)
end

test("a test that leaves work on the host", function(t)
  pristine(t)
  litter()
  t:eq(hs:count(), 3)
  t:eq(hs:list(), { "physics" })
end)

test("the next test sees none of it", function(t)
  pristine(t)
  litter()
end)

test("runtime-timers of an earlier test never fire", function(t)
  local fired = 0
  RuntimeTimers.Timeout{ ["delay-ms"] = 1, callback = function() fired = fired + 1 end }
  hs:update(1)
  t:eq(fired, 1)  -- only this test's own timeout
  RuntimeTimers.Interval{ ["interval-ms"] = 1, callback = function() fired = fired + 1 end }
end)

test("RuntimeTimers.clear has nothing of earlier tests to clear", function(t)
  t:eq(RuntimeTimers.clear(), true)
  hs:update(5000)
  t:eq(hs:now(), start + D{ seconds = 5 })
end)

test("app-host and runtime-timers are the same objects in every test", function(t)
  t:ok(require("app-host").scheduler == hs)
  t:ok(require("runtime-timers") == RuntimeTimers)
  -- a scheduler made without a clock starts at this test's host instant
  local s = (require "runtime-scheduler").create{}
  t:eq(s:now(), start)
end)

test("a typed error policy set by an earlier test is gone", function(t)
  hs:schedule_once{ delay = D{ milliseconds = 1 }, callback = function() error("boom") end }
  t:error(function() hs:update(1) end, "boom")
end)

-- ---- math.random: reseeded per test from (seed, file, full name) ----

local draws = {}

test("math.random draws the same in a test whatever ran before", function(t)
  draws.first = { math.random(1e6), math.random(1e6) }
  t:ok(draws.first[1] >= 1)
end)

test("math.random draws differ between tests", function(t)
  local mine = { math.random(1e6), math.random(1e6) }
  t:ok(mine[1] ~= draws.first[1] or mine[2] ~= draws.first[2])
end)

-- ---- before_each / after_each / describe ----

before_each(function(t)
  log = { "before " .. t.name }
end)

after_each(function(t)
  -- runs after every test of the file, failed or not; its t is the test's
  t:ok(type(t.name) == "string")
end)

test("the file's before_each runs before a test and gets its t", function(t)
  t:eq(log, { "before the file's before_each runs before a test and gets its t" })
end)

describe("a describe block", function()
  before_each(function(t)
    log[#log + 1] = "inner before"
    hs:register("ui", function() end)    -- set up on this test's host
  end)
  after_each(function(t)
    t:eq(hs:list(), { "ui" })
  end)

  test("runs outer hooks first", function(t)
    t:eq(log, { "before a describe block runs outer hooks first", "inner before" })
    t:eq(t.name, "a describe block runs outer hooks first")
  end)

  describe("nested", function()
    before_each(function() log[#log + 1] = "nested before" end)

    test("joins the names with spaces", function(t)
      t:eq(t.name, "a describe block nested joins the names with spaces")
      t:eq(log, { "before a describe block nested joins the names with spaces", "inner before", "nested before" })
    end)
  end)

  -- the same short name in another block is another test
  test("one name", function(t) t:eq(hs:list(), { "ui" }) end)
end)

describe("another block", function()
  test("one name", function(t) t:eq(hs:list(), {}) end)
end)

test("hooks cannot be added while tests run", function(t)
  t:error(function() before_each(function() end) end,
    "before_each: hooks are registered while the file loads (at its top level or in a describe body), not while tests run")
  t:error(function() after_each(function() end) end, "after_each: hooks are registered while the file loads")
  t:error(function() describe("late", function() end) end,
    'describe "late": blocks are declared while the file loads, not while tests run')
  t:error(function() test("late", function() end) end, "not while tests run")
end)
