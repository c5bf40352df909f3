package scripting_test

import (
	"fmt"
	"os"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/lua/scripting"
	"github.com/metronome-rt/metronome/temporal"
)

// A Go game loop that hosts a script. Go owns the host and its frames and
// exposes its game state; the script schedules a job and registers a facet
// through app-host; Go schedules a job on the same host. Both sides' jobs
// run in one timeline, each in the frame that crosses its deadline, before
// the frame's facets. To run the host in wall time instead, hand it to a
// hostservices.Runner and step that with runtime/driver's Run.
func Example_gameLoop() {
	type Game struct{ Score int }
	game := &Game{}

	start, _ := temporal.ParseInstant("2000-01-01T00:00:00Z")
	h := hostservices.New(temporal.Fixed(start)) // virtual time: only frames move it
	L := scripting.NewState(scripting.Options{Stdout: os.Stdout, Modules: scripting.HostModules(h, nil)})
	defer L.Close()
	scripting.Expose(L, "game", game)

	fn, err := L.LoadString(`
		local Temporal = require "temporal"
		local hs = require("app-host").scheduler
		local game = require "game"
		hs:schedule_once{ delay = Temporal.duration{ milliseconds = 20 }, callback = function()
			game.Score = game.Score + 10
			print(("script job at %s: score %d"):format(tostring(hs:now()), game.Score))
		end }
		hs:register("hud", function(dt) print(("hud: dt %g, score %d"):format(dt, game.Score)) end)
	`)
	if err == nil {
		L.Push(fn)
		err = scripting.PCall(L, 0, 0, nil) // under the state's budgets, if any
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	h.ScheduleOnce(40*temporal.Millisecond, func() error {
		game.Score *= 2
		fmt.Printf("Go job at %s: score %d\n", h.Now(), game.Score)
		return nil
	})

	for range 3 { // the game's frame loop
		frame := func() error { return h.UpdateBy(16 * temporal.Millisecond) }
		if err := scripting.Drain(L, "update", frame); err != nil {
			fmt.Println(err)
			return
		}
	}
	// Output:
	// hud: dt 16, score 0
	// script job at 2000-01-01T00:00:00.02Z: score 10
	// hud: dt 16, score 10
	// Go job at 2000-01-01T00:00:00.04Z: score 20
	// hud: dt 16, score 20
}
