package temporal

import "errors"

// FirstRejected looks for the first occurrence of the set at or after from
// and before until whose local time falls into a gap or an overlap of z,
// and returns the *ResolveError that Reject gives for it, or nil. With
// limit > 0 only the first limit occurrences at or after from count: a
// rejected local time past them is not reported.
//
// It looks only around z's transitions (about two a year in a zone with
// DST), not through every occurrence, so a minutely rule over ten years
// costs a few thousand steps. Rules with BY* parts step through rrule-go,
// which cannot skip ahead: their cost grows with the occurrences between
// from and the last transition before until.
func (rs *RecurrenceSet) FirstRejected(z *Zone, from, until Instant, limit int) error {
	if !from.Before(until) {
		return nil
	}
	it := rs.Iterator(z, Reject)
	it.Seek(from)
	fs, _ := floorDiv(from.ns, 1e9)
	us, _ := floorDiv(until.ns, 1e9)
	p := z.periodAt(fs)
	for p.end < farFuture && p.end < us {
		q := z.periodAt(p.end)
		if delta := abs64(q.off - p.off); delta > 0 {
			// The walls the transition skips or repeats resolve within
			// delta of it; Seek keeps every wall at or after the window.
			lo, hi := p.end-delta-1, p.end+delta+1
			if lo >= fs {
				it.Seek(Instant{ns: lo * 1e9})
			}
			more, err := it.firstRejectedBefore(hi, us)
			if err != nil {
				if limit > 0 && !rs.withinLimit(z, from, err, limit) {
					return nil
				}
				return err
			}
			if !more {
				return nil
			}
		}
		p = q
	}
	return nil
}

// firstRejectedBefore walks the occurrences until one at or after hi (Unix
// seconds) and returns the first rejection among them, or the first one
// found before until; more is false once the set is exhausted or reaches
// until. The occurrence it stops at is consumed: it is not a rejection,
// and the next window starts after it.
func (it *RecurrenceIterator) firstRejectedBefore(hi, until int64) (more bool, err error) {
	for {
		x, ok, err := it.nextItem()
		switch {
		case err != nil || !ok || x.key >= until:
			// err is a set that cannot expand in the zone: the first
			// occurrence reported it already.
			return false, nil
		case x.kind != kindOK:
			_, err := it.emit(x)
			var re *ResolveError
			if errors.As(err, &re) && re.Kind == "range" {
				return false, nil // past 2262: nothing more to resolve
			}
			return true, err
		case x.key >= hi:
			return true, nil
		}
	}
}

// withinLimit reports whether the rejected local time of rej comes before
// the limit-th occurrence at or after from: it counts them, up to limit.
func (rs *RecurrenceSet) withinLimit(z *Zone, from Instant, rej error, limit int) bool {
	it := rs.Iterator(z, Reject)
	it.Seek(from)
	for n := 0; n < limit; {
		_, ok, err := it.Next()
		switch {
		case err != nil && sameLocal(err, rej):
			return true
		case !ok:
			return false
		case err == nil:
			n++
		}
	}
	return false
}

func sameLocal(a, b error) bool {
	var ra, rb *ResolveError
	return errors.As(a, &ra) && errors.As(b, &rb) && ra.Local == rb.Local
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
