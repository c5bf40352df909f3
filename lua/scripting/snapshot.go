package scripting

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/runtime/sched"
	"github.com/metronome-rt/metronome/runtime/sched/snapshot"
	"github.com/metronome-rt/metronome/temporal"
)

// Save and restore for scripts: s:snapshot and hs:snapshot return the
// scheduler's sched.Snapshot as a plain Lua table (kebab-case keys, as
// its JSON spells them), RuntimeScheduler.encode and decode turn it into
// JSON text and back, and s:restore / hs:restore build it again in a
// fresh scheduler, binding each label to a Lua function from :handlers.
// The restored jobs call those functions as the originals called theirs:
// the same wrappers (a recurrence's payload, a keyed timer's tick, run as
// a coroutine) are put around them.

// luaSnapshot is a script's snapshot: the scheduler's, the host's pause
// state (hs:snapshot only) and the debouncers' keys.
type luaSnapshot struct {
	sched.Snapshot
	Paused   *bool              `json:"paused,omitempty"`
	Debounce []debounceSnapshot `json:"debounce,omitempty"`
}

// maxSnapshotDepth bounds the nesting of a snapshot table a script hands
// in: a real one is four deep; a cycle is refused, not followed.
const maxSnapshotDepth = 16

func init() {
	schedulerMethods["snapshot"] = func(L *lua.LState) int {
		ls := live(L, "snapshot")
		return snapshotMethod(L, ls.s, nil)
	}
	schedulerMethods["restore"] = func(L *lua.LState) int {
		ls := live(L, "restore")
		return restoreMethod(L, ls.s, nil)
	}
	hostMethods["snapshot"] = func(L *lua.LState) int {
		h := checkHost(L, "snapshot")
		return snapshotMethod(L, h.Scheduler(), h)
	}
	hostMethods["restore"] = func(L *lua.LState) int {
		h := checkHost(L, "restore")
		return restoreMethod(L, h.Scheduler(), h)
	}
}

// snapshotModuleFuncs are RuntimeScheduler.encode and decode.
var snapshotModuleFuncs = map[string]lua.LGFunction{
	"encode": func(L *lua.LState) int {
		snap := snapshotArg(L, 1, "encode")
		text, err := encodeSnapshot(snap)
		if err != nil {
			raise(L, "encode: %v", err)
		}
		L.Push(lua.LString(text))
		return 1
	},
	"decode": func(L *lua.LState) int {
		s, ok := L.Get(1).(lua.LString)
		if !ok {
			argError(L, 1, "decode", "snapshot text (a string) expected, got "+describe(L.Get(1)))
		}
		snap, err := decodeSnapshot("decode", "JSON text", []byte(s))
		if err != nil {
			raise(L, "%v", err)
		}
		L.Push(snapshotTable(L, snap))
		return 1
	},
}

// encodeSnapshot writes snap as JSON text: the fields in a fixed order,
// so one snapshot has one text.
func encodeSnapshot(snap *luaSnapshot) (string, error) {
	b, err := json.Marshal(snap)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// decodeSnapshot reads a snapshot's JSON text (the text given, or a
// table's, as what says) for the Lua function fn: unknown fields, a newer
// version and a job no scheduler could hold are errors naming the field.
func decodeSnapshot(fn, what string, text []byte) (*luaSnapshot, error) {
	var snap luaSnapshot
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&snap); err != nil {
		return nil, fmt.Errorf("%s: not a snapshot's %s: %v", fn, what, snapshot.JSONError(err))
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: not a snapshot's %s: more text after its object", fn, what)
	}
	inner, err := json.Marshal(&snap.Snapshot)
	if err == nil {
		_, err = snapshot.Decode(inner)
	}
	if err != nil {
		return nil, snapshotFieldError(fn, err)
	}
	if err := checkDebounceSnapshot(snap.Debounce); err != nil {
		return nil, fmt.Errorf("%s: %v", fn, err)
	}
	return &snap, nil
}

// snapshotFieldError restates a Go error about a snapshot's field for the
// Lua function fn.
func snapshotFieldError(fn string, err error) error {
	var oe *temporal.OptionError
	if !errors.As(err, &oe) {
		return fmt.Errorf("%s: %v", fn, err)
	}
	param := strings.TrimPrefix(oe.Param, "snap.")
	param = strings.Replace(param, "Jobs[", "jobs[", 1)
	if param == "text" {
		param = "snapshot"
	} else {
		param = "snapshot field " + param
	}
	switch {
	case oe.Err != nil && oe.Want != "":
		return fmt.Errorf("%s: %s: %v (want %s)", fn, param, oe.Err, oe.Want)
	case oe.Err != nil:
		return fmt.Errorf("%s: %s: %v", fn, param, oe.Err)
	}
	return fmt.Errorf("%s: %s: want %s, got %v", fn, param, oe.Want, oe.Got)
}

// snapshotArg reads argument n of fn: a snapshot table or its JSON text.
func snapshotArg(L *lua.LState, n int, fn string) *luaSnapshot {
	var text []byte
	what := "JSON text"
	switch v := L.Get(n).(type) {
	case lua.LString:
		text = []byte(v)
	case *lua.LTable:
		what = "table"
		plain, err := toPlain(v, "snapshot", 0)
		if err != nil {
			argError(L, n, fn, err.Error())
		}
		if text, err = json.Marshal(plain); err != nil {
			argError(L, n, fn, err.Error())
		}
	default:
		argError(L, n, fn, "a snapshot (the table snapshot returns, or its JSON text) expected, got "+describe(L.Get(n)))
	}
	snap, err := decodeSnapshot(fn, what, text)
	if err != nil {
		raise(L, "%v", err)
	}
	return snap
}

// toPlain turns a plain Lua table into JSON-ready Go values: a sequence
// into a list, string keys into an object; an empty table is null, but
// for a debouncer touch's argument, which stays an empty table.
func toPlain(v lua.LValue, path string, depth int) (any, error) {
	switch v := v.(type) {
	case lua.LString:
		return string(v), nil
	case lua.LBool:
		return bool(v), nil
	case lua.LNumber:
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%s: a finite number expected, got %v", path, f)
		}
		if f == math.Trunc(f) && math.Abs(f) < 1<<63 {
			return int64(f), nil
		}
		return f, nil
	case *lua.LTable:
		if depth >= maxSnapshotDepth {
			return nil, fmt.Errorf("%s: nested deeper than a snapshot is (a cycle?)", path)
		}
		n := v.Len()
		count := 0
		var keyErr error
		v.ForEach(func(k, _ lua.LValue) {
			count++
			if _, ok := k.(lua.LString); !ok {
				if f, ok := k.(lua.LNumber); !ok || n == 0 || float64(f) != math.Trunc(float64(f)) || f < 1 || int(f) > n {
					keyErr = fmt.Errorf("%s: keys must be strings (or 1..n for a list), got %s", path, describe(k))
				}
			}
		})
		if keyErr != nil {
			return nil, keyErr
		}
		if count == 0 {
			if strings.Contains(path, ".args[") {
				return map[string]any{}, nil // a touch's argument: an empty table stays one
			}
			return nil, nil
		}
		if n > 0 {
			if count != n {
				return nil, fmt.Errorf("%s: a list or a record expected, got a table with both", path)
			}
			list := make([]any, n)
			for i := 1; i <= n; i++ {
				x, err := toPlain(v.RawGetInt(i), fmt.Sprintf("%s[%d]", path, i), depth+1)
				if err != nil {
					return nil, err
				}
				list[i-1] = x
			}
			return list, nil
		}
		obj := make(map[string]any, count)
		var err error
		v.ForEach(func(k, x lua.LValue) {
			if err != nil {
				return
			}
			key := string(k.(lua.LString))
			obj[key], err = toPlain(x, path+"."+key, depth+1)
		})
		return obj, err
	}
	return nil, fmt.Errorf("%s: a string, number, boolean or table expected, got %s", path, describe(v))
}

// snapshotTable returns snap as a plain Lua table.
func snapshotTable(L *lua.LState, snap *luaSnapshot) *lua.LTable {
	b, err := json.Marshal(snap)
	if err != nil { // every field is JSON-ready: a bug if reached
		raise(L, "snapshot: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		raise(L, "snapshot: %v", err)
	}
	return fromPlain(L, v).(*lua.LTable)
}

func fromPlain(L *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case string:
		return lua.LString(v)
	case bool:
		return lua.LBool(v)
	case json.Number:
		f, _ := strconv.ParseFloat(string(v), 64)
		return lua.LNumber(f)
	case float64:
		return lua.LNumber(v)
	case []any:
		t := L.CreateTable(len(v), 0)
		for _, x := range v {
			t.Append(fromPlain(L, x))
		}
		return t
	case map[string]any:
		t := L.CreateTable(0, len(v))
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			t.RawSetString(k, fromPlain(L, v[k]))
		}
		return t
	}
	return lua.LNil
}

// pushRefused pushes the left-out jobs as a list of records: id, kind,
// label, where, reason.
func pushRefused(L *lua.LState, jobs []snapshot.Refused) {
	list := L.CreateTable(len(jobs), 0)
	for _, r := range jobs {
		t := newRecord(L, 5)
		t.RawSetString("id", lua.LNumber(r.ID))
		t.RawSetString("kind", lua.LString(r.Kind))
		if r.Label != "" {
			t.RawSetString("label", lua.LString(r.Label))
		}
		if r.Where != "" {
			t.RawSetString("where", lua.LString(r.Where))
		}
		t.RawSetString("reason", lua.LString(luaReason(r.Reason)))
		list.Append(t)
	}
	L.Push(list)
}

// luaReason says a refusal's reason in a script's terms.
func luaReason(why string) string {
	why = strings.Replace(why, "(WithName)", "(give it a :label)", 1)
	if i := strings.Index(why, "bind "); i >= 0 && strings.HasSuffix(why, " to a snapshot.Handler with OnCancel") {
		label := strings.TrimSuffix(why[i+len("bind "):], " to a snapshot.Handler with OnCancel")
		why = why[:i] + "give :handlers[" + label + "] as { callback = f, [\"on-cancel\"] = g }"
	}
	return why
}

// refusedError is the message of a snapshot or restore that refused jobs.
func refusedError(fn string, jobs []snapshot.Refused) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d job", fn, len(jobs))
	if len(jobs) != 1 {
		b.WriteString("s")
	}
	b.WriteString(" cannot be saved or restored (leave them out with { skip = true }): ")
	for i, r := range jobs {
		if i > 0 {
			b.WriteString("; ")
		}
		r.Reason = luaReason(r.Reason)
		b.WriteString(r.String())
	}
	return errors.New(b.String())
}

// skipOption reads argument n of fn, an optional { skip = bool } table.
func skipOption(L *lua.LState, n int, fn string) bool {
	if L.Get(n) == lua.LNil {
		return false
	}
	o := checkOptions(L, n, fn, []string{"skip"}, nil)
	return o.boolean("skip", false)
}

// snapshotMethod is s:snapshot(opts?) on s, or hs:snapshot on h's.
func snapshotMethod(L *lua.LState, s *sched.Scheduler, h *hostservices.Host) int {
	const fn = "snapshot"
	skip := skipOption(L, 2, fn)
	snap, refused, err := takeSnapshot(L, s)
	if err != nil {
		raise(L, "%s: %v", fn, err)
	}
	if len(refused) > 0 && !skip {
		raise(L, "%v", refusedError(fn, refused))
	}
	if h != nil {
		p := h.Paused()
		snap.Paused = &p
	}
	L.Push(snapshotTable(L, snap))
	pushRefused(L, refused)
	return 2
}

// takeSnapshot is s's snapshot with its debouncers' keys, and the jobs it
// cannot hold.
func takeSnapshot(L *lua.LState, s *sched.Scheduler) (*luaSnapshot, []snapshot.Refused, error) {
	snap, err := s.Snapshot()
	var refused []snapshot.Refused
	if se := (*snapshot.Error)(nil); errors.As(err, &se) {
		refused = se.Jobs
	} else if err != nil {
		return nil, nil, err
	}
	for i := range snap.Jobs {
		// A generation's OnCancel ends its handle's completion; the
		// snapshot says on-cancel only for one with an on-cancel callback.
		if j := &snap.Jobs[i]; j.Timer != nil && j.OnCancel && !keyedOf(L).cleanups[timerRef{s, j.Seq}] {
			j.OnCancel = false
		}
	}
	out := &luaSnapshot{Snapshot: snap}
	refused = saveDebouncers(L, s, out, refused)
	return out, refused, nil
}

// restoreOptions are s:restore's option keys.
var restoreOptions = []string{"handlers", "misfire", "skip", "max-catch-up-ticks", "owners"}

// restoreMethod is s:restore(snap_or_text, opts) on s, or hs:restore on
// h's: the snapshot's jobs in s, bound to :handlers; it returns true, the
// jobs left out and the handles of the restored once and every jobs, by
// id.
func restoreMethod(L *lua.LState, s *sched.Scheduler, h *hostservices.Host) int {
	const fn = "restore"
	snap := snapshotArg(L, 2, fn)
	o := checkOptions(L, 3, fn, restoreOptions, nil)
	var ro sched.RestoreOptions
	if m, given := o.str("misfire", false); given {
		switch m {
		case "fire-once", "fire-all", "skip":
			ro.Misfire = m
		default:
			o.fail("misfire", `"fire-once", "fire-all" or "skip"`)
		}
	}
	if n, given := o.integer("max-catch-up-ticks", false); given {
		if n < 1 || n > math.MaxInt32 {
			o.fail("max-catch-up-ticks", "an integer >= 1")
		}
		ro.MaxCatchUpTicks = int(n)
	}
	ro.Skip = o.boolean("skip", false)
	handlers, ok := o.get("handlers").(*lua.LTable)
	if !ok {
		o.fail("handlers", "a table of label = function")
	}
	var cleanups map[string]bool // labels bound with an on-cancel
	ro.Handlers, cleanups = bindHandlers(L, &o, handlers, snap)
	ro.Owners = restoreOwners(L, &o, s)
	if h != nil {
		ro.Groups = map[string]*sched.Group{h.Jobs().Name: h.Jobs()}
	}
	deb, err := planDebouncers(L, s, snap, &ro)
	if err != nil {
		raise(L, "%s: %v", fn, err)
	}
	var handles []sched.Handle
	debRestored := ro.Restored
	ro.Restored = func(seq uint64, h sched.Handle) {
		if debRestored != nil && deb.owns(seq) {
			debRestored(seq, h)
			return
		}
		handles = append(handles, h)
	}
	refused, err := s.Restore(snap.Snapshot, ro)
	if se := (*snapshot.Error)(nil); errors.As(err, &se) {
		raise(L, "%v", refusedError(fn, se.Jobs))
	}
	if err != nil {
		raise(L, "%v", snapshotFieldError(fn, err))
	}
	if len(cleanups) > 0 {
		k := keyedOf(L)
		for _, j := range snap.Jobs {
			if j.Timer != nil && cleanups[j.Label] {
				k.cleanups[timerRef{s, j.Seq}] = true
			}
		}
	}
	if err := deb.commit(); err != nil {
		raise(L, "%s: %v", fn, err)
	}
	refused = append(deb.left, refused...)
	if h != nil && snap.Paused != nil {
		h.SetPaused(*snap.Paused)
	}
	L.Push(lua.LTrue)
	pushRefused(L, refused)
	byID := L.CreateTable(0, len(handles))
	for _, h := range handles {
		ud := L.NewUserData()
		ud.Value = &luaHandle{h: h}
		L.SetMetatable(ud, typeMetatable(L, handleType, buildHandleMeta))
		byID.RawSetInt(int(h.ID()), ud)
	}
	L.Push(byID)
	return 3
}

// bindHandlers maps each label of handlers to the Go callback its jobs in
// snap need: a plain call for once and every, the occurrence payload for
// a recurrence, a keyed timer's tick (and its on-cancel); it returns the
// labels bound with an on-cancel too.
func bindHandlers(L *lua.LState, o *options, handlers *lua.LTable, snap *luaSnapshot) (map[string]any, map[string]bool) {
	kinds := map[string]string{}
	for _, j := range snap.Jobs {
		if k, seen := kinds[j.Label]; seen && k != j.Kind {
			raise(L, "restore: the label %q names a %s and a %s; restore binds a label to one kind of job", j.Label, k, j.Kind)
		}
		kinds[j.Label] = j.Kind
	}
	out := map[string]any{}
	cleanups := map[string]bool{}
	var bad string
	handlers.ForEach(func(k, v lua.LValue) {
		if bad != "" {
			return
		}
		label, ok := k.(lua.LString)
		if !ok {
			bad = fmt.Sprintf(":handlers keys must be labels (strings), got %s", describe(k))
			return
		}
		var cb, cancel *lua.LFunction
		switch v := v.(type) {
		case *lua.LFunction:
			cb = v
		case *lua.LTable:
			ho := readOptions(L, v, o.arg, "restore", []string{"callback", "on-cancel"}, nil)
			cb = ho.function("callback")
			if ho.has("on-cancel") {
				if cancel, ok = ho.get("on-cancel").(*lua.LFunction); !ok {
					bad = fmt.Sprintf(":handlers[%q][\"on-cancel\"] must be a function, got %s", string(label), describe(ho.get("on-cancel")))
					return
				}
			}
		default:
			bad = fmt.Sprintf(":handlers[%q] must be a function (or { callback = f, [\"on-cancel\"] = g } for a keyed timer), got %s", string(label), describe(v))
			return
		}
		switch kinds[string(label)] {
		case "recurrence":
			out[string(label)] = recurrenceJob(L, cb)
		case "timer":
			th := snapshot.Handler{Fn: keyedOf(L).fire, Data: timerData(cb)}
			if cancel != nil {
				th.OnCancel = keyedOf(L).onCancel(cancel, nil, nil)
				cleanups[string(label)] = true
			}
			out[string(label)] = th
		default:
			out[string(label)] = luaJob(L, cb)
		}
	})
	if bad != "" {
		argError(L, o.arg, "restore", bad)
	}
	return out, cleanups
}

// restoreOwners reads :owners, id = an owner with a lease of s (made with
// s:owner{ id = ..., lease = ... }).
func restoreOwners(L *lua.LState, o *options, s *sched.Scheduler) map[string]*sched.Owner {
	v := o.get("owners")
	if v == lua.LNil {
		return nil
	}
	t, ok := v.(*lua.LTable)
	if !ok {
		o.fail("owners", "a table of id = owner")
	}
	out := map[string]*sched.Owner{}
	var bad string
	t.ForEach(func(k, v lua.LValue) {
		id, ok := k.(lua.LString)
		ud, isUD := v.(*lua.LUserData)
		var lo *luaOwner
		if isUD {
			lo, _ = ud.Value.(*luaOwner)
		}
		if bad == "" && (!ok || lo == nil) {
			bad = fmt.Sprintf(":owners must map ids (strings) to owners (s:owner{...}), got %s = %s", describe(k), describe(v))
			return
		}
		if lo != nil {
			out[string(id)] = lo.o
		}
	})
	if bad != "" {
		argError(L, o.arg, "restore", bad)
	}
	return out
}

// recurrenceJob is a recurrence's callback: one payload table, {
// ["scheduled-at"], ["occurrence-index"] }, one PCall on the main thread.
func recurrenceJob(L *lua.LState, cb *lua.LFunction) func(at temporal.Instant, index int) error {
	main := L.G.MainThread
	cbs := callbacksOf(main)
	return func(at temporal.Instant, index int) error {
		p := newRecord(main, 2)
		p.RawSetString("scheduled-at", newInstant(main, at))
		p.RawSetString("occurrence-index", lua.LNumber(index))
		main.Push(cb)
		main.Push(p)
		return cbs.Call(main, cb, 1)
	}
}

// timerData is the Data of a keyed timer whose callback is cb (see
// keyedLua.start).
func timerData(cb *lua.LFunction) any {
	switch {
	case !cannotSeeArgs(cb) && (cb.IsG || isLeaf(cb)):
		// A Go function runs as a plain call too: gopher-lua cannot start
		// a coroutine on one, and it cannot reach tick:wait.
		return leafTickCallback{cb}
	case !cannotSeeArgs(cb):
		return &timerRunner{fn: cb}
	case isLeaf(cb):
		return leafCallback{cb}
	}
	return cb
}
