package compat

import (
	"testing"

	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// A debouncer holds its arguments only while a call is pending: bounded
// resources, not history.
func TestDebouncerReleasesArguments(t *testing.T) {
	s := sched.New(temporal.Fixed(temporal.FromUnixNano(0)))
	tm := New(s)
	d, err := tm.Debouncer(1, func([]any) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	for _, end := range []struct {
		name string
		do   func() error
	}{
		{"fired", func() error { return s.Advance(temporal.Millisecond) }},
		{"flushed", d.Flush},
		{"cancelled", func() error { d.Cancel(); return nil }},
	} {
		if err := d.Call("big", []byte("payload")); err != nil {
			t.Fatal(err)
		}
		if err := end.do(); err != nil {
			t.Fatal(err)
		}
		if d.args != nil {
			t.Errorf("%s: arguments still held", end.name)
		}
	}
}
