package scripting_test

import (
	"fmt"
	"os"

	"github.com/metronome-rt/metronome/hostservices"
	"github.com/metronome-rt/metronome/lua/scripting"
	"github.com/metronome-rt/metronome/temporal"
)

// Embedding: a Go program owns the host and its frame loop; the script
// schedules work and registers a facet through app-host.
func Example_embedding() {
	start, _ := temporal.ParseInstant("2000-01-01T00:00:00Z")
	host := hostservices.New(temporal.Fixed(start))
	L := scripting.NewState(scripting.Options{Stdout: os.Stdout, Modules: scripting.HostModules(host, nil)})
	defer L.Close()

	err := L.DoString(`
		local Temporal = require "temporal"
		local hs = require("app-host").scheduler
		local frames = 0
		hs:register("physics", function(dt) frames = frames + 1 end)
		hs:schedule_every{ interval = Temporal.duration{ milliseconds = 25 }, callback = function()
			print(("tick at %s after %d frames"):format(tostring(hs:now()), frames))
		end }
	`)
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 4 { // four 16 ms frames, driven by Go
		if err := host.UpdateBy(16 * temporal.Millisecond); err != nil {
			fmt.Println(err)
			return
		}
	}
	// Output:
	// tick at 2000-01-01T00:00:00.025Z after 1 frames
	// tick at 2000-01-01T00:00:00.05Z after 3 frames
}

// Expose hands a Go value to scripts as a module, for cold paths: exported
// fields and methods only.
func ExampleExpose() {
	type Player struct {
		Name  string
		Score int
	}
	L := scripting.NewState(scripting.Options{Stdout: os.Stdout})
	defer L.Close()
	scripting.Expose(L, "player", &Player{Name: "ada", Score: 3})
	if err := L.DoString(`local p = require "player"; print(p.Name, p.Score)`); err != nil {
		fmt.Println(err)
	}
	// Output:
	// ada	3
}
