(local util (require :lib.util))
(print "sum" (util.add 1 2))
