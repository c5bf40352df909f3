local hs = require("app-host").scheduler

before_each(function(t)
  hs:register("ui", function() end)
end)

test("draws", function(t)
  print("draw " .. math.random(1000))
  t:eq(hs:list(), { "ui" })
end)

describe("menu", function()
  test("opens", function(t) t:log("menu has", #hs:jobs(), "jobs"); t:eq(#hs:jobs(), 0) end)
  test("fails", function(t) t:eq(1, 2) end)
end)
