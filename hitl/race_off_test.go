//go:build !race

package hitl_test

// raceEnabled: the race detector is off.
const raceEnabled = false
