package temporal_test

import (
	"fmt"
	"math"

	"github.com/metronome-rt/metronome/temporal"
)

func ExampleZone_Resolve() {
	ny, _ := temporal.LoadZone("America/New_York")
	gap, _ := temporal.ParseLocalDateTime("2024-03-10T02:30:00") // clocks jump 02:00 -> 03:00
	for _, d := range []temporal.Disambiguation{temporal.Compatible, temporal.Earlier, temporal.Later, temporal.Reject} {
		at, err := ny.Resolve(gap, d)
		if err != nil {
			fmt.Println(d, "error:", err)
			continue
		}
		s, _ := at.ZonedString("America/New_York")
		fmt.Println(d, s)
	}
	// Output:
	// compatible 2024-03-10T03:30:00-04:00[America/New_York]
	// earlier 2024-03-10T01:30:00-05:00[America/New_York]
	// later 2024-03-10T03:30:00-04:00[America/New_York]
	// reject error: local time 2024-03-10T02:30:00 does not exist in America/New_York (skipped by a DST gap)
}

func ExampleRecurrenceSet_Occurrences() {
	dtstart, _ := temporal.ParseLocalDateTime("2018-11-02T00:00:00")
	set, _ := temporal.NewRecurrenceSet(temporal.RecurrenceSpec{DTStart: dtstart, RRules: []string{"FREQ=DAILY;COUNT=4"}})
	// Midnight of 2018-11-04 did not exist in Sao Paulo; expanding in wall
	// time and resolving afterwards keeps the day (and the count).
	list, _ := set.Occurrences(temporal.ExpandOptions{Zone: "America/Sao_Paulo", Disambiguation: temporal.Compatible})
	for _, at := range list {
		s, _ := at.ZonedString("America/Sao_Paulo")
		fmt.Println(s)
	}
	// Output:
	// 2018-11-02T00:00:00-03:00[America/Sao_Paulo]
	// 2018-11-03T00:00:00-03:00[America/Sao_Paulo]
	// 2018-11-04T01:00:00-02:00[America/Sao_Paulo]
	// 2018-11-05T00:00:00-02:00[America/Sao_Paulo]
}

func ExampleDurationFromMillis() {
	d, _ := temporal.DurationFromMillis(16.6)
	fmt.Println(d, d.Nanoseconds())
	_, err := temporal.DurationFromMillis(math.Inf(1))
	fmt.Println(err)
	// Output:
	// PT0.0166S 16600000
	// milliseconds must be finite, got +Inf
}
