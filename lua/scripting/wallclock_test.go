package scripting

import (
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/lua/internal/luaeval"
	"github.com/metronome-rt/metronome/temporal"
)

const (
	nowOfCreate = `require("runtime-scheduler").create():now()`
	nowOfMake   = `require("app-host.services").make_scheduler{}:now()`
)

// The zero Options keep the wall clock: the default of create{} and
// make-scheduler{}, and Temporal.clock.system() allowed.
func TestZeroOptionsKeepTheWallClock(t *testing.T) {
	h := hostservices.New(temporal.Fixed(hostEpoch))
	for name, opts := range map[string]Options{
		"zero":         {},
		"system clock": {Clock: temporal.System()},
	} {
		t.Run(name, func(t *testing.T) {
			opts.Modules = HostModules(h, nil)
			L := NewState(opts)
			defer L.Close()
			before := time.Now()
			for _, expr := range []string{nowOfCreate, nowOfMake, `require("temporal").clock.system():now()`} {
				got := wallInstant(t, L, expr)
				if got.Before(before.Add(-time.Second)) {
					t.Errorf("%s = %v, want the wall clock (about %v)", expr, got, before)
				}
			}
		})
	}
}

// With Options.Clock set, a scheduler without a clock starts at that
// clock's instant, os.time reads it, and the wall clock is refused unless
// AllowWallClock.
func TestOptionsClock(t *testing.T) {
	at := temporal.FromUnixNano(1710053940e9) // 2024-03-10T06:59:00Z
	h := hostservices.New(temporal.Fixed(hostEpoch))
	L := NewState(Options{Clock: temporal.Fixed(at), Modules: HostModules(h, nil)})
	defer L.Close()
	for _, expr := range []string{nowOfCreate, nowOfMake} {
		if got := luaeval.Eval1(t, L, "tostring("+expr+")"); got != "2024-03-10T06:59:00Z" {
			t.Errorf("%s = %s, want 2024-03-10T06:59:00Z", expr, got)
		}
	}
	if got := luaeval.Eval1(t, L, "os.time()"); got != "1710053940" {
		t.Errorf("os.time() = %s, want 1710053940", got)
	}
	msg := luaeval.Err(t, L, `require("temporal").clock.system()`)
	if want := "<string>:1: clock.system: the wall clock is refused"; !strings.HasPrefix(msg, want) || !strings.Contains(msg, "--allow-wallclock") {
		t.Errorf("clock.system() error %q, want %q... naming --allow-wallclock", msg, want)
	}
	// A coroutine of the state is refused too: the policy is the state's.
	msg = luaeval.Err(t, L, `assert(coroutine.resume(coroutine.create(function() require("temporal").clock.system() end)))`)
	if !strings.Contains(msg, "the wall clock is refused") {
		t.Errorf("in a coroutine: %q", msg)
	}

	L2 := NewState(Options{Clock: temporal.Fixed(at), AllowWallClock: true})
	defer L2.Close()
	if got := luaeval.Eval1(t, L2, `tostring(require("temporal").clock.system())`); got != "Temporal.clock system" {
		t.Errorf("AllowWallClock: clock.system() = %s", got)
	}
	if got := luaeval.Eval1(t, L2, "tostring("+nowOfCreate+")"); got != "2024-03-10T06:59:00Z" {
		t.Errorf("AllowWallClock: create():now() = %s, want Options.Clock's instant", got)
	}
}

func wallInstant(t *testing.T, L *lua.LState, expr string) time.Time {
	t.Helper()
	if err := L.DoString("return " + expr); err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	v, ok := toInstant(L.Get(-1))
	L.Pop(1)
	if !ok {
		t.Fatalf("%s is not an instant", expr)
	}
	return v.Time()
}
