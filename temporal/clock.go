package temporal

import "time"

// Clock tells the current instant. Schedulers read it once, at creation, to
// fix their epoch; after that they move their own time.
type Clock interface {
	Now() Instant
}

// System returns the machine's wall clock.
func System() Clock { return systemClock{} }

type systemClock struct{}

func (systemClock) Now() Instant { return Instant{time.Now().UnixNano()} }

// Fixed returns a clock that always answers t. It never moves.
func Fixed(t Instant) Clock { return fixedClock{t} }

type fixedClock struct{ t Instant }

func (c fixedClock) Now() Instant { return c.t }
