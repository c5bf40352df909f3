package cadence

import "testing"

func TestLeaseAdmits(t *testing.T) {
	l := Lease{Fence: 7, Deadline: 100}
	for _, tc := range []struct {
		now   int64
		fence uint64
		want  bool
	}{
		{0, 7, true},
		{99, 7, true},
		{100, 7, false}, // the deadline itself is past the lease
		{50, 6, false},  // queued under an older fence
		{50, 8, false},
	} {
		if got := l.Admits(tc.now, tc.fence); got != tc.want {
			t.Errorf("Admits(%d, %d) = %v, want %v", tc.now, tc.fence, got, tc.want)
		}
	}
}
