test("registers inside a test", function(t)
  test("late", function() end)
end)
