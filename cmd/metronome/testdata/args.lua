print(select("#", ...), ...)
print(arg[0], #arg, arg[1], arg[2], arg[3])
