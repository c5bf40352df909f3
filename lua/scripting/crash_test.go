package scripting

import (
	"errors"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/temporal"
)

// A table facet whose update lookup raises (an __index that errors) failed
// the frame with a Go panic when the host was driven from Go.
func TestTableFacetLookupError(t *testing.T) {
	h := hostservices.New(temporal.Fixed(hostEpoch))
	L := hostState(t, h, nil)
	doString(t, L, `
		local hs = require("app-host").scheduler
		local f = { update = function() end }
		hs:register("bad", f)
		f.update = nil
		setmetatable(f, { __index = function() error("no update here") end })`)
	err := h.Update(16)
	var fe *hostservices.FacetError
	if !errors.As(err, &fe) || fe.Name != "bad" {
		t.Fatalf("Update = %v, want the facet's error", err)
	}
	tb, ok := Traceback(err)
	if !ok || !strings.Contains(err.Error(), "no update here") ||
		!strings.HasSuffix(tb, "\n\t[G]: in the lookup of method 'update'\n\t[facet] \"bad\"") {
		t.Fatalf("error %v, traceback:\n%s", err, tb)
	}

	// From Lua, in a pcall, the message names the facet as other facet errors do.
	doString(t, L, `ok, msg = pcall(require("app-host").scheduler.update, require("app-host").scheduler, 16)`)
	msg := L.GetGlobal("msg").String()
	if L.GetGlobal("ok") != lua.LFalse || !strings.HasPrefix(msg, "<string>:6: no update here\nstack traceback:\n") ||
		!strings.HasSuffix(msg, "\n\t[facet] \"bad\"") {
		t.Fatalf("pcall(hs.update) = %v, %q", L.GetGlobal("ok"), msg)
	}
}

// A table facet whose update is found through __index still runs.
func TestTableFacetInheritedUpdate(t *testing.T) {
	h := hostservices.New(temporal.Fixed(hostEpoch))
	L := hostState(t, h, nil)
	doString(t, L, `
		local Physics = {}
		Physics.__index = Physics
		function Physics:update(dt) self.total = self.total + dt end
		p = setmetatable({ total = 0 }, Physics)
		require("app-host").scheduler:register("physics", p)`)
	if err := h.Update(16); err != nil {
		t.Fatal(err)
	}
	if got := L.GetField(L.GetGlobal("p"), "total"); got != lua.LNumber(16) {
		t.Fatalf("total = %v, want 16", got)
	}
}

// fillStack is Lua that overflows the value stack one push at a time, under
// 50 frames of 30 locals: the case gopher-lua's PCall lets escape when it
// has a message handler.
const fillStack = `
	local big = {}
	for i = 1, 4000 do big[i] = i end
	local function deep(n)
		local a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15
		local b1, b2, b3, b4, b5, b6, b7, b8, b9, b10, b11, b12, b13, b14, b15
		if n == 0 then return unpack(big) end
		return (deep(n - 1))
	end
	deep(50)`

// A job or a runtime-timers callback that overflows the value stack fails
// its frame with a Lua error; the host and the state go on. Moved directly,
// the host runs each callback under a guard of its own; moved inside Drain,
// under Drain's, through which the overflow unwinds.
func TestCallbackRegistryOverflow(t *testing.T) {
	for name, frame := range map[string]func(L *lua.LState, h *hostservices.Host) error{
		"update": func(_ *lua.LState, h *hostservices.Host) error { return h.Update(10) },
		"update in Drain": func(L *lua.LState, h *hostservices.Host) error {
			return Drain(L, "update", func() error { return h.Update(10) })
		},
	} {
		t.Run(name, func(t *testing.T) {
			h := hostservices.New(temporal.Fixed(hostEpoch))
			L := hostState(t, h, nil)
			doString(t, L, `
				local RT = require "runtime-timers"
				RT.Timeout{ ["delay-ms"] = 10, callback = function() `+fillStack+` end }
				RT.Timeout{ ["delay-ms"] = 20, callback = function() fired = true end }`)
			err := frame(L, h)
			if err == nil || !strings.Contains(err.Error(), "registry overflow") {
				t.Fatalf("frame = %v, want a registry overflow", err)
			}
			if err := frame(L, h); err != nil || L.GetGlobal("fired") != lua.LTrue {
				t.Fatalf("next frame: %v, fired = %v", err, L.GetGlobal("fired"))
			}
		})
	}
}
