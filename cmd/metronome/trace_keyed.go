package main

import (
	"strconv"

	"github.com/metronome-rt/metronome/runtime/sched"
)

// keyedTraceFields are a keyed tick's trace fields: its key, generation
// and the three indices.
func keyedTraceFields(f sched.Fire) []string {
	return []string{
		"key " + strconv.Quote(f.Key),
		"generation " + strconv.FormatUint(f.Generation, 10),
		"delivery " + strconv.FormatInt(f.DeliveryIndex, 10),
		"scheduled " + strconv.Itoa(f.ScheduledIndex),
		"skipped " + strconv.FormatInt(f.SkippedTicks, 10),
	}
}

// laneLabelOf is the timeline label of f's job: a keyed timer's lane
// names its key, so the generations of one key share a lane.
func laneLabelOf(f sched.Fire) string {
	if f.Kind == sched.KindTimer {
		return strconv.Quote(f.Key) + " " + f.Label
	}
	return f.Label
}
