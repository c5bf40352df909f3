package keyed_test

import (
	"fmt"

	"github.com/metronome-rt/metronome/runtime/keyed"
	"github.com/metronome-rt/metronome/temporal"
)

// A spot owns a "regen" timer under a local lease; the third tick cancels
// it, and the cancel's completion carries the cleanup's result.
func Example() {
	s, err := keyed.New(keyed.Options{Workers: 2})
	if err != nil {
		panic(err)
	}
	defer s.Close()
	spot, _ := s.NewOwner(temporal.Minute)

	third := make(chan *keyed.Completion)
	self := make(chan *keyed.Timer, 1) // the callback's own handle
	tm, err := spot.Register(keyed.Config{
		Key:      "regen",
		Interval: temporal.Millisecond,
		Callback: func(f keyed.Fire) {
			fmt.Printf("%s gen %d: delivery %d\n", f.Key, f.Generation, f.DeliveryIndex)
			if f.DeliveryIndex == 3 {
				third <- (<-self).Cancel() // no later tick of this generation starts
			}
		},
		OnCancel: func() error { fmt.Println("cleanup"); return nil },
	})
	if err != nil {
		panic(err)
	}
	self <- tm
	done := <-third
	fmt.Println("result:", done.Wait())
	// Output:
	// regen gen 1: delivery 1
	// regen gen 1: delivery 2
	// regen gen 1: delivery 3
	// cleanup
	// result: <nil>
}
