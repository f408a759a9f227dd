// Package servertest runs hitlkit's Temporal workflow against a real Temporal server started
// in the test's process (go.temporal.io/server/temporaltest). It is a module of its own
// because the server is large: its test is opt-in, run with
//
//	HITLKIT_TEMPORAL_SERVER=1 go test -race ./...
//
// in this directory, and CI skips the module unless that variable is set.
package servertest
