package hitl_test

import (
	"errors"
	"testing"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/transport"
)

func TestReviewData(t *testing.T) {
	r := &transport.Result{Status: transport.StatusCompleted, Action: "approve"}
	if a, err := hitl.ApprovalOf(r); err != nil || a.Feedback != "" {
		t.Errorf("approve without data: %+v, %v", a, err)
	}
	if _, err := hitl.SelectionOf(r); !errors.Is(err, transport.ErrNoData) {
		t.Errorf("selection without data: %v", err)
	}
	r.Data = []byte(`{"selected_ids":["a","b"],"note":"n"}`)
	if s, err := hitl.SelectionOf(r); err != nil || len(s.Selected) != 2 || s.Note != "n" {
		t.Errorf("SelectionOf = %+v, %v", s, err)
	}
	r.Data = []byte(`[1]`)
	if _, err := hitl.InputOf(r); err == nil {
		t.Error("InputOf on an array: want an error")
	}
}
