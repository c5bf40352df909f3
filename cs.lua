local T = require "temporal"
print(pcall(T.clock.system))
print(pcall(math.random, 0)) print(pcall(math.random, 5, 1)) print(pcall(math.random, 1, 2^63))
local t = {} for i = 1, 6000 do t[i] = i end
print(pcall(unpack, t)) print(pcall(unpack, {}, 1, 2^31))
print(pcall(string.byte, ("x"):rep(6000), 1, -1))
print(pcall(string.find, "x", ("()"):rep(5000)))
local function f() coroutine.wrap(f)() end
print(pcall(f))
print(pcall(string.format, "%99999s%99999s", "a", "b"))
