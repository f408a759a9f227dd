//go:build race

package hitl_test

// raceEnabled: the race detector is on, and sync.Pool drops some of what is put back on
// purpose, so pooled buffers are allocated again now and then.
const raceEnabled = true
