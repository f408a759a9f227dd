package hitl_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/hitl"
)

// TestWriteToNoEmptyLine: WriteTo leaves out what an interrupt does not have — an A2A
// question has no review URL, a case may have no prompt — so no line is empty, and a
// reminder's first line says it is one.
func TestWriteToNoEmptyLine(t *testing.T) {
	for _, tt := range []struct {
		name string
		it   *hitl.Interrupt
		want string
	}{
		{"A2A relay", &hitl.Interrupt{Kind: hitl.KindA2ARelay, Task: &a2a.Pause{Class: a2a.ClassRelay, TaskID: "t1"}},
			"An administrator must approve this request before it continues.\nAgent task relay\n"},
		{"case without a prompt", &hitl.Interrupt{Kind: hitl.KindHITL, Message: "Plan ready.", Reminder: 1, Case: &hitl.Case{
			CaseID: "review_1", Type: hitl.TypeApproval, ReviewURL: "https://svc.example/review/1?token=abc"}},
			"Reminder: Plan ready.\nApproval review\nReview: https://svc.example/review/1?token=abc\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := hitl.WriteTo(&b)(t.Context(), tt.it); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want || strings.Contains(b.String(), "\n\n") || strings.Contains(b.String(), "Review: \n") {
				t.Errorf("wrote %q, want %q", b.String(), tt.want)
			}
		})
	}
}
