package temporal

// Spec returns a spec that NewRecurrenceSet turns into a set with the same
// occurrences: DTStart, the rules' texts as given, and the RDATEs and
// EXDATEs (sorted, each once; DTStart is not repeated among the RDATEs).
// A caller that saves a set keeps this and builds the set again from it.
func (rs *RecurrenceSet) Spec() RecurrenceSpec {
	spec := RecurrenceSpec{DTStart: rs.dtstart}
	for _, r := range rs.rules {
		spec.RRules = append(spec.RRules, r.text)
	}
	for _, r := range rs.exrules {
		spec.ExRules = append(spec.ExRules, r.text)
	}
	for _, w := range rs.rdates {
		if w != rs.start {
			spec.RDates = append(spec.RDates, localFromWall(w, 0))
		}
	}
	for _, w := range rs.exdates {
		spec.ExDates = append(spec.ExDates, localFromWall(w, 0))
	}
	return spec
}
