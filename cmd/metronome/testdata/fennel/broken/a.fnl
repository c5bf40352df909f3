(print "a")

(print (+ 1 2)
