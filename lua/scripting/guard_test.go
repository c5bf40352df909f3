package scripting

import (
	"strings"
	"testing"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/temporal"
)

// A callback run under an open guard (a main chunk run with PCall, a frame
// run with Drain) skips its own; an overflow that escapes its PCall still
// comes back as an error, and the scheduler, the host and the state go on.
func TestCallbackOverflowUnderAnOpenGuard(t *testing.T) {
	t.Run("main chunk", func(t *testing.T) {
		L := NewState(Options{})
		defer L.Close()
		fn, err := L.LoadString(`
			local T = require "temporal"
			s = require("runtime-scheduler").create{ clock = T.clock.fixed(T.instant.parse("2000-01-01T00:00:00Z")) }
			s:schedule_once{ delay = T.duration{ milliseconds = 1 }, callback = function() ` + fillStack + ` end }
			s:schedule_once{ delay = T.duration{ milliseconds = 2 }, callback = function() fired = true end }
			s:advance(T.duration{ milliseconds = 1 })`)
		if err != nil {
			t.Fatal(err)
		}
		L.Push(fn)
		if err := PCall(L, 0, 0, nil); err == nil || !strings.Contains(err.Error(), "registry overflow") {
			t.Fatalf("PCall = %v, want a registry overflow", err)
		}
		if p := protectorOf(L); p.guarded != 0 {
			t.Fatalf("%d guards left open", p.guarded)
		}
		doString(t, L, `s:advance(require("temporal").duration{ milliseconds = 1 })`)
		if L.GetGlobal("fired").String() != "true" {
			t.Fatal("the next job did not run after the overflow")
		}
	})
	t.Run("host frame", func(t *testing.T) {
		h := hostservices.New(temporal.Fixed(hostEpoch))
		L := hostState(t, h, nil)
		doString(t, L, `
			local RT = require "runtime-timers"
			RT.Timeout{ ["delay-ms"] = 10, callback = function() `+fillStack+` end }
			RT.Timeout{ ["delay-ms"] = 20, callback = function() fired = true end }`)
		err := Drain(L, "update", func() error { return h.Update(10) })
		if err == nil || !strings.Contains(err.Error(), "registry overflow") {
			t.Fatalf("Drain = %v, want a registry overflow", err)
		}
		if err := Drain(L, "update", func() error { return h.Update(10) }); err != nil || L.GetGlobal("fired").String() != "true" {
			t.Fatalf("next frame: %v, fired = %v", err, L.GetGlobal("fired"))
		}
	})
}
