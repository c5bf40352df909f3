local function explode()
  error("kaboom")
end

test("runtime error", function(t)
  explode()
end)

test("index nil", function(t)
  local x
  return x.y + 1
end)

test("table error", function(t)
  error({code = 42})
end)

test("tostring error", function(t)
  error(setmetatable({}, {__tostring = function() return "custom" end}))
end)

test("bad t use", function(t)
  t.eq(1, 1)
end)

local function recurse() return 1 + recurse() end

test("stack overflow", function(t)
  recurse()
end)

test("after errors", function(t) t:ok(true) end)
