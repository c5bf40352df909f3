test("passes", function(t) t:eq(1, 1) end)

describe("group", function()
  test("fails", function(t)
    t:log("a note with <xml> & \"quotes\"")
    t:eq({ 1, 2 }, { 1, 3 })
  end)
  test("skips", function(t) t:skip("not # today") end)
end)
