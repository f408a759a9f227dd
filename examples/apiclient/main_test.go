package main

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRun runs the program as `go run ./examples/apiclient` does: the approval is an answer,
// the rejection an error holding the decision.
func TestRun(t *testing.T) {
	var out bytes.Buffer
	if err := run(t.Context(), &out); err != nil {
		t.Fatal(err)
	}
	want := `→ to the human: Delete the reports of October?
October: deleted (fine, they are archived)
→ to the human: Delete the reports of November?
November: not deleted: Ana said reject (the auditors still need them)
`
	if diff := cmp.Diff(want, out.String()); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}
