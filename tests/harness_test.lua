-- The harness itself, as scripts see it.

test("eq compares nested tables by value", function(t)
  local got = { kind = "every", ["due-at"] = { 10, 20, { 30 } }, tags = { a = true } }
  t:eq(got, { kind = "every", ["due-at"] = { 10, 20, { 30 } }, tags = { a = true } })
  t:eq({}, {})
  t:eq(2^53, 9007199254740992)
end)

test("eq uses __eq when a value has one", function(t)
  local mt = { __eq = function(a, b) return a.ms == b.ms end }
  t:eq(setmetatable({ ms = 5, label = "a" }, mt), setmetatable({ ms = 5, label = "b" }, mt))
end)

test("error matches plain text", function(t)
  t:error(function() error("bad argument #1 to 'schedule-once' (:delay must be a Temporal.duration)") end,
          "schedule-once")
  t:error(function() error("100% (of 5-10)") end, "100% (of 5-10)")
  t:error(function()
    error(setmetatable({}, { __tostring = function() return "runtime-timers: delay-ms < 0" end }))
  end, "delay-ms < 0")
end)

test("the sandbox is on", function(t)
  t:eq(io, nil)
  t:eq(os.execute, nil)
  t:error(function() require("../escape") end, '".." is not allowed')
end)

test("ok and log", function(t)
  t:ok(type(t.name) == "string")
  t:log("logs show with go test -v")
end)

test("skip stops the test", function(t)
  t:skip("shows as a skipped subtest")
  error("not reached")
end)
