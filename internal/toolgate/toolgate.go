// Package toolgate is what an agent framework's tool does with a person's Result, for the
// framework adapters (hitleino, hitlgenkit): run only on an approval or a person's edit of
// the arguments, and otherwise tell the model why not.
package toolgate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/internal/jsonname"
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

// Edit returns the arguments a person's edit runs the tool with: the model's arguments, a
// JSON object (empty or null: none), with each field of edits, the approval's "edits" object,
// put over them. A field the person did not edit keeps the model's value; an edited field
// replaces the model's field of the same name, and one whose name differs from the model's
// only in case takes the model's spelling, so that a case-insensitive decoder (Go's) cannot
// pick the model's value over the person's. HITL Protocol defines an approval's data as
// {feedback?, edits?} and says no more about edits; hitlkit takes them as the fields changed.
// The merge is one level deep: an edit cannot take a field away (one left out keeps the
// model's value), and an object-valued field is replaced whole.
// When the model's arguments or edits are not a JSON object, the error says so and nothing
// runs ([Unfit]).
func Edit(args, edits json.RawMessage) (json.RawMessage, error) {
	var model map[string]json.RawMessage
	if t := bytes.TrimSpace(args); len(t) > 0 && !bytes.Equal(t, []byte("null")) {
		if err := json.Unmarshal(t, &model); err != nil || model == nil {
			return nil, errors.New("the model's arguments are not a JSON object")
		}
	}
	var person map[string]json.RawMessage
	if err := json.Unmarshal(edits, &person); err != nil || person == nil {
		return nil, errors.New("the edits are not a JSON object")
	}
	merged := make(map[string]json.RawMessage, len(model)+len(person))
	byFold := make(map[string][]string, len(model)) // the model's names, by folded name
	for k, v := range model {
		merged[k] = v
		byFold[jsonname.Fold(k)] = append(byFold[jsonname.Fold(k)], k)
	}
	edited := make(map[string]string, len(person)) // folded name: the person's name
	for k := range person {
		f := jsonname.Fold(k)
		if other, ok := edited[f]; ok {
			return nil, fmt.Errorf("the edits name one field twice (%q and %q)", min(k, other), max(k, other))
		}
		edited[f] = k
	}
	for f, k := range edited {
		name := k
		if same := byFold[f]; len(same) > 0 && !slices.Contains(same, k) {
			name = slices.Min(same)
		}
		for _, mk := range byFold[f] {
			delete(merged, mk)
		}
		merged[name] = person[k]
	}
	return json.Marshal(merged)
}

// Unknown checks the fields of edits (the approval's "edits" object) against schema, the
// tool's parameters as a JSON Schema: each edited field must be one of its "properties"
// (matched as a case-insensitive decoder matches a name), or the error names the first that
// is not. An edit of a field the tool does not have cannot be applied; running the tool with
// the model's arguments instead would pass for an approval the person did not give. A schema
// without properties is not checked.
func Unknown(schema, edits json.RawMessage) error {
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return nil
	}
	known := make(map[string]bool, len(s.Properties))
	for k := range s.Properties {
		known[jsonname.Fold(k)] = true
	}
	var person map[string]json.RawMessage
	if err := json.Unmarshal(edits, &person); err != nil {
		return errors.New("the edits are not a JSON object")
	}
	var unknown []string
	for k := range person {
		if !known[jsonname.Fold(k)] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	return fmt.Errorf("the tool has no argument %q", slices.Min(unknown))
}

// Unfit is the line the model gets when the person's edit, merged over the model's arguments
// ([Edit]), does not fit the tool's arguments: err says how.
func Unfit(err error) string {
	return "not run: the person's edit does not fit the tool's arguments: " + strings.Join(strings.Fields(err.Error()), " ")
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

// AskAll asks every question at once, each on a goroutine of its own, and returns every
// Result in the questions' order — or no Results and every error, once every ask has
// returned. check refuses a question before it is asked (nil: ask it); wrap names the
// question in its ask's error. Cancelling ctx cancels the asks.
func AskAll[Q any](ctx context.Context, qs []Q, ask func(context.Context, Q) (*transport.Result, error),
	check func(i int, q Q) error, wrap func(q Q, err error) error) ([]*transport.Result, error) {
	results := make([]*transport.Result, len(qs))
	errs := make([]error, len(qs))
	var wg sync.WaitGroup
	for i, q := range qs {
		if errs[i] = check(i, q); errs[i] != nil {
			continue
		}
		wg.Go(func() {
			if results[i], errs[i] = ask(ctx, q); errs[i] != nil {
				errs[i] = wrap(q, errs[i])
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return results, nil
}
