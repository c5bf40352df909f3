test("adds", function(t)
  t:eq(1 + 2, 3)
end)

test("prints", function(t)
  print("printed by a test")
end)

test("skipped", function(t)
  t:skip("not yet")
end)
