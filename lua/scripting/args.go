package scripting

import (
	"fmt"
	"math"
	"sort"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/lua/sandbox"
)

// snake returns the snake_case spelling of a kebab-case name: "zone-id"
// becomes "zone_id" and "active?" becomes "is_active".
func snake(kebab string) string {
	if strings.HasSuffix(kebab, "?") {
		return "is_" + strings.ReplaceAll(strings.TrimSuffix(kebab, "?"), "-", "_")
	}
	return strings.ReplaceAll(kebab, "-", "_")
}

// argError raises "bad argument #n to 'fn' (msg)", the form Lua's own
// library errors take.
func argError(L *lua.LState, n int, fn, msg string) { sandbox.ArgError(L, n, fn, msg) }

// describe renders a Lua value for an error message: its type and, for
// scalars, the value itself; a binding's userdata by its type's name.
func describe(v lua.LValue) string {
	if ud, ok := v.(*lua.LUserData); ok {
		if n, ok := ud.Value.(interface{ luaTypeName() string }); ok {
			return n.luaTypeName()
		}
	}
	return sandbox.Describe(v)
}

func formatNumber(f float64) string { return sandbox.FormatNumber(f) }

// inlineOptions is how many keys an option table holds in place; the
// values of a longer key list's further keys go to a slice made for them.
const inlineOptions = 10

// options is a closed option table read once: every key must be one of the
// accepted names (kebab-case or its snake_case spelling, never both). It
// lives on the caller's stack: reading an option table of at most
// inlineOptions keys allocates nothing.
type options struct {
	L      *lua.LState
	fn     string
	arg    int
	keys   []string // accepted kebab-case names
	inline [inlineOptions]optionSlot
	spill  []optionSlot // keys[inlineOptions:]; nil for shorter lists
}

// optionSlot is one accepted key's value as given.
type optionSlot struct {
	val   lua.LValue // nil when absent
	which string     // the spelling used; "" when absent
}

// slot returns the slot of keys[i].
func (o *options) slot(i int) *optionSlot {
	if i < inlineOptions {
		return &o.inline[i]
	}
	return &o.spill[i-inlineOptions]
}

// checkOptions reads argument n of fn as a closed option table with the
// given kebab-case keys. hints maps a refused key to advice (for example
// "delay-ms" to "use runtime-timers for milliseconds").
func checkOptions(L *lua.LState, n int, fn string, keys []string, hints map[string]string) options {
	tbl, ok := L.Get(n).(*lua.LTable)
	if !ok {
		argError(L, n, fn, fmt.Sprintf("option table expected, got %s", describe(L.Get(n))))
	}
	return readOptions(L, tbl, n, fn, keys, hints)
}

func readOptions(L *lua.LState, tbl *lua.LTable, n int, fn string, keys []string, hints map[string]string) options {
	o := options{L: L, fn: fn, arg: n, keys: keys}
	if len(keys) > inlineOptions {
		o.spill = make([]optionSlot, len(keys)-inlineOptions)
	}
	for k, v := tbl.Next(lua.LNil); k != lua.LNil; k, v = tbl.Next(k) {
		ks, isStr := k.(lua.LString)
		if !isStr {
			argError(L, n, fn, fmt.Sprintf("option keys must be strings, got %s", describe(k)))
		}
		i := keyIndex(keys, string(ks))
		if i < 0 {
			if h, ok := hints[string(ks)]; ok {
				argError(L, n, fn, fmt.Sprintf("unknown option :%s; %s", ks, h))
			}
			argError(L, n, fn, fmt.Sprintf("unknown option :%s (accepted: %s)", ks, acceptedList(keys)))
		}
		sl := o.slot(i)
		if sl.which != "" {
			argError(L, n, fn, fmt.Sprintf("options :%s and :%s are one option; give one spelling", sl.which, ks))
		}
		sl.which, sl.val = string(ks), v
	}
	return o
}

// keyIndex returns the index in keys of the key s spells (kebab-case or
// snake_case), or -1.
func keyIndex(keys []string, s string) int {
	for i, k := range keys {
		if s == k || isSnakeOf(s, k) {
			return i
		}
	}
	return -1
}

// isSnakeOf reports whether s is snake(k), without building it.
func isSnakeOf(s, k string) bool {
	if strings.HasSuffix(k, "?") {
		if !strings.HasPrefix(s, "is_") {
			return false
		}
		s, k = s[3:], k[:len(k)-1]
	}
	if len(s) != len(k) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := k[i]; s[i] != c && !(c == '-' && s[i] == '_') {
			return false
		}
	}
	return true
}

func acceptedList(keys []string) string {
	s := append([]string(nil), keys...)
	sort.Strings(s)
	for i := range s {
		s[i] = ":" + s[i]
	}
	return strings.Join(s, " ")
}

// get returns the option's value, or nil when absent.
func (o *options) get(key string) lua.LValue {
	if i := keyIndex(o.keys, key); i >= 0 {
		if v := o.slot(i).val; v != nil {
			return v
		}
	}
	return lua.LNil
}

func (o *options) has(key string) bool {
	i := keyIndex(o.keys, key)
	return i >= 0 && o.slot(i).which != ""
}

// fail raises an argument error about one option.
func (o *options) fail(key, want string) {
	argError(o.L, o.arg, o.fn, fmt.Sprintf(":%s must be %s, got %s", key, want, describe(o.get(key))))
}

// function returns a required function option. A callable table is
// refused: the fire path calls functions only.
func (o *options) function(key string) *lua.LFunction {
	f, ok := o.get(key).(*lua.LFunction)
	if !ok {
		o.fail(key, "a function")
	}
	return f
}

// str returns a string option; required says whether nil is an error.
func (o *options) str(key string, required bool) (string, bool) {
	switch v := o.get(key).(type) {
	case lua.LString:
		return string(v), true
	case *lua.LNilType:
		if required {
			o.fail(key, "a string")
		}
		return "", false
	}
	o.fail(key, "a string")
	return "", false
}

// integer returns an integer-valued number option (numeric strings refused).
func (o *options) integer(key string, required bool) (int64, bool) {
	v := o.get(key)
	if v == lua.LNil && !required {
		return 0, false
	}
	n, ok := toInteger(v)
	if !ok {
		o.fail(key, "an integer")
	}
	return n, true
}

// toInteger accepts only a Lua number with an integral value that fits int64.
func toInteger(v lua.LValue) (int64, bool) {
	n, ok := v.(lua.LNumber)
	if !ok {
		return 0, false
	}
	f := float64(n)
	if f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
		return 0, false
	}
	return int64(f), true
}

// checkNumber reads argument n as a Lua number; numeric strings such as "16"
// are refused, unlike L.CheckNumber.
func checkNumber(L *lua.LState, n int, fn, name string) float64 {
	v, ok := L.Get(n).(lua.LNumber)
	if !ok {
		argError(L, n, fn, fmt.Sprintf("%s must be a number, got %s", name, describe(L.Get(n))))
	}
	return float64(v)
}

// setFuncs sets each function under its kebab-case name and its snake_case
// spelling.
func setFuncs(L *lua.LState, t *lua.LTable, funcs map[string]lua.LGFunction) {
	for name, f := range funcs {
		fn := L.NewFunction(f)
		t.RawSetString(name, fn)
		if s := snake(name); s != name {
			t.RawSetString(s, fn)
		}
	}
}

// kebab returns the kebab-case name a snake_case spelling stands for.
func kebab(s string) string {
	if strings.HasPrefix(s, "is_") {
		return strings.ReplaceAll(strings.TrimPrefix(s, "is_"), "_", "-") + "?"
	}
	return strings.ReplaceAll(s, "_", "-")
}

// typeMetatable returns L's metatable of the type named name, made by
// build on first use and kept in L's registry under that name, where
// gopher-lua's NewTypeMetatable keeps it. build is a top-level function, so
// a warm call allocates nothing.
func typeMetatable(L *lua.LState, name string, build func(L *lua.LState, mt *lua.LTable)) *lua.LTable {
	if mt, ok := L.GetTypeMetatable(name).(*lua.LTable); ok {
		return mt
	}
	mt := L.NewTypeMetatable(name)
	build(L, mt)
	return mt
}

// newRecord makes a table with canonical (kebab-case) keys whose snake_case
// spellings also read, through a shared metatable; pairs shows only the
// canonical keys.
func newRecord(L *lua.LState, size int) *lua.LTable {
	t := L.CreateTable(0, size)
	L.SetMetatable(t, typeMetatable(L, "metronome.record", buildRecordMeta))
	return t
}

func buildRecordMeta(L *lua.LState, mt *lua.LTable) {
	mt.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		k, ok := L.Get(2).(lua.LString)
		if !ok {
			return 0
		}
		L.Push(L.CheckTable(1).RawGetString(kebab(string(k))))
		return 1
	}))
}
