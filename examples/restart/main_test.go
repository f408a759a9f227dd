package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

// TestMain runs the test binary as an agent process when run starts it as one, as the
// program runs itself.
func TestMain(m *testing.M) {
	if role := os.Getenv(envRole); role != "" {
		if err := agent(context.Background(), os.Stdout, role); err != nil {
			fmt.Fprintln(os.Stderr, "restart:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// TestRun runs the program as `go run ./examples/restart` does: the first agent process is
// killed with SIGKILL once its question is saved and put to the human; the second, started after the reviewer
// decided, gets that decision from the store without asking again, and empties the store.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(t.Context(), &out); err != nil {
		t.Fatalf("%v; output:\n%s", err, out.String())
	}
	want := `agent 1: the question is saved in the store
agent 1: → to the human: Delete the reports of October?; waiting
killed agent 1 with SIGKILL, mid-wait
Ana approves while no agent runs
agent 2: "Delete the reports of October?": approved by Ana ({"note":"archived first"}); deleting
agent 2: 0 questions left in the store
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}
