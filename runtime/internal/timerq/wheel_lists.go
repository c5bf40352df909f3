package timerq

import "log/slog"

// The wheel's arena and lists: where an entry lives, and how it moves from
// one list to another.

func (w *Wheel[V]) at(id int32) *wentry[V] {
	return &w.pages[id>>pageBits][id&pageMask]
}

// valid reports whether id names a live entry.
func (w *Wheel[V]) valid(id ID) bool {
	return id >= 0 && int32(id) < w.size && w.at(int32(id)).prev != freeEntry
}

// freed returns how many IDs wait on the free list: handed out, not pending.
func (w *Wheel[V]) freed() int { return int(w.size) - w.n }

// roomy reports whether a Push would allocate nothing: an ID is free, or
// the last arena page has room.
func (w *Wheel[V]) roomy() bool {
	return w.free != noEntry || w.size&pageMask != 0 && w.size < maxWheel
}

func (w *Wheel[V]) grow() int32 {
	if w.size >= maxWheel {
		panic("timerq.Wheel.Push: the wheel holds 2^30-1 entries")
	}
	if int(w.size)>>pageBits == len(w.pages) {
		w.pages = append(w.pages, new([1 << pageBits]wentry[V]))
	}
	id := w.size
	w.size++
	w.at(id).next = noEntry
	return id
}

// place links entry id onto the list its deadline belongs to.
func (w *Wheel[V]) place(id int32, e *wentry[V]) {
	if !w.fresh && e.when <= w.done || e.when < w.origin {
		w.readyInsert(id, e)
		return
	}
	r := w.rel(e.when)
	for l, end := range w.end {
		if r < end {
			start := end - w.span[l]
			w.link(w.off[l]+int(w.udiv[l].div(r-start)), id, e)
			return
		}
	}
	w.ovMin = min(w.ovMin, r)
	if w.heads[w.overflow] == noEntry {
		w.ovMin = r
	}
	w.link(w.overflow, id, e)
	if w.log != nil {
		w.trace("wheel: overflow", slog.Int64("when", e.when), slog.Int64("horizon-end", int64(w.end[len(w.end)-1])+w.origin))
	}
}

// link puts entry id first on list.
func (w *Wheel[V]) link(list int, id int32, e *wentry[V]) {
	h := w.heads[list]
	e.next, e.prev = h, listBase+int32(list)
	if h != noEntry {
		w.at(h).prev = id
	} else if list < w.overflow {
		w.occ[list>>6] |= 1 << (list & 63)
	}
	w.heads[list] = id
}

// unlink takes entry id off its list.
func (w *Wheel[V]) unlink(id int32, e *wentry[V]) {
	if e.next != noEntry {
		w.at(e.next).prev = e.prev
	}
	if e.prev >= 0 {
		w.at(e.prev).next = e.next
		if e.next == noEntry && id == w.readyTail {
			w.readyTail = e.prev
		}
		return
	}
	list := int(e.prev - listBase)
	w.heads[list] = e.next
	if e.next == noEntry {
		if list < w.overflow {
			w.occ[list>>6] &^= 1 << (list & 63)
		} else if list == w.ready {
			w.readyTail = noEntry
		}
	}
}

// readyInsert puts entry id into the ready run by key, searching from the
// end: a deadline of now, the usual late one, lands there at once.
func (w *Wheel[V]) readyInsert(id int32, e *wentry[V]) {
	p := w.readyTail
	for p != noEntry {
		q := w.at(p)
		if !before(e.when, e.seq, q.when, q.seq) {
			break
		}
		p = q.prev
		if p < 0 {
			p = noEntry
		}
	}
	if p == noEntry {
		w.link(w.ready, id, e)
		if e.next == noEntry {
			w.readyTail = id
		}
		return
	}
	q := w.at(p)
	e.prev, e.next = p, q.next
	if q.next != noEntry {
		w.at(q.next).prev = id
	} else {
		w.readyTail = id
	}
	q.next = id
}

// release frees entry id and returns its value.
func (w *Wheel[V]) release(id int32, e *wentry[V]) V {
	v := e.v
	var zero V
	e.v = zero
	e.prev, e.next = freeEntry, w.free
	w.free = id
	w.n--
	return v
}
