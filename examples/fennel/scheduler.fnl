;; runtime-scheduler from Fennel: the twin of examples/scheduler.lua, and
;; it prints the same. Run it with
;; `metronome run --fennel path/to/fennel.lua examples/fennel/scheduler.fnl`
;; (or with fennel.lua in this folder, or METRONOME_FENNEL set).
(local Temporal (require :temporal))
(local RuntimeScheduler (require :runtime-scheduler))
(local D Temporal.duration)

(local start (Temporal.instant.parse "2024-03-09T12:00:00Z"))
(local s (RuntimeScheduler.create {:clock (Temporal.clock.fixed start)}))

;; secs formats a duration as exact decimal seconds, never through a float.
(fn secs [d]
  (let [ns (d:total-ns)
        frac (math.fmod ns 1e9)]
    (var out (string.format "%d" (/ (- ns frac) 1e9)))
    (when (not= frac 0)
      (set out (.. out (pick-values 1 (: (: (string.format "%.9f" (/ frac 1e9)) :sub 2) :gsub "0+$" "")))))
    (.. out "s")))

(fn log [what] (print (string.format "  %-13s %s" (secs (- (s:now) start)) what)))
(fn ms [n] (D {:milliseconds n}))

(print "Once, every, and the order of ties (deadline, then creation):")
(local tick (s:schedule-every {:interval (ms 10) :callback #(log "every 10ms")}))
(s:schedule-once {:delay (ms 20)
                  :callback #(log "once at 20ms (created after the interval: runs second)")})
(s:advance (ms 35)) ; fires at 10, 20, 20, 30: an advance catches up every period
(log (.. "advance(35ms) returned; now = " (tostring (s:now))))

(print "\nA jump models a host that was suspended: each due job runs once:")
(s:jump (ms 100)) ; one fire at 135 ms, then back on the 10 ms grid
(log "jump(100ms) returned")
(s:advance (ms 5))
(tick:cancel)
(log (.. "interval cancelled: active? " (tostring (tick:active?))))

(print "\nA recurrence fires each occurrence not before now, in a zone:")
(local noon (Temporal.recurrence-set {:dtstart "2024-03-09T12:00:00" :rrule "FREQ=DAILY"}))
(s:schedule-recurrence
  {:recurrence-set noon :zone-id "America/New_York" :limit 3
   :callback (fn [p]
               (log (string.format "noon in New York, occurrence %d: %s"
                                   (. p :occurrence-index)
                                   (: (. p :scheduled-at) :to-zoned-string "America/New_York"))))})
(each [_ job (ipairs (s:list))]
  (print (string.format "  pending: #%d %s due in %s" job.id job.kind (tostring job.due-in))))
(s:next) ; jump to the earliest deadline and run what is due there
(log "next() ran the first occurrence")
(s:run-all) ; run until nothing is pending (DST starts on the 10th: 23 h later in UTC)
(log (.. "run-all: " (s:count) " jobs pending"))

(print "\nErrors come out of the call that fired the job; nothing is lost:")
(s:schedule-once {:delay (ms 1) :callback #(error "boom")})
(s:schedule-once {:delay (ms 2) :callback #(log "the job after the failing one still runs")})
(let [(ok err) (pcall s.advance s (ms 5))]
  (log (.. "advance failed: " (tostring (not ok)) "; " (err:match "^[^\n]*"))))
(s:advance (ms 5))
(log "the next advance goes on from there")

(print "\nThe fire log (s:trace):")
(s:trace true)
(s:schedule-every {:interval (D {:minutes 1}) :callback (fn [])})
(s:advance (D {:minutes 3}))
(each [_ f (ipairs (s:trace))]
  (print (string.format "  %s  %s #%d" (tostring f.at) f.kind f.id)))
(s:drop)
