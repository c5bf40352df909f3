;; Tests in Fennel: `metronome test examples/fennel` (with a compiler) runs
;; this file with the same harness as *_test.lua files.
(local Temporal (require :temporal))
(local RuntimeScheduler (require :runtime-scheduler))
(local clock (require :clock))

(fn ms [n] (Temporal.duration {:milliseconds n}))

(var s nil)
(before_each #(set s (RuntimeScheduler.create {})))

(describe "schedule-once"
  (fn []
    (test "fires once, at its deadline"
      (fn [t]
        (var fired 0)
        (local h (s:schedule-once {:delay (ms 10) :callback #(set fired (+ fired 1))}))
        (s:advance (ms 9))
        (t:eq fired 0)
        (s:advance (ms 1))
        (t:eq fired 1)
        (t:eq (h:active?) false)))
    (test "a cancelled job never fires"
      (fn [t]
        (local h (s:schedule-once {:delay (ms 10) :callback #(error "fired")}))
        (h:cancel)
        (t:eq (s:run-all) true)))))

(test "a required Fennel module"
  (fn [t]
    (t:eq (clock.format (ms 1500)) "1.5s")))
