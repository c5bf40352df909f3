(local RuntimeScheduler (require :runtime-scheduler))
(local s (RuntimeScheduler.create {}))


(s:schedule-once {:delay 10 :callback print})
