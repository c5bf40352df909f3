package keyed

import (
	"testing"
	"unsafe"

	"github.com/metronome-rt/metronome/runtime/internal/timerq"
)

// A drain notes, for each entry, the timer drained prefetchAhead places
// after it, so that the next drain in the same order fetches each timer's
// lines ahead of time; entries too close to the end have no note.
func TestPrefetchNotesTheTimerAhead(t *testing.T) {
	var s Scheduler
	ts := make([]Timer, 10)
	for round := range 2 {
		var back [prefetchAhead]timerq.ID
		for i := range ts {
			s.prefetchAfter(timerq.ID(i), &ts[i], &back[i%prefetchAhead], i >= prefetchAhead)
		}
		for i := range ts {
			var want uintptr
			if j := i + prefetchAhead; j < len(ts) {
				want = uintptr(unsafe.Pointer(&ts[j]))
			}
			var got uintptr
			if i < len(s.ahead) {
				got = s.ahead[i]
			}
			if got != want {
				t.Fatalf("round %d: entry %d notes %#x, want %#x", round, i, got, want)
			}
		}
	}
}
