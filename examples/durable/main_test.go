package main

import (
	"errors"
	"io"
	"testing"

	"go.uber.org/goleak"
)

// TestNoServer: with no Temporal server at the address, run says so (the program then
// prints how to start one) and leaves nothing running. The example itself runs against an
// in-process server in hitl/temporal/servertest (opt-in).
func TestNoServer(t *testing.T) {
	err := run(t.Context(), io.Discard, "127.0.0.1:1", "default")
	if !errors.Is(err, errNoServer) {
		t.Fatalf("run = %v, want errNoServer", err)
	}
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
