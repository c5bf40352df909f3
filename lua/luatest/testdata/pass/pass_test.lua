-- Every test here passes or skips.

test("numbers and strings", function(t)
  t:eq(1 + 1, 2)
  t:eq("a" .. "b", "ab")
  t:eq(2^53, 9007199254740992)
end)

test("nested tables", function(t)
  t:eq({1, {2, {x = 3}}, k = {"v"}, ["due-at"] = false},
       {1, {2, {x = 3}}, k = {"v"}, ["due-at"] = false})
  local cycle = {}
  cycle.self = cycle
  local other = {}
  other.self = other
  t:eq(cycle, other)
end)

test("__eq metamethod", function(t)
  local mod10 = {__eq = function(a, b) return a.v % 10 == b.v % 10 end}
  t:eq(setmetatable({v = 1}, mod10), setmetatable({v = 11}, mod10))
  t:eq({setmetatable({v = 2}, mod10)}, {setmetatable({v = 12}, mod10)})
end)

test("errors match plain text", function(t)
  t:error(function() error("bad argument #1 to 'schedule-once'") end, "schedule-once")
  t:error(function() error("50% done (a-b) [x]") end, "50% done (a-b) [x]")
  t:error(function() error("100%") end, "100%")
  t:error(function()
    error(setmetatable({}, {__tostring = function() return "custom-error %d" end}))
  end, "custom-error %d")
  t:error(function() error({code = 7}) end, "code = 7")
  t:error(function() local x = nil; return x.field end)
end)

test("ok and log", function(t)
  t:ok(true)
  t:ok(0, "zero is true in Lua")
  t:log("hello", 1, nil)
  t:eq(t.name, "ok and log")
end)

test("skip", function(t)
  t:skip("not today")
  error("unreachable")
end)
