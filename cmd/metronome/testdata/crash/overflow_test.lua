-- Tests that filled the value stack ended `metronome test` with a Go panic.
test("unpack", function()
  local t = {}
  for i = 1, 6000 do t[i] = i end
  unpack(t)
end)

test("unpack in pcall", function(t)
  local big = {}
  for i = 1, 6000 do big[i] = i end
  t:eq(pcall(unpack, big), false)
end)

test("overflow in pcall", function(t)
  local big = {}
  for i = 1, 4000 do big[i] = i end
  local function deep(n)
    local a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15
    local b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15
    if n == 0 then return unpack(big) end
    return (deep(n - 1))
  end
  t:eq(pcall(deep, 50), false)
  deep(50)
end)
