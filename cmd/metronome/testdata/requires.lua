local lib = require "lib.greet"
print(lib.greet(arg[1]))
