package hitlslack

import (
	"fmt"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/transport"
)

// marks are the outcome marks a message may show; a line carries exactly one.
var marks = []string{"✅", "❌", "💬", "⌛", "🚫", "⚠️", "❔"}

// TestVerdictEveryCombination: every Status × Decision × DefaultApplied, each with an Action
// that says approve, reject or edit, shows the mark of its Status and Decision — never of its
// Action — and ✅ exactly when the Result is a go-ahead (Approved). An expiry names the
// default the service applied; a rejection is never shown as ✅.
func TestVerdictEveryCombination(t *testing.T) {
	statuses := []transport.Status{transport.StatusCompleted, transport.StatusExpired, transport.StatusCancelled,
		transport.StatusRejected, transport.StatusFailed, "paused"}
	decisions := []transport.Decision{transport.DecisionApprove, transport.DecisionReject, transport.DecisionAnswer, ""}
	want := func(s transport.Status, d transport.Decision, dflt bool) string {
		switch {
		case s == transport.StatusExpired, s == transport.StatusCompleted && dflt:
			return "⌛"
		case s == transport.StatusCancelled:
			return "🚫"
		case s == transport.StatusRejected:
			return "❌"
		case s == transport.StatusFailed:
			return "⚠️"
		case s != transport.StatusCompleted:
			return "❔"
		}
		return map[transport.Decision]string{transport.DecisionApprove: "✅", transport.DecisionReject: "❌",
			transport.DecisionAnswer: "💬", "": "❔"}[d]
	}
	for _, s := range statuses {
		for _, d := range decisions {
			for _, dflt := range []bool{false, true} {
				for _, action := range []string{"approve", "reject", "edit", ""} {
					for _, by := range []string{"", "U0REVIEWER"} {
						r := &transport.Result{Status: s, Decision: d, Action: action, DefaultApplied: dflt, Reason: "a reason"}
						if dflt {
							r.DefaultAction = "approve"
						}
						name := fmt.Sprintf("%s/%q/default=%v/action=%q/by=%q", s, d, dflt, action, by)
						got := outcomeText(r, by)
						m := want(s, d, dflt)
						if !strings.HasPrefix(got, m+" ") {
							t.Errorf("%s: %q, want the mark %s", name, got, m)
						}
						for _, other := range marks {
							if other != m && strings.Contains(got, other) {
								t.Errorf("%s: %q also shows %s", name, got, other)
							}
						}
						if strings.Contains(got, "✅") != r.Approved() {
							t.Errorf("%s: %q: ✅ shown = %v, Approved() = %v", name, got, !r.Approved(), r.Approved())
						}
						if m == "⌛" && dflt && !strings.Contains(got, "the default *approve* applied") {
							t.Errorf("%s: %q does not name the default that applied", name, got)
						}
					}
				}
			}
		}
	}
}

// TestVerdictWords: the lines a person reads, for the usual outcomes.
func TestVerdictWords(t *testing.T) {
	ana := &transport.Responder{Name: "Ana Lima"}
	for _, tt := range []struct {
		r    transport.Result
		by   string
		want string
	}{
		{transport.Result{Status: transport.StatusCompleted, Action: "approve", Decision: transport.DecisionApprove}, "U1", "✅ *Approved* by <@U1>"},
		{transport.Result{Status: transport.StatusCompleted, Action: "confirm", Decision: transport.DecisionApprove}, "U1", "✅ *Approved*: *Confirm* by <@U1>"},
		{transport.Result{Status: transport.StatusCompleted, Action: "reject", Decision: transport.DecisionReject}, "U1", "❌ *Rejected* by <@U1>"},
		{transport.Result{Status: transport.StatusCompleted, Action: "reject", Decision: transport.DecisionReject, RespondedBy: ana}, "", "❌ *Rejected* by Ana Lima (on the review page)"},
		{transport.Result{Status: transport.StatusCompleted, Action: "edit", Decision: transport.DecisionAnswer}, "U1", "💬 *Answered*: *Edit* by <@U1>"},
		{transport.Result{Status: transport.StatusCompleted, Action: "approve"}, "", "❔ *Completed without a decision*: *Approve*"},
		{transport.Result{Status: transport.StatusExpired, DefaultApplied: true, DefaultAction: "approve"}, "", "⌛ *Expired* — nobody answered in time; the default *approve* applied"},
		{transport.Result{Status: transport.StatusExpired}, "", "⌛ *Expired* — nobody answered in time"},
		{transport.Result{Status: transport.StatusCancelled, Reason: "duplicate <request>"}, "", "🚫 *Cancelled*: duplicate &lt;request&gt;"},
		{transport.Result{Status: transport.StatusRejected, Reason: "policy"}, "", "❌ *Rejected*: policy"},
		{transport.Result{Status: transport.StatusFailed, Reason: "timeout"}, "", "⚠️ *Failed*: timeout"},
	} {
		if got := outcomeText(&tt.r, tt.by); got != tt.want {
			t.Errorf("%v by %q: %q, want %q", tt.r, tt.by, got, tt.want)
		}
	}
}
