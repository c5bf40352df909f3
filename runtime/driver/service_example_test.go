package driver_test

import (
	"context"
	"fmt"

	"github.com/metronome-rt/metronome/runtime/driver"
	"github.com/metronome-rt/metronome/temporal"
)

func ExampleService() {
	s, err := driver.NewService(driver.ServiceOptions{Strategy: driver.Pool(2)})
	if err != nil {
		panic(err)
	}
	defer s.Stop(context.Background())

	done := make(chan string)
	later, _ := s.Schedule(temporal.Hour, func() { done <- "an hour later" })
	s.Schedule(0, func() { done <- "at once" }) // d = 0: the loop's next turn
	fmt.Println(<-done)
	fmt.Println("stopped before it ran:", later.Stop())

	_, err = s.Schedule(-temporal.Second, func() {})
	fmt.Println(err)
	// Output:
	// at once
	// stopped before it ran: true
	// Service.Schedule: d: want a duration >= 0, got -PT1S
}
