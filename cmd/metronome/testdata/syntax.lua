local x =
