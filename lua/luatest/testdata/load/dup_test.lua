test("adds", function(t)
  t:eq(1 + 1, 2)
end)

test("adds", function(t)
  t:eq(2 + 2, 4)
end)
