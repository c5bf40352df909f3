-- The sandbox's builtins that push many values, its pcall and xpcall, and
-- its math.random: each case crashed the process or raised a Go error
-- without a position before (issue 11, "Crashes a script can cause today"
-- and "Determinism").

local function range(n)
  local t = {}
  for i = 1, n do t[i] = i end
  return t
end

-- deep(n, f) calls f under n frames of 30 locals each: they use up about
-- 32 * n slots of the value stack.
local function deep(n, f)
  -- luacheck: push ignore 211 (the locals only take stack slots)
  local a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15
  local b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15
  -- luacheck: pop
  if n == 0 then return f() end
  return (deep(n - 1, f))
end

test("unpack refuses more results than the value stack takes", function(t)
  t:error(function() unpack(range(6000)) end,
    "bad argument #1 to 'unpack' (too many results to unpack: 6000, at most 4096)")
  local ok, err = pcall(unpack, range(6000))
  t:eq(ok, false)
  t:ok(err:find("too many results to unpack: 6000, at most 4096", 1, true), err)
  t:error(function() unpack({}, 1, 2^31) end, "too many results to unpack: 2147483648, at most 4096")
  t:eq(select("#", unpack(range(4096))), 4096)
  t:eq({ unpack({ 1, 2, 3 }, 2) }, { 2, 3 })
  t:eq(select("#", unpack({}, 5, 1)), 0)
end)

test("string.byte and captures are bounded as unpack is", function(t)
  local s = ("x"):rep(6000)
  t:error(function() s:byte(1, -1) end,
    "bad argument #3 to 'byte' (string slice too long: 6000 bytes, at most 4096)")
  t:eq(select("#", s:byte(1, 4096)), 4096)
  t:eq(s:byte(6000), 120)
  local many = ("()"):rep(5000)
  for _, fn in ipairs { "find", "match", "gmatch", "gsub" } do
    t:error(function() string[fn](s, many, fn == "gsub" and "" or nil) end,
      "bad argument #2 to '" .. fn .. "' (too many captures: 5000, at most 4096)")
  end
  -- escaped parentheses, sets and %b are not captures
  t:eq(("a"):rep(5000):find(("%("):rep(3000) .. "[(]" .. ("%b()"):rep(1000)), nil)
  t:eq(s:find(many, 1, true), nil)
end)

test("pcall and xpcall catch a registry overflow", function(t)
  local big = range(4000)
  local ok, err = pcall(deep, 50, function() return unpack(big) end)
  t:eq(ok, false)
  t:ok(tostring(err):find("registry overflow", 1, true), err)
  ok, err = xpcall(function() return deep(50, function() return unpack(big) end) end,
    function(e) return "handled: " .. tostring(e) end)
  t:eq(ok, false)
  t:ok(tostring(err):find("registry overflow", 1, true), err)
  -- the state goes on as before
  t:eq(select("#", unpack(big)), 4000)
  t:eq({ pcall(function(...) return ... end, 1, 2) }, { true, 1, 2 })
end)

test("coroutines moving many values fail as Lua errors", function(t)
  local big = range(4000)
  local co = coroutine.create(function() return deep(50, function() return unpack(big) end) end)
  local ok, err = coroutine.resume(co)
  t:eq(ok, false)
  t:ok(tostring(err):find("registry overflow", 1, true), err)
  local gen = coroutine.wrap(function() coroutine.yield(unpack(big)) end)
  ok, err = pcall(deep, 50, function() return gen() end)
  t:eq(ok, false)
  t:ok(tostring(err):find("registry overflow", 1, true), err)
end)

test("math.random follows Lua 5.1 and checks its arguments", function(t)
  t:error(function() math.random(0) end, "bad argument #1 to 'random' (interval is empty)")
  t:error(function() math.random(5, 1) end, "bad argument #2 to 'random' (interval is empty)")
  t:error(function() math.random(1, 2^63) end, "bad argument #2 to 'random' (number 9223372036854775808 is out of range: want an integer within ±2^53)")
  t:error(function() math.random(0 / 0) end, "bad argument #1 to 'random' (number NaN is out of range")
  t:error(function() math.random(1, 2, 3) end, "wrong number of arguments to 'random'")
  t:error(function() math.random("x") end, "bad argument #1 to random (number expected, got string)")
  t:eq(math.random("1"), 1) -- a numeric string, as in Lua 5.1
  for _ = 1, 200 do
    local x = math.random()
    t:ok(x >= 0 and x < 1, x)
    local m = math.random(3)
    t:ok(m >= 1 and m <= 3 and m % 1 == 0, m)
    local n = math.random(-2, 2)
    t:ok(n >= -2 and n <= 2 and n % 1 == 0, n)
  end
  t:eq(math.random(7, 7), 7)
  local seen = {}
  for _ = 1, 100 do seen[math.random(2.9)] = true end -- truncated to 2, as in Lua 5.1
  t:eq(seen, { true, true })
  local r = math.random(-2^53, 2^53)
  t:ok(r >= -2^53 and r <= 2^53, r)
end)

test("math.randomseed repeats a sequence", function(t)
  local function draw()
    local s = {}
    for i = 1, 8 do s[i] = math.random(1000000) end
    s[9] = math.random()
    return s
  end
  math.randomseed(42)
  local a = draw()
  math.randomseed(42)
  t:eq(draw(), a)
  math.randomseed(43)
  t:ok(table.concat(draw(), ",") ~= table.concat(a, ","), "seed 43 gave seed 42's sequence")
  math.randomseed(42.7) -- truncated, as in Lua 5.1
  t:eq(draw(), a)
  t:error(function() math.randomseed() end, "bad argument #1 to randomseed (number expected, got nil)")
end)
