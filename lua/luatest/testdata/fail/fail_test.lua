-- Deliberately failing tests: luatest_test.go checks the report exactly.

test("passes", function(t) t:eq(1, 1) end)

test("float", function(t)
  t:eq(0.1 + 0.2, 0.3)
end)

test("nested", function(t)
  t:eq({a = {1, 2}, b = "x"}, {a = {1, 3}, b = "x"}, "tables differ")
end)

test("missing key", function(t)
  t:eq({1, 2, ["due-at"] = 5}, {1, 2, 3})
end)

test("big integers", function(t)
  t:eq(2^53, 1e15)
end)

test("long", function(t)
  t:eq({name = "a fairly long string value", list = {10, 20, 30, 40, 50}, nested = {deep = {deeper = true}}},
       {name = "a fairly long string value", list = {10, 20, 30, 40, 50}, nested = {deep = {deeper = false}}})
end)

test("ok", function(t)
  t:ok(nil, "must be set")
end)

test("no error", function(t)
  t:error(function() end, "boom")
end)

test("dash is plain", function(t)
  -- As a Lua pattern "schedule-once" would match "scheduleonce".
  t:error(function() error("scheduleonce failed", 0) end, "schedule-once")
end)

test("stops at the first failure", function(t)
  t:log("before")
  t:eq(1, 2)
  error("not reached")
end)

test("through a helper", function(t)
  local helper = loadstring("local t = ... t:eq('x', 'y')", "=helper")
  helper(t)
end)

test("tail call", function(t)
  return t:eq(1, 2)
end)

test("pcall cannot hide a failure", function(t)
  pcall(function() t:ok(false) end)
end)

test("skipped", function(t) t:skip() end)

test("runs after failures", function(t) t:ok(true) end)
