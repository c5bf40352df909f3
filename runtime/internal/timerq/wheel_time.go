package timerq

import (
	"log/slog"
	"math"
	"math/bits"
)

// How the wheel's time moves: the current slot of each level, the search
// for the next occupied one, and the cascade of due entries into the ready
// run.

// setCur moves cur to n, at or after it, and returns the highest level
// whose current slot changed (-1 if none). A level's slot, and its
// rotation, are computed again only when n leaves them, and one step to
// the next slot is an increment: a drain that walks the finest level
// slot by slot divides only when it enters a slot of a coarser one.
func (w *Wheel[V]) setCur(n uint64) int {
	w.cur = n
	top := -1
	for l, u := range w.unit {
		if n < w.sEnd[l] {
			break // the slots above contain this one
		}
		top = l
		if n == w.sEnd[l] && w.idx[l]+1 < w.slots[l] {
			w.idx[l]++
			w.sEnd[l] += u
			continue
		}
		if n >= w.end[l] {
			s := w.span[l]
			e := (n/s + 1) * s
			if e < n { // past 2^64: everything later fits
				e = math.MaxUint64
			}
			w.end[l] = e
		}
		start := w.end[l] - w.span[l]
		w.idx[l] = int(w.udiv[l].div(n - start))
		w.sEnd[l] = start + uint64(w.idx[l]+1)*u
	}
	return top
}

// rel returns when relative to the origin. Only deadlines after done, so
// at or after the origin, are ever made relative.
func (w *Wheel[V]) rel(when int64) uint64 { return uint64(when) - uint64(w.origin) }

// firstSlot returns the first non-empty slot list after the current one on
// the lowest level that has one (the current finest slot included when
// withCur): the one holding the earliest entry. -1 if the levels are empty.
func (w *Wheel[V]) firstSlot(withCur bool) int {
	for l := range w.slots {
		i := w.idx[l]
		if l > 0 || !withCur {
			i++
		}
		if j := w.nextOcc(w.off[l]+i, w.off[l]+w.slots[l]); j >= 0 {
			return j
		}
	}
	return -1
}

// nextOcc returns the first occupied slot list in [from, to), or -1.
func (w *Wheel[V]) nextOcc(from, to int) int {
	for from < to {
		word := w.occ[from>>6] >> (from & 63)
		if word != 0 {
			j := from + bits.TrailingZeros64(word)
			if j < to {
				return j
			}
			return -1
		}
		from = (from | 63) + 1
	}
	return -1
}

// slotStart returns the relative start of list, a slot after the current
// one on its level.
func (w *Wheel[V]) slotStart(list int) uint64 {
	l := len(w.off) - 1
	for w.off[l] > list {
		l--
	}
	return w.end[l] - w.span[l] + uint64(list-w.off[l])*w.unit[l]
}

// advance moves every entry due by upTo into the ready run, in key order,
// and the wheel's time to upTo.
func (w *Wheel[V]) advance(upTo int64) {
	w.fresh = false
	if upTo < w.origin {
		w.done = upTo
		return
	}
	u := w.rel(upTo)
	last := u - u%w.unit[0] // the finest slot upTo falls in
	w.scratch = w.scratch[:0]
	for {
		w.take(w.idx[0], u)
		if w.cur == last {
			break
		}
		n := last
		if j := w.firstSlot(false); j >= 0 {
			n = min(n, w.slotStart(j))
		} else if w.heads[w.overflow] != noEntry {
			m := w.overflowMin()
			n = min(n, m-m%w.span[len(w.span)-1])
		}
		w.moveTo(max(n, w.cur+w.unit[0]), u)
	}
	w.done = upTo
	if len(w.scratch) == 0 {
		return
	}
	// Everything taken is later than everything already ready.
	for _, k := range w.scratch {
		e := w.at(k.id)
		if t := w.readyTail; t == noEntry {
			w.link(w.ready, k.id, e)
		} else {
			e.prev, e.next = t, noEntry
			w.at(t).next = k.id
		}
		w.readyTail = k.id
	}
}

// take moves the entries of finest slot i due by u into scratch.
func (w *Wheel[V]) take(i int, u uint64) {
	list := w.off[0] + i
	from := len(w.scratch)
	for p := w.heads[list]; p != noEntry; {
		e := w.at(p)
		next := e.next
		if w.rel(e.when) <= u {
			w.unlink(p, e)
			w.scratch = append(w.scratch, wkey{e.when, e.seq, p})
		}
		p = next
	}
	sortKeys(w.scratch[from:]) // slots come in order: sort each alone
}

// cmpKey compares key (w1, s1) with key (w2, s2).
func cmpKey(w1 int64, s1 uint64, w2 int64, s2 uint64) int {
	switch {
	case before(w1, s1, w2, s2):
		return -1
	case before(w2, s2, w1, s1):
		return 1
	}
	return 0
}

// sortKeys sorts a slot's due entries by key: a quicksort (median of
// three) down to runs of 16, finished by insertion, with the comparisons
// inline; a slot of a coarse level taken whole holds hundreds.
func sortKeys(s []wkey) {
	for len(s) > 16 {
		m := len(s) / 2
		if s[m].less(s[0]) {
			s[0], s[m] = s[m], s[0]
		}
		if s[len(s)-1].less(s[m]) {
			s[m], s[len(s)-1] = s[len(s)-1], s[m]
			if s[m].less(s[0]) {
				s[0], s[m] = s[m], s[0]
			}
		}
		p := s[m]
		i, j := 0, len(s)-1
		for i <= j {
			for s[i].less(p) {
				i++
			}
			for p.less(s[j]) {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		// Recurse into the smaller side, loop on the larger.
		if j+1 < len(s)-i {
			sortKeys(s[:j+1])
			s = s[i:]
		} else {
			sortKeys(s[i:])
			s = s[:j+1]
		}
	}
	for i := 1; i < len(s); i++ {
		k := s[i]
		j := i
		for ; j > 0 && k.less(s[j-1]); j-- {
			s[j] = s[j-1]
		}
		s[j] = k
	}
}

func (a wkey) less(b wkey) bool {
	return a.when < b.when || a.when == b.when && a.seq < b.seq
}

// overflowMin returns the earliest relative deadline on the overflow level,
// which must not be empty. ovMin is a lower bound (a Remove leaves it);
// below the top level's end it is stale, and the list is read again.
func (w *Wheel[V]) overflowMin() uint64 {
	if w.ovMin < w.end[len(w.end)-1] {
		w.ovMin = math.MaxUint64
		for p := w.heads[w.overflow]; p != noEntry; {
			e := w.at(p)
			w.ovMin = min(w.ovMin, w.rel(e.when))
			p = e.next
		}
	}
	return w.ovMin
}

// moveTo moves the current time forward to n, a finest slot's start, with
// no pending entry in between: entries of the slots n enters on the upper
// levels (and of the overflow level, when n enters a new rotation of the
// top) are placed again, top level first, each straight onto its level.
// When the highest slot entered is due by u as a whole, and nothing was
// placed below it first, its entries go straight to scratch instead: the
// levels below hold nothing of its span, and a long drain moves each
// entry down fewer times.
func (w *Wheel[V]) moveTo(n, u uint64) {
	top := len(w.span) - 1
	newRotation := n >= w.end[top]
	crossed := w.setCur(n)
	refilled := false
	if newRotation && w.heads[w.overflow] != noEntry && w.ovMin < w.end[top] {
		w.refill()
		refilled = true
	}
	for l := crossed; l >= 1; l-- {
		list := w.off[l] + w.idx[l]
		if l == crossed && !refilled && w.sEnd[l]-1 <= u {
			w.takeAll(list)
			return
		}
		w.cascade(list)
	}
}

// takeAll moves every entry of list into scratch, sorted.
func (w *Wheel[V]) takeAll(list int) {
	p := w.heads[list]
	if p == noEntry {
		return
	}
	w.heads[list] = noEntry
	w.occ[list>>6] &^= 1 << (list & 63)
	from := len(w.scratch)
	for p != noEntry {
		e := w.at(p)
		w.scratch = append(w.scratch, wkey{e.when, e.seq, p})
		p = e.next
	}
	sortKeys(w.scratch[from:])
}

// cascade places the entries of list again, relative to the current time.
func (w *Wheel[V]) cascade(list int) {
	p := w.heads[list]
	if p == noEntry {
		return
	}
	w.heads[list] = noEntry
	w.occ[list>>6] &^= 1 << (list & 63)
	for p != noEntry {
		e := w.at(p)
		next := e.next
		w.place(p, e)
		p = next
	}
}

// refill brings the overflow entries that the top level now covers back
// onto the levels, and recomputes the earliest of those that stay.
func (w *Wheel[V]) refill() {
	p := w.heads[w.overflow]
	w.heads[w.overflow] = noEntry
	back, stay := 0, 0
	w.ovMin = math.MaxUint64
	for p != noEntry {
		e := w.at(p)
		next := e.next
		if w.rel(e.when) < w.end[len(w.end)-1] {
			back++
		} else {
			stay++
		}
		w.place(p, e)
		p = next
	}
	if w.log != nil {
		w.trace("wheel: refill from overflow", slog.Int("back", back), slog.Int("stay", stay))
	}
}
