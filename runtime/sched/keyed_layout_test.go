package sched

import (
	"testing"
	"unsafe"
)

// A tick reads and writes the timer from the end of ext to tick.timer:
// three cache lines when the timer starts on one, which its size class (a
// multiple of 64) makes sure of.
func TestTimerLayoutKeepsATickInThreeLines(t *testing.T) {
	var tm timer
	if got := unsafe.Sizeof(tm); got != timerSize || got%64 != 0 {
		t.Errorf("timer is %d bytes; want timerSize (%d), a multiple of 64", got, timerSize)
	}
	if got := unsafe.Sizeof(slotTimer{}); got != 448 {
		t.Errorf("slotTimer is %d bytes; want 448", got)
	}
	hotEnd := unsafe.Offsetof(tm.tick) + unsafe.Offsetof(tm.tick.timer) + unsafe.Sizeof(tm.tick.timer)
	if first := unsafe.Offsetof(tm.queued); first < 64 || hotEnd > 256 {
		t.Errorf("hot fields at [%d, %d); want them within [64, 256)", first, hotEnd)
	}
}
