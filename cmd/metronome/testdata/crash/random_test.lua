-- Logs a few draws of math.random through a failing test.
test("draws", function(t)
  local s = {}
  for i = 1, 5 do s[i] = math.random(1000000) end
  t:eq(table.concat(s, " "), "")
end)
