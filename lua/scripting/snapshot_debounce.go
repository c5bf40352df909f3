package scripting

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/runtime/debounce"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/runtime/sched/snapshot"
	"github.com/metronome-rt/metronome/temporal"
)

// A debouncer's keys in a snapshot. Each pending key is a one-shot job of
// the scheduler, saved with the scheduler's jobs (its label is the
// debouncer's, its seq its creation order); the "debounce" section adds
// what the debouncer holds: per key its wake-up, force ceiling, throttle
// floor, whether a touch waits and that touch's arguments, and the
// generator that draws ceilings. A debouncer is bound again by its label:
// restore loads the keys into the debouncer of the restoring scheduler
// with that label, which the script makes (with the same options) before
// restore. A debouncer without a label, a key that is not a string,
// number or boolean and arguments that are not plain data cannot be
// saved.

// debounceSnapshot is one labelled debouncer's state in a snapshot.
// Instants are durations after the snapshot's now.
type debounceSnapshot struct {
	Label string            `json:"label"`
	Draws []byte            `json:"draws,omitempty"`
	Spare *int64            `json:"spare,omitempty"`
	Keys  []debounceKeySnap `json:"keys,omitempty"`
}

type debounceKeySnap struct {
	Key     any    `json:"key"`
	Seq     uint64 `json:"seq,omitempty"` // the wake-up job's creation number: a burst is pending
	Wake    string `json:"wake,omitempty"`
	Ceiling string `json:"ceiling,omitempty"`
	Floor   string `json:"floor,omitempty"`
	Due     bool   `json:"due,omitempty"`
	Args    []any  `json:"args,omitempty"`
}

// debouncersKey holds a state's labelled debouncers in its registry.
const debouncersKey = "metronome.debouncers"

type debouncerRef struct {
	ld    *luaKeyDebouncer
	label string
}

// debouncers is a state's debouncers, by the scheduler they run on.
type debouncers map[*sched.Scheduler][]debouncerRef

func debouncersOf(L *lua.LState) debouncers {
	reg := L.G.Registry
	if ud, ok := reg.RawGetString(debouncersKey).(*lua.LUserData); ok {
		return ud.Value.(debouncers)
	}
	m := debouncers{}
	ud := L.NewUserData()
	ud.Value = m
	reg.RawSetString(debouncersKey, ud)
	return m
}

// trackDebouncer notes ld, made on s with the label option label, for
// snapshot and restore.
func trackDebouncer(L *lua.LState, s *sched.Scheduler, ld *luaKeyDebouncer, label string) {
	m := debouncersOf(L)
	for other := range m { // a dropped scheduler's are let go
		if other.Dropped() {
			delete(m, other)
		}
	}
	m[s] = append(m[s], debouncerRef{ld, label})
}

func checkDebounceSnapshot(ds []debounceSnapshot) error {
	labels := map[string]bool{}
	for i, d := range ds {
		if d.Label == "" || labels[d.Label] {
			return fmt.Errorf("snapshot field debounce[%d].label: want a non-empty label no other debouncer has, got %q", i, d.Label)
		}
		labels[d.Label] = true
		for k, ks := range d.Keys {
			where := fmt.Sprintf("debounce[%d].keys[%d]", i, k)
			switch v := ks.Key.(type) {
			case string, bool:
			case float64:
				if math.IsNaN(v) {
					return fmt.Errorf("snapshot field %s.key: want a string, number or boolean, got NaN", where)
				}
			default:
				return fmt.Errorf("snapshot field %s.key: want a string, number or boolean, got %v", where, ks.Key)
			}
			for f, text := range map[string]string{"wake": ks.Wake, "ceiling": ks.Ceiling, "floor": ks.Floor} {
				if text == "" {
					continue
				}
				if _, err := temporal.ParseDuration(text); err != nil {
					return fmt.Errorf("snapshot field %s.%s: %v", where, f, err)
				}
			}
			if (ks.Seq != 0) != (ks.Wake != "") {
				return fmt.Errorf("snapshot field %s: want seq and wake together (a pending burst) or neither", where)
			}
		}
	}
	return nil
}

// keyValue is a debouncer's key as plain data, or false when it is not a
// string, number or boolean.
func keyValue(v lua.LValue) (any, bool) {
	switch v := v.(type) {
	case lua.LString:
		return string(v), true
	case lua.LNumber:
		f := float64(v)
		return f, !math.IsInf(f, 0)
	case lua.LBool:
		return bool(v), true
	}
	return nil, false
}

func keyLua(v any) lua.LValue {
	switch v := v.(type) {
	case string:
		return lua.LString(v)
	case float64:
		return lua.LNumber(v)
	case bool:
		return lua.LBool(v)
	}
	return lua.LNil
}

// argsPlain is a touch's arguments as plain data (an empty table stays a
// table), or an error naming what is not.
func argsPlain(args []lua.LValue) ([]any, error) {
	out := make([]any, len(args))
	for i, a := range args {
		if t, ok := a.(*lua.LTable); ok && t.Len() == 0 {
			empty := true
			t.ForEach(func(lua.LValue, lua.LValue) { empty = false })
			if empty {
				out[i] = map[string]any{}
				continue
			}
		}
		v, err := toPlain(a, fmt.Sprintf("argument %d", i+1), 0)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

func argsLua(L *lua.LState, args []any) []lua.LValue {
	out := make([]lua.LValue, len(args))
	for i, a := range args {
		if m, ok := a.(map[string]any); ok && len(m) == 0 {
			out[i] = L.NewTable()
			continue
		}
		out[i] = fromPlain(L, a)
	}
	return out
}

// saveDebouncers adds the debouncers of s to snap: a labelled one's keys
// go into its "debounce" section; the jobs of one without a label, and of
// keys whose key or arguments are not plain data, are refused.
func saveDebouncers(L *lua.LState, s *sched.Scheduler, snap *luaSnapshot, refused []snapshot.Refused) []snapshot.Refused {
	info := map[uint64]sched.JobInfo{}
	for _, j := range s.List() {
		if _, ok := j.Data.(debounceKey); ok {
			info[j.ID] = j
		}
	}
	if len(info) == 0 && len(debouncersOf(L)[s]) == 0 {
		return refused
	}
	drop := map[uint64]string{} // job id: why it is refused
	for id := range info {
		drop[id] = "a key of a debouncer without a label (give s:debouncer a :label to save it)"
	}
	now := int64(s.Elapsed())
	after := func(at int64) string { return temporal.Duration(at - now).String() }
	for _, r := range debouncersOf(L)[s] {
		if r.label == "" {
			continue
		}
		st := r.ld.d.State()
		ds := debounceSnapshot{Label: r.label, Draws: st.Draws}
		if st.HasSpare {
			ds.Spare = &st.Spare
		}
		for _, ks := range st.Keys {
			var id uint64
			if w, ok := ks.Timer.(debounceWake); ok && ks.Burst {
				id = w.h.ID()
				delete(drop, id)
			}
			key, ok := keyValue(ks.Key)
			if !ok {
				if id != 0 {
					drop[id] = fmt.Sprintf("a key (%s) of debouncer %q that is not a string, number or boolean", describe(ks.Key), r.label)
				}
				continue
			}
			k := debounceKeySnap{Key: key}
			if ks.Floor > 0 {
				k.Floor = after(ks.Floor)
			}
			if ks.Burst {
				if id == 0 {
					continue // its wake-up is not a job of s: nothing to save
				}
				args, err := argsPlain(ks.Args)
				if err != nil {
					drop[id] = fmt.Sprintf("a key of debouncer %q whose %v", r.label, err)
					continue
				}
				k.Seq, k.Wake, k.Due, k.Args = id, after(ks.Wake), ks.Due, args
				if ks.Ceil != math.MaxInt64 {
					k.Ceiling = after(ks.Ceil)
				}
			}
			ds.Keys = append(ds.Keys, k)
		}
		snap.Debounce = append(snap.Debounce, ds)
	}
	if len(drop) == 0 {
		return refused
	}
	jobs := snap.Jobs[:0]
	for _, j := range snap.Jobs {
		id := j.ID
		if id == 0 {
			id = j.Seq
		}
		if _, ok := drop[id]; !ok {
			jobs = append(jobs, j)
		}
	}
	snap.Jobs = jobs
	kept := refused[:0]
	for _, r := range refused {
		if _, ok := drop[r.ID]; !ok {
			kept = append(kept, r)
		}
	}
	refused = kept
	for id, why := range drop {
		j := info[id]
		refused = append(refused, snapshot.Refused{ID: j.ID, Kind: j.Kind.String(), Label: j.Name, Where: j.Label, Reason: why})
	}
	sort.SliceStable(refused, func(a, b int) bool { return refused[a].ID < refused[b].ID })
	return refused
}

// debouncePlan is the debouncers' part of a restore: their keys' wake-up
// jobs are bound before Restore; the debouncers take their keys after it
// succeeded (commit).
type debouncePlan struct {
	L    *lua.LState
	s    *sched.Scheduler
	snap *luaSnapshot
	deb  []*debouncerRestore
	skip bool
	left []snapshot.Refused // with skip: the jobs of debouncers not bound
}

type debouncerRestore struct {
	ld   *luaKeyDebouncer
	src  *debounceSnapshot
	keys map[uint64]*keyRestore // by wake-up job
}

type keyRestore struct {
	fire  func() error // the debouncer's wake-up, set by commit
	h     sched.Handle
	armed bool
}

// planDebouncers binds each debouncer section of snap to the debouncer of
// s with its label, and the keys' jobs to their debouncer through ro.
func planDebouncers(L *lua.LState, s *sched.Scheduler, snap *luaSnapshot, ro *sched.RestoreOptions) (*debouncePlan, error) {
	p := &debouncePlan{L: L, s: s, snap: snap, skip: ro.Skip}
	if len(snap.Debounce) == 0 {
		return p, nil
	}
	byLabel := map[string][]*luaKeyDebouncer{}
	for _, r := range debouncersOf(L)[s] {
		if r.label != "" {
			byLabel[r.label] = append(byLabel[r.label], r.ld)
		}
	}
	bySeq := map[uint64]*keyRestore{}
	for i := range snap.Debounce {
		ds := &snap.Debounce[i]
		why := ""
		switch lds := byLabel[ds.Label]; {
		case len(lds) == 0:
			why = fmt.Sprintf("no debouncer labelled %q on the scheduler restored into (make it, with the same options, before restore)", ds.Label)
		case len(lds) > 1:
			why = fmt.Sprintf("%d debouncers labelled %q on the scheduler restored into: a label binds one", len(lds), ds.Label)
		case len(lds[0].d.State().Keys) > 0:
			why = fmt.Sprintf("the debouncer labelled %q has keys: restore into one with none", ds.Label)
		default:
			dr := &debouncerRestore{ld: lds[0], src: ds, keys: map[uint64]*keyRestore{}}
			for _, k := range ds.Keys {
				if k.Seq != 0 {
					kr := &keyRestore{}
					dr.keys[k.Seq] = kr
					bySeq[k.Seq] = kr
				}
			}
			p.deb = append(p.deb, dr)
		}
		if why != "" {
			if !p.skip {
				return nil, errors.New(why)
			}
			p.leaveOut(ds, why)
		}
	}
	keys := map[uint64]lua.LValue{}
	for _, dr := range p.deb {
		for _, k := range dr.src.Keys {
			if k.Seq != 0 {
				keys[k.Seq] = keyLua(k.Key)
			}
		}
	}
	ro.Job = func(sj snapshot.Job) (func() error, any) {
		kr := bySeq[sj.Seq]
		if kr == nil {
			return nil, nil
		}
		return func() error {
			if kr.fire == nil {
				return nil
			}
			return kr.fire()
		}, debounceKey{keys[sj.Seq]}
	}
	ro.Restored = func(seq uint64, h sched.Handle) {
		if kr := bySeq[seq]; kr != nil {
			kr.h, kr.armed = h, true
		}
	}
	return p, nil
}

// owns reports whether seq is the wake-up job of a debouncer's key.
func (p *debouncePlan) owns(seq uint64) bool {
	for _, dr := range p.deb {
		if dr.keys[seq] != nil {
			return true
		}
	}
	return false
}

// leaveOut takes the jobs of ds's keys out of the snapshot, as left out.
func (p *debouncePlan) leaveOut(ds *debounceSnapshot, why string) {
	seqs := map[uint64]bool{}
	for _, k := range ds.Keys {
		seqs[k.Seq] = k.Seq != 0
	}
	jobs := p.snap.Jobs[:0]
	for _, j := range p.snap.Jobs {
		if !seqs[j.Seq] {
			jobs = append(jobs, j)
			continue
		}
		id := j.ID
		if id == 0 {
			id = j.Seq
		}
		p.left = append(p.left, snapshot.Refused{ID: id, Kind: sched.KindOnce.String(), Label: j.Label, Where: j.Where, Reason: why})
	}
	p.snap.Jobs = jobs
}

// commit loads each debouncer's keys, once Restore put their jobs back.
func (p *debouncePlan) commit() error {
	if len(p.deb) == 0 {
		return nil
	}
	snapNow, _ := temporal.ParseInstant(p.snap.Now)
	down, _ := p.s.Now().Sub(snapNow)
	base := int64(p.s.Elapsed()) - int64(down) // the snapshot's now on the debouncer's clock
	at := func(text string) int64 {
		if text == "" {
			return 0
		}
		d, _ := temporal.ParseDuration(text)
		v := base + int64(d)
		if (d > 0 && v < base) || (d < 0 && v > base) {
			return math.MaxInt64
		}
		return v
	}
	var errs []error
	for _, dr := range p.deb {
		st := debounce.State[lua.LValue, []lua.LValue]{Draws: dr.src.Draws}
		if dr.src.Spare != nil {
			st.Spare, st.HasSpare = *dr.src.Spare, true
		}
		bySeq := map[string]*keyRestore{}
		for _, k := range dr.src.Keys {
			ks := debounce.KeyState[lua.LValue, []lua.LValue]{Key: keyLua(k.Key), Floor: at(k.Floor)}
			if k.Seq != 0 {
				ks.Burst, ks.Wake, ks.Due, ks.Args = true, at(k.Wake), k.Due, argsLua(p.L, k.Args)
				ks.Ceil = math.MaxInt64
				if k.Ceiling != "" {
					ks.Ceil = at(k.Ceiling)
				}
				bySeq[keyString(ks.Key)] = dr.keys[k.Seq]
			}
			st.Keys = append(st.Keys, ks)
		}
		err := dr.ld.d.SetState(st, func(key lua.LValue, wake func() error) debounce.Timer {
			kr := bySeq[keyString(key)]
			if kr == nil || !kr.armed {
				return nil
			}
			kr.fire = wake
			return debounceWake{kr.h}
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// keyString tells plain keys apart: a string and a number never meet.
func keyString(v lua.LValue) string { return v.Type().String() + ":" + v.String() }
