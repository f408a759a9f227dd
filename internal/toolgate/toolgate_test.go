package toolgate

import (
	"testing"

	"github.com/hitlkit/hitlkit/transport"
)

// TestOutcome: only an approval, or a person's edit carrying an arguments object, runs the
// tool; everything else says why not.
func TestOutcome(t *testing.T) {
	for _, tt := range []struct {
		r      *transport.Result
		run    bool
		edited string
		why    string
	}{
		{&transport.Result{Status: transport.StatusCompleted, Action: "approve", Decision: transport.DecisionApprove}, true, "", ""},
		{&transport.Result{Status: transport.StatusCompleted, Action: "edit", Decision: transport.DecisionAnswer, Data: []byte(`{"edits":{"a":1}}`)}, true, `{"a":1}`, ""},
		{&transport.Result{Status: transport.StatusCompleted, Action: "edit", Decision: transport.DecisionAnswer, Data: []byte(`{"edits":"x"}`)}, false, "", "not run: the person edited the call but gave no arguments"},
		{&transport.Result{Status: transport.StatusExpired, Action: "edit", DefaultApplied: true, Data: []byte(`{"edits":{"a":1}}`)}, false, "", "not run: the request expired without a decision"},
		{&transport.Result{Status: transport.StatusExpired, DefaultApplied: true, DefaultAction: "approve"}, false, "", "not run: the request expired without a decision"},
		{&transport.Result{Status: transport.StatusCompleted, Action: "reject", Decision: transport.DecisionReject, Data: []byte(`{"feedback":"no"}`)}, false, "", "not run: the person rejected it: no"},
		{&transport.Result{Status: transport.StatusCancelled, Reason: "gone"}, false, "", "not run: the request was cancelled: gone"},
		{&transport.Result{Status: transport.StatusFailed}, false, "", "not run: the request failed"},
		{&transport.Result{Status: transport.StatusCompleted, Action: "submit", Decision: transport.DecisionAnswer}, false, "", "not run: the answer (submit) is not an approval"},
		{nil, false, "", "not run: no decision was given"},
	} {
		run, edited, why := Outcome(tt.r)
		if run != tt.run || string(edited) != tt.edited || why != tt.why {
			t.Errorf("Outcome(%v) = %v, %s, %q; want %v, %s, %q", tt.r, run, edited, why, tt.run, tt.edited, tt.why)
		}
	}
	if a, ok, why := Answer(&transport.Result{Status: transport.StatusCompleted, Decision: transport.DecisionAnswer, Action: "submit"}); !ok || string(a) != "{}" || why != "" {
		t.Errorf("Answer without data = %s, %v, %q", a, ok, why)
	}
	if _, ok, why := Answer(&transport.Result{Status: transport.StatusExpired, DefaultApplied: true, DefaultAction: "submit", Data: []byte(`{"x":1}`)}); ok || why != "no answer: the request expired without a decision" {
		t.Errorf("Answer of an expiry = %v, %q", ok, why)
	}
}
