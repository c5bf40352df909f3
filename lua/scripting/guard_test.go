package scripting

import (
	"strings"
	"testing"
)

// A callback run under an open guard (here a main chunk run with PCall;
// TestCallbackRegistryOverflow has a frame run with Drain) skips its own;
// an overflow that escapes its PCall still comes back as an error, and the
// scheduler and the state go on, with no guard left open.
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
		doString(t, L, `s:advance(require("temporal").duration{ milliseconds = 1 })`)
		if L.GetGlobal("fired").String() != "true" {
			t.Fatal("the next job did not run after the overflow")
		}
		// No guard was left open: a callback run outside PCall and Drain
		// opens its own, so its overflow comes back as an error.
		err = L.DoString(`
			local T = require "temporal"
			s:schedule_once{ delay = T.duration{ milliseconds = 1 }, callback = function() ` + fillStack + ` end }
			s:advance(T.duration{ milliseconds = 1 })`)
		if err == nil || !strings.Contains(err.Error(), "registry overflow") {
			t.Fatalf("second overflow = %v, want a registry overflow", err)
		}
	})
}
