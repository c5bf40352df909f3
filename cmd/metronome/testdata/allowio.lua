local path = ...
local f = assert(io.open(path, "w"))
f:write("written by allowio.lua")
f:close()
print(type(os.getenv), os.date("!%Z"))
