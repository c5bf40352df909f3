package driver_test

import (
	"context"
	"fmt"
	"time"

	"github.com/metronome-rt/metronome/runtime/driver"
)

func ExampleService() {
	s, err := driver.NewService(driver.ServiceOptions{Strategy: driver.Pool(2)})
	if err != nil {
		panic(err)
	}
	defer s.Stop(context.Background())

	done := make(chan string)
	later, _ := s.Schedule(time.Hour, func() { done <- "an hour later" })
	s.Schedule(0, func() { done <- "at once" }) // d = 0: the loop's next turn
	fmt.Println(<-done)
	fmt.Println("stopped before it ran:", later.Stop())

	_, err = s.Schedule(-time.Second, func() {})
	fmt.Println(err)
	// Output:
	// at once
	// stopped before it ran: true
	// Service.Schedule: d: want a duration >= 0, got -1s
}
