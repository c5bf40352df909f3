;; Keyed timers from Fennel: the twin of examples/keyed_timers.lua, and it
;; prints the same. One timer per key, generations, tick information,
;; overrun policies and an owner's lease, all in virtual time. Run it with
;; `metronome run --fennel path/to/fennel.lua examples/fennel/keyed_timers.fnl`.
(local Temporal (require :temporal))
(local RuntimeScheduler (require :runtime-scheduler))

(local start (Temporal.instant.parse "2024-03-09T12:00:00Z"))
(local s (RuntimeScheduler.create {:clock (Temporal.clock.fixed start)}))
(fn ms [n] (Temporal.duration {:milliseconds n}))
(fn at [] (string.format "%d ms" (: (- (s:now) start) :total-ms)))
(fn show [name tick]
  (print (string.format "  %-8s %-10s generation %d  delivery %d  scheduled %d  skipped %d"
                        name (at) tick.generation tick.delivery-index
                        tick.scheduled-index tick.skipped-ticks)))

(print "A handler slower than its period never runs twice at once; skip-late-ticks")
(print "delivers only the latest tick when it is free again:")
(local regen (s:register-timer
               {:key :regen :interval (ms 10) :label :regen
                :callback (fn [tick]
                            (show :regen tick)
                            ;; this handler takes 25 ms of virtual time; the nil
                            ;; keeps tick:wait out of tail position (see docs/fennel.md)
                            (when (= tick.delivery-index 1) (tick:wait (ms 25)))
                            nil)}))
(s:advance (ms 50))
(regen:cancel)

(print "\ncatch-up-bounded delivers up to max-catch-up-ticks of the missed ticks, in order,")
(print "after the host was suspended (jump):")
(local autosave (s:register-timer {:key :autosave :interval (ms 10) :overrun :catch-up-bounded
                                   :max-catch-up-ticks 2 :callback #(show :autosave $1)}))
(s:jump (ms 45)) ; ticks 1 to 4 came due while suspended: 3 and 4 run now
(autosave:cancel)

(print "\nRe-registering a key starts a new generation; the old one's pending tick never runs,")
(print "and its cancel completion carries the cleanup's result:")
(local first (s:register-timer {:key :spawn :interval (ms 10) :callback #(show :spawn $1)
                                :on-cancel #(error "could not despawn" 0)}))
(s:register-timer {:key :spawn :interval (ms 15) :callback #(show :spawn $1)})
(local done (first:cancel))
(let [(ok err) (done:result)]
  (print (.. "  old generation done? " (tostring (done:done?)) "; result: "
             (tostring ok) ", " (tostring err))))
(s:advance (ms 15))
(s:clear)

(print "\nAn owner's lease: past its deadline no tick starts, and renewing resumes at the next tick:")
(local spot (s:owner {:lease (ms 25)}))
(spot:register-timer {:key :pulse :interval (ms 10) :callback #(show :pulse $1)})
(s:advance (ms 60)) ; ticks at 10 and 20; the lease ends at 25
(print (.. "  " (at) " renew"))
(spot:renew)
(s:advance (ms 20))
