package temporal

import (
	"testing"
)

// BenchmarkRecurrenceNext measures the lazy iterator held open a month into
// the set, zone resolution included.
func BenchmarkRecurrenceNext(b *testing.B) {
	for _, c := range []struct{ name, dtstart, rrule string }{
		{"minutely", "2024-01-01T00:00:00", "FREQ=MINUTELY"},
		{"hourly", "2024-01-01T00:30:00", "FREQ=HOURLY"},
		{"daily", "2024-01-01T09:00:00", "FREQ=DAILY"},
		{"minutely-by-hour", "2024-01-01T09:00:00", "FREQ=MINUTELY;BYHOUR=9,10,11,12,13,14,15,16"},
		{"monthly-by-weekday", "2024-01-09T09:00:00", "FREQ=MONTHLY;BYDAY=2TU"},
	} {
		b.Run(c.name, func(b *testing.B) {
			rs, err := NewRecurrenceSet(RecurrenceSpec{DTStart: mustLocal(b, c.dtstart), RRules: []string{c.rrule}})
			if err != nil {
				b.Fatal(err)
			}
			z, err := LoadZone("America/New_York")
			if err != nil {
				b.Fatal(err)
			}
			open := func() *RecurrenceIterator {
				it := rs.Iterator(z, Compatible)
				it.Seek(mustInstant(b, "2024-02-01T00:00:00Z"))
				return it
			}
			it := open()
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, ok, err := it.Next(); !ok || err != nil {
					b.StopTimer()
					it = open()
					b.StartTimer()
				}
			}
		})
	}
}
