// Package toolgate is what an agent framework's tool does with a person's Result, for the
// framework adapters (hitleino, hitlgenkit): run only on an approval or a person's edit of
// the arguments, and otherwise tell the model why not.
package toolgate

import (
	"encoding/json"
	"fmt"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/transport"
)

// Outcome reports whether a tool gated by a person runs on r: only for an Approved Result,
// or for an edit (Action "edit" on a completed case, no default applied) whose data holds the
// edited arguments as a JSON object in "edits", returned in edited. When it does not run, why
// is the line the model gets instead: "not run: " and what happened (rejected, expired,
// cancelled, failed, no decision), with the person's feedback or the service's reason.
func Outcome(r *transport.Result) (run bool, edited json.RawMessage, why string) {
	if r.Approved() {
		return true, nil, ""
	}
	if r == nil {
		return false, nil, "not run: no decision was given"
	}
	reason := r.Reason
	if a, err := hitl.ApprovalOf(r); err == nil && a.Feedback != "" {
		reason = a.Feedback
	}
	suffix := ""
	if reason != "" {
		suffix = ": " + reason
	}
	switch {
	case r.Status == transport.StatusCompleted && !r.DefaultApplied && r.Action == "edit":
		a, err := hitl.ApprovalOf(r)
		var obj map[string]json.RawMessage
		if err != nil || json.Unmarshal(a.Edits, &obj) != nil || obj == nil {
			return false, nil, "not run: the person edited the call but gave no arguments"
		}
		return true, a.Edits, ""
	case r.Decision == transport.DecisionReject || r.Status == transport.StatusRejected:
		return false, nil, "not run: the person rejected it" + suffix
	case r.Status == transport.StatusExpired:
		return false, nil, "not run: the request expired without a decision" + suffix
	case r.Status == transport.StatusCancelled:
		return false, nil, "not run: the request was cancelled" + suffix
	case r.Status == transport.StatusFailed:
		return false, nil, "not run: the request failed" + suffix
	}
	return false, nil, fmt.Sprintf("not run: the answer (%s) is not an approval", r.Action)
}

// Answer returns the person's answer a tool that asked for information gives the model: the
// Result's data (raw JSON, "{}" when none) when the case completed with a person's approval
// or answer and no default applied; otherwise ok is false and why says why no answer came.
func Answer(r *transport.Result) (answer json.RawMessage, ok bool, why string) {
	if r != nil && r.Status == transport.StatusCompleted && !r.DefaultApplied &&
		(r.Decision == transport.DecisionApprove || r.Decision == transport.DecisionAnswer) {
		if len(r.Data) == 0 {
			return json.RawMessage("{}"), true, ""
		}
		return r.Data, true, ""
	}
	_, _, why = Outcome(r)
	if len(why) >= len("not run") && why[:len("not run")] == "not run" {
		why = "no answer" + why[len("not run"):]
	}
	return nil, false, why
}
