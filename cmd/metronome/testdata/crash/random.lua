-- Prints a few draws of math.random.
local s = {}
for i = 1, 5 do s[i] = math.random(1000000) end
print(table.concat(s, " "), math.random())
