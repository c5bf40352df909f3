module github.com/metronome-rt/metronome

go 1.26

require (
	github.com/teambition/rrule-go v1.8.2
	github.com/yuin/gopher-lua v1.1.2
	go.uber.org/goleak v1.3.0
	layeh.com/gopher-luar v1.0.11
	pgregory.net/rapid v1.3.0
)
