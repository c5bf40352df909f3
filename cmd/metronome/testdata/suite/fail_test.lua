test("fails", function(t)
  t:eq({ 1, 2 }, { 1, 3 })
end)
