//go:build race

package sched_test

// raceOn shrinks the long comparisons of heap and wheel under -race, which
// runs them ten times slower.
const raceOn = true
