package scripting

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/lua/internal/luaeval"
	"github.com/metronome-rt/metronome/temporal"
)

// A symbolic link in the script folder may point within it, not out of it.
func TestRequireRefusesLinksOutOfTheScriptDir(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "scripts")
	for path, src := range map[string]string{
		filepath.Join(root, "secret.lua"):     `return "secret"`,
		filepath.Join(dir, "lib", "real.lua"): `return "real"`,
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"leak.lua":   filepath.Join(root, "secret.lua"),
		"rel.lua":    filepath.Join("..", "secret.lua"),
		"inside.lua": filepath.Join("lib", "real.lua"),
		"up":         root, // a linked folder: up/secret.lua
	} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Skipf("symlinks: %v", err)
		}
	}
	L, _ := newSandbox(t, Options{ScriptDir: dir})
	if got := luaeval.Eval1(t, L, `require "inside"`); got != "real" {
		t.Errorf(`require "inside" = %s, want real (a link within the folder)`, got)
	}
	for _, name := range []string{"leak", "rel", "up.secret"} {
		msg := luaeval.Err(t, L, `require "`+name+`"`)
		if !strings.Contains(msg, "a link to a file outside the script's folder") {
			t.Errorf("require %q: %q, want a refusal", name, msg)
		}
	}
	if got := luaeval.Eval1(t, L, `package.loaded["leak"] == nil`); got != "true" {
		t.Error("a refused module is marked loaded")
	}

	// A script folder reached through a link of its own still works.
	via := filepath.Join(t.TempDir(), "via")
	if err := os.Symlink(dir, via); err != nil {
		t.Fatal(err)
	}
	L2, _ := newSandbox(t, Options{ScriptDir: via})
	if got := luaeval.Eval1(t, L2, `require "inside"`); got != "real" {
		t.Errorf("through a linked folder: %s", got)
	}
	if msg := luaeval.Err(t, L2, `require "leak"`); !strings.Contains(msg, "outside the script's folder") {
		t.Errorf("through a linked folder, leak: %q", msg)
	}
}

// A long string in an argument or a zone id is cut in the error.
func TestErrorsClipLongStrings(t *testing.T) {
	L, _ := newSandbox(t, Options{})
	long := `string.rep("Z", 10000)`
	for _, src := range []string{
		`require("temporal").instant.parse("2024-03-10T06:59:00Z"):to_zoned_string(` + long + `)`,
		`require("temporal").instant.parse(` + long + `)`,
		`require("temporal").duration.parse(` + long + `)`,
		`require("temporal").clock.fixed(` + long + `)`,
		`require("temporal").instant.from_local("2024-03-10T02:30:00", ` + long + `)`,
		`require("temporal").instant.from_epoch_ns(` + long + `)`,
		`require(` + long + `)`,
	} {
		msg := luaeval.Err(t, L, src)
		if len(msg) > 400 || !strings.Contains(msg, "…(10000 bytes)") {
			t.Errorf("%s: error of %d bytes: %.300s", src, len(msg), msg)
		}
	}
}

// instant.parse refuses a fraction finer than a nanosecond, as
// duration.parse does, instead of dropping digits.
func TestInstantParseRefusesTenFractionDigits(t *testing.T) {
	L, _ := newSandbox(t, Options{})
	msg := luaeval.Err(t, L, `require("temporal").instant.parse("2024-03-10T06:59:00.1234567891Z")`)
	if !strings.Contains(msg, `instant "2024-03-10T06:59:00.1234567891Z": more than 9 fractional digits`) {
		t.Errorf("got %q", msg)
	}
}

// Operators a duration or instant does not have name both operands.
func TestTemporalOperatorErrors(t *testing.T) {
	L, _ := newSandbox(t, Options{})
	doString(t, L, `Temporal = require "temporal"; d = Temporal.duration{ seconds = 1 }; i = Temporal.instant.from_epoch_ms(0)
		c = Temporal.clock.fixed(i)`)
	for src, want := range map[string]string{
		`return #d`:         "<string>:1: bad operand to '#' (Temporal.duration PT1S; a duration has no length: use d:total_ms() or tostring(d))",
		`return #i`:         "<string>:1: bad operand to '#' (Temporal.instant 1970-01-01T00:00:00Z; an instant has no length: use tostring(t))",
		`return d .. "s"`:   `<string>:1: bad operands to '..' (Temporal.duration PT1S .. string "s"; use tostring(...) to join a Temporal value to text)`,
		`return "at " .. i`: `<string>:1: bad operands to '..' (string "at " .. Temporal.instant 1970-01-01T00:00:00Z; use tostring(...) to join a Temporal value to text)`,
		`return d .. i`:     `bad operands to '..' (Temporal.duration PT1S .. Temporal.instant 1970-01-01T00:00:00Z;`,
		`return 1 .. c`:     `bad operands to '..' (number 1 .. Temporal.clock fixed 1970-01-01T00:00:00Z;`,
		`return d < i`:      "<string>:1: bad operands to '<' (Temporal.duration PT1S < Temporal.instant 1970-01-01T00:00:00Z; compare durations with durations and instants with instants)",
		`return i <= d`:     "bad operands to '<=' (Temporal.instant 1970-01-01T00:00:00Z <= Temporal.duration PT1S;",
		// gopher-lua raises a mixed-type comparison itself, before any
		// metamethod: it cannot name the values (docs/lua-temporal.md).
		`return d < 5`: "<string>:1: attempt to compare userdata with number",
	} {
		if msg := luaeval.Err(t, L, src); !strings.HasPrefix(msg, want) && !strings.Contains(msg, want) {
			t.Errorf("%s: %q, want %q", src, msg, want)
		}
	}
}

// A colon call of a runtime-timers function says to use a dot.
func TestRuntimeTimersColonCall(t *testing.T) {
	h := hostservices.New(temporal.Fixed(hostEpoch))
	L := hostState(t, h, nil)
	doString(t, L, `RuntimeTimers = require "runtime-timers"`)
	for _, fn := range []string{"Timeout", "Interval", "Debouncer", "clear"} {
		msg := luaeval.Err(t, L, `RuntimeTimers:`+fn+`{ delay_ms = 1, interval_ms = 1, callback = function() end }`)
		want := "<string>:1: bad argument #1 to '" + fn + "' (got the runtime-timers module: call RuntimeTimers." + fn + " with '.', not ':')"
		if msg != want {
			t.Errorf("RuntimeTimers:%s: %q, want %q", fn, msg, want)
		}
	}
	if n := h.Scheduler().Count(); n != 0 {
		t.Errorf("%d jobs scheduled by refused calls", n)
	}
}
