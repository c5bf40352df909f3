package debounce

import (
	"encoding"
	"errors"
	"fmt"
	"math"
	"slices"
)

// KeyState is one key's state, as State reports it and SetState puts it
// back. Instants are nanoseconds on the Debouncer's clock (Now's
// UnixNano).
type KeyState[K comparable, A any] struct {
	Key K
	// Burst says a wake-up is pending at Wake; Ceil is the burst's
	// ceiling (math.MaxInt64: none).
	Burst      bool
	Wake, Ceil int64
	// Due says a touch waits for the trailing edge, with Args.
	Due  bool
	Args A
	// Floor is the throttle floor: no edge fires before it (0: none).
	Floor int64
	// Timer is the burst's wake-up, as the Timers' AfterFunc returned it
	// (State only).
	Timer Timer
}

// State is a Debouncer's keys and the state of the generator that draws
// its ceilings, as plain data.
type State[K comparable, A any] struct {
	Keys []KeyState[K, A]
	// Draws is the generator's state (encoding.BinaryMarshaler's text),
	// nil when the Source cannot tell; Spare is a draw a refused touch
	// gave back, when HasSpare.
	Draws    []byte
	Spare    int64
	HasSpare bool
}

// State returns d's keys, in the order of their wake-ups (bursts first,
// by Wake, then floors), and its generator's state.
func (d *Debouncer[K, A]) State() State[K, A] {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.sweep(d.clock.Now().UnixNano())
	st := State[K, A]{Spare: d.spare, HasSpare: d.spared}
	if m, ok := d.src.(encoding.BinaryMarshaler); ok {
		st.Draws, _ = m.MarshalBinary()
	}
	for key, e := range d.keys {
		burst := e.pending()
		ks := KeyState[K, A]{Key: key, Floor: e.floor, Timer: e.timer}
		if burst {
			ks.Burst, ks.Wake, ks.Ceil, ks.Due, ks.Args = true, e.wake, e.ceil, e.due, e.args
		}
		st.Keys = append(st.Keys, ks)
	}
	slices.SortStableFunc(st.Keys, func(a, b KeyState[K, A]) int {
		switch {
		case a.Burst != b.Burst:
			if a.Burst {
				return -1
			}
			return 1
		case a.Wake != b.Wake:
			if a.Wake < b.Wake {
				return -1
			}
			return 1
		case a.Floor < b.Floor:
			return -1
		case a.Floor > b.Floor:
			return 1
		}
		return 0
	})
	return st
}

// SetState puts st back into d, which must hold no keys. For each key
// with a burst, arm is called with the key and the function its wake-up
// runs; it returns the Timer that runs it (scheduled by the caller at
// the key's Wake), or nil when the wake-up is dropped: the burst then
// ends without firing and the key keeps its floor. SetState calls arm
// without d's lock.
func (d *Debouncer[K, A]) SetState(st State[K, A], arm func(key K, wake func() error) Timer) error {
	d.mu.Lock()
	if len(d.keys) > 0 {
		d.mu.Unlock()
		return errors.New("debounce: SetState: the debouncer has keys")
	}
	if st.Draws != nil {
		u, ok := d.src.(encoding.BinaryUnmarshaler)
		if !ok {
			d.mu.Unlock()
			return errors.New("debounce: SetState: the Source cannot take back a generator state")
		}
		if err := u.UnmarshalBinary(st.Draws); err != nil {
			d.mu.Unlock()
			return fmt.Errorf("debounce: SetState: %w", err)
		}
	}
	d.spare, d.spared = st.Spare, st.HasSpare
	type armed struct {
		key K
		e   *entry[K, A]
		gen uint64
	}
	var arms []armed
	for _, ks := range st.Keys {
		e := d.newEntry(ks.Key)
		d.keys[ks.Key] = e
		e.floor = ks.Floor
		if ks.Floor > 0 {
			d.floors = append(d.floors, floorAt[K]{ks.Floor, ks.Key})
		}
		if ks.Burst {
			e.gen++
			e.burst, e.wake, e.ceil, e.due, e.args = true, ks.Wake, ks.Ceil, ks.Due, ks.Args
			if e.ceil == 0 {
				e.ceil = math.MaxInt64
			}
			arms = append(arms, armed{ks.Key, e, e.gen})
		}
	}
	slices.SortStableFunc(d.floors[d.head:], func(a, b floorAt[K]) int {
		switch {
		case a.at < b.at:
			return -1
		case a.at > b.at:
			return 1
		}
		return 0
	})
	d.mu.Unlock()
	for _, a := range arms {
		key, e, gen := a.key, a.e, a.gen
		t := arm(key, func() error { return d.wake(key, e, gen) })
		d.mu.Lock()
		if d.current(key, e, gen) {
			if t != nil {
				e.timer = t
			} else {
				d.drop(key, e, d.clock.Now().UnixNano())
			}
		}
		d.mu.Unlock()
	}
	return nil
}
