(print "fine")
