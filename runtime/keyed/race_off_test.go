//go:build !race

package keyed_test

const raceOn = false
