(print "one")

(local)
