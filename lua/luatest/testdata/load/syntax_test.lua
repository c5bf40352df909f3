test("never runs", function(t) end)

local x = = 1
