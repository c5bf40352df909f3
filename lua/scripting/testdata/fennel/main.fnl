;; the main script: a module, a macro, a scheduler
(local RuntimeScheduler (require :runtime-scheduler))
(local Temporal (require :temporal))
(local util (require :lib.util))
(local inv (require :inventory))
(import-macros {: twice!} :mymacros)

(local s (RuntimeScheduler.create {}))
(local h (s:schedule-once {:delay (Temporal.duration {:milliseconds 10})
                           :callback (fn [] (print "fired" (util.add 1 2) (inv.count) (twice! 21)))}))
(print "active" (h:active?))
(s:advance (Temporal.duration {:milliseconds 12}))
(print "active" (h:active?))
