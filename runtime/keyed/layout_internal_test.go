package keyed

import (
	"testing"
	"unsafe"
)

// A tick touches a Timer's first two cache lines only: the line the worker
// writes (state, cadence) and the one it reads (where the callback is).
// The Timer's size class, 192 bytes, starts every object on a line.
func TestTimerHotFieldsFillTwoLines(t *testing.T) {
	var tm Timer
	if got := unsafe.Offsetof(tm.where); got != 64 {
		t.Errorf("where at %d, want 64: the first line is the worker's", got)
	}
	if got := unsafe.Offsetof(tm.s); got != 128 {
		t.Errorf("the cold fields start at %d, want 128", got)
	}
	if got := unsafe.Sizeof(tm); got > 192 {
		t.Errorf("Timer is %d bytes, want at most 192", got)
	}
}
