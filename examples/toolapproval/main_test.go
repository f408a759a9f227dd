package main

import (
	"bytes"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/hitlkit/hitlkit/a2a"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestRun runs the example on every binding, once approving by itself and once reading a
// person's answers (approve, then deny).
func TestRun(t *testing.T) {
	for _, b := range []a2a.Binding{a2a.JSONRPC10, a2a.REST10, a2a.JSONRPC03, a2a.REST03} {
		t.Run(string(b), func(t *testing.T) {
			var out bytes.Buffer
			if err := run(t.Context(), &out, nil, b); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"asks for approval twice in one task", "Question 1 of task ", "Question 2 of task ", "Outcome: completed (approve). Approved: true.", "Held by the relay:", "Outcome: completed: sink-agent handled: Transfer 500 EUR to ACME."} {
				if !strings.Contains(out.String(), want) {
					t.Errorf("output lacks %q:\n%s", want, out.String())
				}
			}
		})
	}
	var out bytes.Buffer
	if err := run(t.Context(), &out, strings.NewReader("approve\ndeny\n"), a2a.JSONRPC03); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "Outcome: completed (deny). Approved: false.") || strings.Count(out.String(), "Question ") != 2 {
		t.Errorf("output:\n%s", out.String())
	}
}
