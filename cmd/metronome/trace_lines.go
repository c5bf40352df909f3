package main

import (
	"strconv"

	"github.com/metronome-rt/metronome/internal/clip"
	"github.com/metronome-rt/metronome/lua/scripting"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/temporal"
)

// maxTraceText is how many bytes of a script's text (a label, a key, a
// location, an owner id, a list of facets) a trace line shows: each line
// stays short whatever the script names things, so a trace grows with the
// number of events, not with the size of their names.
const maxTraceText = 200

// traceText is s as a bare trace field: its first maxTraceText bytes, then
// "…(N bytes)" when it is longer.
func traceText(s string) string { return clip.TextN(s, maxTraceText) }

// traceQuote is s as a quoted trace field, cut as traceText cuts.
func traceQuote(s string) string { return clip.QuoteN(s, maxTraceText) }

// loop writes the line of a task a script's event loop is about to run:
//
//	ELAPSED  loop  KIND  #ID  LABEL  loop N  at LOOP-TIME
//
// ELAPSED is the host's, LOOP-TIME the loop's own clock; #ID and LABEL
// are - when the task has none.
func (r *recorder) loop(at temporal.Duration, e scripting.LoopEvent) {
	id, label := "-", traceText(e.Label)
	if e.ID > 0 {
		id = "#" + strconv.Itoa(e.ID)
	}
	if label == "" {
		label = "-"
	}
	r.line(at.DecimalSeconds(), "loop", e.Kind, id, label, "loop "+strconv.Itoa(e.Loop), "at "+temporal.Duration(e.At).DecimalSeconds())
}

// jobTraceFields are the fields of a job's trace line. A fire:
//
//	ELAPSED  KIND  #ID  LABEL[  occurrence N][  key "k"  generation G  delivery D  scheduled S  skipped K][  label "NAME"]
//
// A cancel or a drop names the event where a fire names the kind, and the
// kind after the label:
//
//	ELAPSED  cancel  #ID  LABEL  KIND[  key "k"  generation G][  label "NAME"]
//
// LABEL is where the script scheduled the job; NAME is its label option.
func jobTraceFields(at temporal.Duration, f sched.Fire) []string {
	fields := jobTraceCore(at, f)
	if f.Name != "" {
		fields = append(fields, "label "+traceQuote(f.Name))
	}
	return fields
}

func jobTraceCore(at temporal.Duration, f sched.Fire) []string {
	label := traceText(f.Label)
	if label == "" {
		label = "-"
	}
	id := "#" + strconv.FormatUint(f.ID, 10)
	if f.Event != sched.EventFire {
		fields := []string{at.DecimalSeconds(), f.Event.String(), id, label, f.Kind.String()}
		if f.Kind == sched.KindTimer {
			fields = append(fields, "key "+traceQuote(f.Key), "generation "+strconv.FormatUint(f.Generation, 10))
		}
		return fields
	}
	fields := []string{at.DecimalSeconds(), f.Kind.String(), id, label}
	switch f.Kind {
	case sched.KindRecurrence:
		fields = append(fields, "occurrence "+strconv.Itoa(f.ScheduledIndex))
	case sched.KindTimer:
		fields = append(fields, keyedTraceFields(f)...)
	}
	return fields
}

// keyedTraceFields are a keyed tick's trace fields: its key, generation
// and the three indices.
func keyedTraceFields(f sched.Fire) []string {
	return []string{
		"key " + traceQuote(f.Key),
		"generation " + strconv.FormatUint(f.Generation, 10),
		"delivery " + strconv.FormatInt(f.DeliveryIndex, 10),
		"scheduled " + strconv.Itoa(f.ScheduledIndex),
		"skipped " + strconv.FormatInt(f.SkippedTicks, 10),
	}
}
