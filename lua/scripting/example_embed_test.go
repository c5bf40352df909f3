package scripting_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/lua/scripting"
	"github.com/metronome-rt/metronome/temporal"
)

// World is the game's state, and the Go functions its scripts call.
type World struct {
	Goblins int
	Spawn   func(kind string) int // a plain Go function: scripts call world.Spawn("goblin")
}

// A game loop embedding a script: Go owns the host, the frames and the
// world; the script schedules a wave through app-host and calls Go to
// spawn; a script error comes back from the frame that ran it, with its
// position, and the game goes on.
func Example_embeddingGame() {
	start, _ := temporal.ParseInstant("2000-01-01T00:00:00Z")
	h := hostservices.New(temporal.Fixed(start)) // virtual time: only frames move it
	L := scripting.NewState(scripting.Options{Stdout: os.Stdout, Modules: scripting.HostModules(h, nil)})
	defer L.Close()

	world := &World{}
	world.Spawn = func(kind string) int { world.Goblins++; return world.Goblins }
	scripting.Expose(L, "world", world) // require "world" in scripts

	fn, err := L.LoadString(`
		local Temporal = require "temporal"
		local hs = require("app-host").scheduler
		local world = require "world"
		hs:schedule_every{ interval = Temporal.duration{ milliseconds = 30 }, count = 3, callback = function()
			local n = world.Spawn("goblin")
			print(("spawned goblin %d at %s"):format(n, tostring(hs:now())))
			if n == 2 then error("goblin 2 tripped") end
		end }
	`)
	if err == nil {
		L.Push(fn)
		err = scripting.PCall(L, 0, 0, nil)
	}
	if err != nil {
		fmt.Println("load:", err)
		return
	}
	for frame := 1; frame <= 6; frame++ { // the game's frame loop, 16 ms a frame
		err := scripting.Drain(L, "update", func() error { return h.UpdateBy(16 * temporal.Millisecond) })
		if err != nil {
			first, _, _ := strings.Cut(err.Error(), "\n") // the message; a traceback follows
			fmt.Printf("frame %d: %s\n", frame, first)
		}
	}
	fmt.Println("goblins:", world.Goblins)
	// Output:
	// spawned goblin 1 at 2000-01-01T00:00:00.03Z
	// spawned goblin 2 at 2000-01-01T00:00:00.06Z
	// frame 4: every #1 scheduled at <string>:5: <string>:8: goblin 2 tripped
	// spawned goblin 3 at 2000-01-01T00:00:00.09Z
	// goblins: 3
}
