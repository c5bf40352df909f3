//go:build !race

package sched_test

const raceOn = false
