print(io == nil, os.execute == nil, dofile == nil)
local f = io.open("/etc/hostname")
