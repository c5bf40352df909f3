-- Defines a helper but registers no test.
local function helper() return 1 end
assert(helper() == 1)
