package scripting

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/temporal"
)

// newTemporalState returns a plain state with the temporal module preloaded
// and required as the global Temporal.
func newTemporalState(t testing.TB) *lua.LState {
	t.Helper()
	L := lua.NewState()
	t.Cleanup(L.Close)
	L.PreloadModule("temporal", loadTemporal)
	if err := L.DoString(`Temporal = require "temporal"`); err != nil {
		t.Fatal(err)
	}
	return L
}

// evalString runs "return <expr>" and returns tostring of the result.
func evalString(t *testing.T, L *lua.LState, expr string) string {
	t.Helper()
	if err := L.DoString("return tostring(" + expr + ")"); err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	defer L.Pop(1)
	return L.Get(-1).String()
}

// evalValue runs "return <expr>" and returns the value.
func evalValue(t *testing.T, L *lua.LState, expr string) lua.LValue {
	t.Helper()
	if err := L.DoString("return " + expr); err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	defer L.Pop(1)
	return L.Get(-1)
}

// evalError runs the chunk and returns its error message, failing the test
// when there is none.
func evalError(t *testing.T, L *lua.LState, chunk string) string {
	t.Helper()
	err := L.DoString(chunk)
	if err == nil {
		t.Fatalf("%s: no error", chunk)
	}
	if api, ok := err.(*lua.ApiError); ok {
		return api.Object.String()
	}
	return err.Error()
}

func TestTemporalDurationStrings(t *testing.T) {
	L := newTemporalState(t)
	for _, c := range []struct{ expr, want string }{
		{`Temporal.duration{ seconds = 1, milliseconds = 500 }`, "PT1.5S"},
		{`Temporal.duration{ hours = 1, minutes = 30 }`, "PT1H30M"},
		{`Temporal.duration{ milliseconds = 250 }`, "PT0.25S"},
		{`Temporal.duration{}`, "PT0S"},
		{`-Temporal.duration{ milliseconds = 1500 }`, "-PT1.5S"},
		{`Temporal.duration.parse("PT90M")`, "PT1H30M"},
		{`Temporal.duration["from-ms"](16.6)`, "PT0.0166S"},
		{`Temporal.duration{ seconds = 1 } * 3 - Temporal.duration{ nanoseconds = 1 }`, "PT2.999999999S"},
		{`2 * Temporal.duration{ minutes = 45 }`, "PT1H30M"},
		{`Temporal.instant.parse("2024-03-10T01:59:00-05:00")`, "2024-03-10T06:59:00Z"},
		{`Temporal.instant.parse("2024-03-10T06:59:00Z") + Temporal.duration{ seconds = 1 }`, "2024-03-10T06:59:01Z"},
		{`Temporal.instant.from_epoch_ns("1") - Temporal.instant.from_epoch_ms(0)`, "PT0.000000001S"},
		{`Temporal.clock.fixed(Temporal.instant.from_epoch_ms(0)):now()`, "1970-01-01T00:00:00Z"},
	} {
		if got := evalString(t, L, c.expr); got != c.want {
			t.Errorf("%s = %s, want %s", c.expr, got, c.want)
		}
	}
}

func TestTemporalErrors(t *testing.T) {
	L := newTemporalState(t)
	for _, c := range []struct{ chunk, want string }{
		{`Temporal.duration{ seconds = 1.5 }`, "bad argument #1 to 'duration' (:seconds must be an integer, got number 1.5)"},
		{`Temporal.duration{ seconds = "5" }`, `bad argument #1 to 'duration' (:seconds must be an integer, got string "5")`},
		{`Temporal.duration{ seconds = 0/0 }`, ":seconds must be an integer, got number NaN"},
		{`Temporal.duration{ seconds = 1/0 }`, ":seconds must be an integer, got number inf"},
		{`Temporal.duration{ secs = 1 }`, "unknown option :secs (accepted: :hours :microseconds :milliseconds :minutes :nanoseconds :seconds)"},
		{`Temporal.duration{ hours = 2^62 }`, "bad argument #1 to 'duration' (:hours 4611686018427387904: PT1H * 4611686018427387904 overflows int64 nanoseconds)"},
		{`Temporal.duration.parse("P1D")`, `duration.parse: duration "P1D": calendar unit 'D' is not an exact length`},
		{`Temporal.duration.from_ms("16")`, `bad argument #1 to 'duration.from-ms' (milliseconds must be a number, got string "16")`},
		{`return Temporal.duration{ seconds = 1 } + 1`, "bad operands to '+' (Temporal.duration PT1S + number 1; want duration + duration or instant + duration)"},
		{`return Temporal.duration{ nanoseconds = 1 } * 0.5`, "bad operands to '*' (PT0.000000001S * 0.5 = 0.500 ns, which is not a whole number of nanoseconds)"},
		{`Temporal.instant.parse("2024-03-10T06:59:00")`, `instant.parse: instant "2024-03-10T06:59:00" has no offset`},
		{`Temporal.instant.parse("2024-03-10T06:59:00Z"):to_zoned_string("Mars/Olympus")`, `to-zoned-string: zone "Mars/Olympus": unknown IANA zone id`},
		{`Temporal.instant.from_epoch_ns(2^53 + 2)`, "beyond 2^53"},
		{`Temporal["recurrence-set"]{ dtstart = "2024-01-01T00:00:00", rrule = "COUNT=3" }`, `bad argument #1 to 'recurrence-set' (:rrule "COUNT=3": FREQ is required`},
		{`Temporal["recurrence-set"]{ dtstart = "2024-01-01T00:00:00", rrule = "FREQ=DAILY" }:occurrences{ zone_id = "UTC" }`, "bad argument #2 to 'occurrences' (:limit: the set is unbounded"},
	} {
		if got := evalError(t, L, c.chunk); !strings.Contains(got, c.want) {
			t.Errorf("%s:\n got %s\nwant %s", c.chunk, got, c.want)
		}
	}
}

// TestTemporalHelpers checks the Go helpers other bindings use, across
// states: a type check looks at the Go value, never at the metatable.
func TestTemporalHelpers(t *testing.T) {
	A, B := newTemporalState(t), lua.NewState()
	defer B.Close()

	ud := newDuration(A, 1500*temporal.Millisecond)
	if d, ok := toDuration(ud); !ok || d != 1500*temporal.Millisecond {
		t.Fatalf("toDuration = %v, %v", d, ok)
	}
	if _, ok := toInstant(ud); ok {
		t.Fatal("toInstant accepted a duration")
	}
	if got := describe(ud); got != "Temporal.duration PT1.5S" {
		t.Errorf("describe = %q", got)
	}

	// A value made in A, used in B (which never required the module).
	B.SetGlobal("d", ud)
	B.Push(newInstant(B, temporal.FromUnixNano(0)))
	B.SetGlobal("t", B.Get(-1))
	B.Pop(1)
	if err := B.DoString(`s = tostring(t + d) .. " " .. tostring(d)`); err != nil {
		t.Fatal(err)
	}
	if got := B.GetGlobal("s").String(); got != "1970-01-01T00:00:01.5Z PT1.5S" {
		t.Errorf("cross-state arithmetic = %q", got)
	}
	inst, ok := toInstant(B.GetGlobal("t"))
	if !ok || inst.UnixNano() != 0 {
		t.Errorf("toInstant = %v, %v", inst, ok)
	}
	if got := describe(B.GetGlobal("t")); got != "Temporal.instant 1970-01-01T00:00:00Z" {
		t.Errorf("describe = %q", got)
	}

	// Metatables are made once per state.
	if newDuration(A, 1).Metatable != newDuration(A, 2).Metatable {
		t.Error("two metatables for durations in one state")
	}
	if newDuration(A, 1).Metatable == newDuration(B, 1).Metatable {
		t.Error("states share a metatable")
	}

	pushDuration(A, 7)
	if d, ok := toDuration(A.Get(-1)); !ok || d != 7 {
		t.Errorf("pushDuration: %v, %v", d, ok)
	}
	A.Pop(1)

	c, ok := toClock(evalValue(t, A, `Temporal.clock.fixed(Temporal.instant.from_epoch_ms(5))`))
	if !ok || c.Now().UnixMilli() != 5 {
		t.Errorf("toClock = %v, %v", c, ok)
	}
	if _, ok := toClock(ud); ok {
		t.Error("toClock accepted a duration")
	}
	if got := describe(newClock(A, temporal.System(), "system")); got != "Temporal.clock system" {
		t.Errorf("describe clock = %q", got)
	}

	rsv := evalValue(t, A, `Temporal["recurrence-set"]{ dtstart = "2024-01-01T09:00:00", rrule = "FREQ=DAILY;COUNT=2" }`)
	rs, ok := toRecurrenceSet(rsv)
	if !ok || !rs.Bounded() {
		t.Fatalf("toRecurrenceSet = %v, %v", rs, ok)
	}
	if got := describe(rsv); got != "Temporal.recurrence-set DTSTART 2024-01-01T09:00:00" {
		t.Errorf("describe recurrence set = %q", got)
	}
	for _, v := range []lua.LValue{lua.LNil, lua.LNumber(1), lua.LString("PT1S"), A.NewTable(), A.NewUserData()} {
		if _, ok := toDuration(v); ok {
			t.Errorf("toDuration(%v) ok", v)
		}
		if _, ok := toInstant(v); ok {
			t.Errorf("toInstant(%v) ok", v)
		}
		if _, ok := toClock(v); ok {
			t.Errorf("toClock(%v) ok", v)
		}
		if _, ok := toRecurrenceSet(v); ok {
			t.Errorf("toRecurrenceSet(%v) ok", v)
		}
	}
}

// TestTemporalViaNewState requires the module from a state NewState makes.
func TestTemporalViaNewState(t *testing.T) {
	L := NewState(Options{})
	defer L.Close()
	if err := L.DoString(`local T = require "temporal"; s = tostring(T.duration{ minutes = 1 })`); err != nil {
		t.Fatal(err)
	}
	if got := L.GetGlobal("s").String(); got != "PT1M" {
		t.Errorf("got %q", got)
	}
}

// TestTemporalFromMsExact compares from-ms with exact rational arithmetic:
// the float's exact value times 10^6, rounded half away from zero.
func TestTemporalFromMsExact(t *testing.T) {
	L := newTemporalState(t)
	fn := L.GetField(L.GetField(L.GetGlobal("Temporal"), "duration"), "from-ms")
	r := rand.New(rand.NewPCG(1, 2))
	million := new(big.Rat).SetInt64(1_000_000)
	check := func(ms float64) {
		t.Helper()
		exact := new(big.Rat).SetFloat64(ms)
		exact.Mul(exact, million)
		// round half away from zero: trunc(x + sign(x)/2)
		half := big.NewRat(1, 2)
		if exact.Sign() < 0 {
			half.Neg(half)
		}
		exact.Add(exact, half)
		want := new(big.Int).Quo(exact.Num(), exact.Denom())
		if err := L.CallByParam(lua.P{Fn: fn, NRet: 1, Protect: true}, lua.LNumber(ms)); err != nil {
			t.Fatalf("from-ms(%v): %v", ms, err)
		}
		d, ok := toDuration(L.Get(-1))
		L.Pop(1)
		if !ok || !want.IsInt64() || d.Nanoseconds() != want.Int64() {
			t.Fatalf("from-ms(%v) = %v, want %v ns", ms, d.Nanoseconds(), want)
		}
	}
	for _, ms := range []float64{0, 16.6, -16.6, 0.0000005, 0.0078125, -0.0078125, 1.0000005, 2.5e-6, 1e-300, 9.2e12} {
		check(ms)
	}
	for range 2000 {
		ms := math.Ldexp(r.Float64(), r.IntN(80)-40)
		if r.IntN(2) == 0 {
			ms = -ms
		}
		if math.Abs(ms) < 9.2e12 {
			check(ms)
		}
	}
	// Exact ties: (2k+1)/2 ns, representable when the ms value is a
	// multiple of 2^-7.
	for k := int64(-50); k <= 50; k++ {
		check(float64(2*k+1) * 0.0078125)
	}
}

func TestTemporalTotalNsLimit(t *testing.T) {
	L := newTemporalState(t)
	if got := evalValue(t, L, `Temporal.duration{ nanoseconds = 2^53 }:total_ns()`); got != lua.LNumber(1<<53) {
		t.Errorf("total_ns at 2^53 = %v", got)
	}
	msg := evalError(t, L, `return (Temporal.duration{ nanoseconds = 2^53 } + Temporal.duration{ nanoseconds = 1 }):total_ns()`)
	if !strings.Contains(msg, "beyond 2^53") || !strings.Contains(msg, "use tostring") {
		t.Errorf("total_ns beyond 2^53: %s", msg)
	}
}

func TestTemporalRecurrenceDST(t *testing.T) {
	L := newTemporalState(t)
	chunk := `
		local rs = Temporal["recurrence-set"]{ dtstart = "2024-03-08T02:30:00", rrule = "FREQ=DAILY;COUNT=4" }
		local out = {}
		for i, v in ipairs(rs:occurrences{ ["zone-id"] = "America/New_York", disambiguation = "%s" }) do
			out[i] = tostring(v)
		end
		return table.concat(out, " ")`
	for _, c := range []struct{ dis, want string }{
		{"compatible", "2024-03-08T07:30:00Z 2024-03-09T07:30:00Z 2024-03-10T07:30:00Z 2024-03-11T06:30:00Z"},
		{"earlier", "2024-03-08T07:30:00Z 2024-03-09T07:30:00Z 2024-03-10T06:30:00Z 2024-03-11T06:30:00Z"},
		{"later", "2024-03-08T07:30:00Z 2024-03-09T07:30:00Z 2024-03-10T07:30:00Z 2024-03-11T06:30:00Z"},
	} {
		if err := L.DoString(strings.Replace(chunk, "%s", c.dis, 1)); err != nil {
			t.Fatalf("%s: %v", c.dis, err)
		}
		if got := L.Get(-1).String(); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.dis, got, c.want)
		}
		L.Pop(1)
	}
	msg := evalError(t, L, strings.Replace(chunk, "%s", "reject", 1))
	if !strings.Contains(msg, "occurrences: local time 2024-03-10T02:30:00 does not exist in America/New_York") {
		t.Errorf("reject: %s", msg)
	}
}

// TestTemporalWarmPathAllocs holds the warm paths to their allocation
// budget: a duration is a userdata and its boxed value (2); reading a field
// table boxes each key ForEach hands out (1 per key).
func TestTemporalWarmPathAllocs(t *testing.T) {
	L := newTemporalState(t)
	D := L.GetField(L.GetGlobal("Temporal"), "duration")
	fields := L.NewTable()
	fields.RawSetString("milliseconds", lua.LNumber(10))
	a, b := newDuration(L, temporal.Second), newDuration(L, temporal.Millisecond)
	for _, c := range []struct {
		name   string
		src    string
		args   []lua.LValue
		budget float64
	}{
		{"duration{milliseconds}", `local D, f = ...; return D(f)`, []lua.LValue{D, fields}, 3},
		{"a + b", `local a, b = ...; return a + b`, []lua.LValue{a, b}, 2},
		{"a - b", `local a, b = ...; return a - b`, []lua.LValue{a, b}, 2},
		{"a * 3", `local a, b = ...; return a * 3`, []lua.LValue{a, b}, 2},
		{"-a", `local a, b = ...; return -a`, []lua.LValue{a, b}, 2},
		{"a < b", `local a, b = ...; return a < b`, []lua.LValue{a, b}, 0},
		{"a == b", `local a, b = ...; return a == b`, []lua.LValue{a, b}, 0},
	} {
		fn, err := L.LoadString(c.src)
		if err != nil {
			t.Fatal(err)
		}
		run := func() {
			L.Push(fn)
			for _, v := range c.args {
				L.Push(v)
			}
			L.Call(len(c.args), 1)
			L.Pop(1)
		}
		run()
		if n := testing.AllocsPerRun(200, run); n > c.budget {
			t.Errorf("%s: %v allocations, budget %v", c.name, n, c.budget)
		}
	}
}

func BenchmarkTemporalDurationCall(b *testing.B) {
	L := newTemporalState(b)
	fn, err := L.LoadString(`local D, n = Temporal.duration, ...; for i = 1, n do local d = D{ milliseconds = i } end`)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	L.Push(fn)
	L.Push(lua.LNumber(b.N))
	L.Call(1, 0)
}

func BenchmarkTemporalDurationAdd(b *testing.B) {
	L := newTemporalState(b)
	fn, err := L.LoadString(`local D, n = Temporal.duration, ...; local a, s = D{ milliseconds = 1 }, D{}; for i = 1, n do s = s + a end`)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	L.Push(fn)
	L.Push(lua.LNumber(b.N))
	L.Call(1, 0)
}
