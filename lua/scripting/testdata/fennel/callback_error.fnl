(local RuntimeScheduler (require :runtime-scheduler))
(local Temporal (require :temporal))
(local s (RuntimeScheduler.create {}))

(s:schedule-once {:delay (Temporal.duration {:milliseconds 10})
                  :callback (fn []

                              (error "boom"))})
(s:advance (Temporal.duration {:milliseconds 12}))
