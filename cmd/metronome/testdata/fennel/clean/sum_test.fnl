(local util (require :lib.util))
(test "adds" (fn [t] (t:eq (util.add 2 2) 4)))

(test "fails" (fn [t] (t:eq (util.add 2 2) 5)))
