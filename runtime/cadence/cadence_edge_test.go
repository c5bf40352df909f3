package cadence

import "testing"

// A grid anchored before the clock's origin repeats like any other: the
// overflow check of at must not wrap for a negative anchor and put every
// tick after the first at Never.
func TestCadenceNegativeAnchor(t *testing.T) {
	c := New(-100, 10, Overrun{})
	if got := takeAll(&c, -100); !equalTicks(got, []Tick{{1, 1, 0}}) {
		t.Fatal(got)
	}
	if c.Due() != -90 {
		t.Fatalf("due %d, want -90", c.Due())
	}
	if got := takeAll(&c, 5); !equalTicks(got, []Tick{{2, 11, 9}}) || c.Due() != 10 {
		t.Fatalf("%v, due %d", got, c.Due())
	}
}
