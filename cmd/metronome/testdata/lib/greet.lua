return { greet = function(name) return "hello, " .. name end }
