package mcpcore

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/transport"
)

// TestVerdict: every Result that is not an approval has its outcome in plain words, starting
// "Not done: ", naming the tool and nothing the person gave (reason, data) or the case.
func TestVerdict(t *testing.T) {
	secret := func(r transport.Result) *transport.Result {
		r.CaseID, r.Reason, r.Data = "review_secret", "secret reason", []byte(`{"secret":1}`)
		return &r
	}
	for _, tt := range []struct {
		r    *transport.Result
		want string
	}{
		{secret(transport.Result{Status: transport.StatusCompleted, Decision: transport.DecisionReject, Action: "reject"}), "Not done: the person rejected delete_file."},
		{secret(transport.Result{Status: transport.StatusCompleted, Decision: transport.DecisionAnswer, Action: "edit"}), "Not done: the person did not approve delete_file as asked; they answered with changes or another choice instead."},
		{secret(transport.Result{Status: transport.StatusCompleted}), "Not done: the review of delete_file ended without the person's approval."},
		{secret(transport.Result{Status: transport.StatusCompleted, Decision: transport.DecisionApprove, DefaultApplied: true}), "Not done: the review of delete_file ended without the person's approval."},
		{secret(transport.Result{Status: transport.StatusExpired, DefaultApplied: true, DefaultAction: "approve"}), "Not done: the review of delete_file expired before the person decided; the default the service applied is not the person's approval."},
		{secret(transport.Result{Status: transport.StatusExpired}), "Not done: the review of delete_file expired before the person decided."},
		{secret(transport.Result{Status: transport.StatusCancelled}), "Not done: the review of delete_file was cancelled."},
		{secret(transport.Result{Status: transport.StatusRejected}), "Not done: the service refused the review of delete_file."},
		{secret(transport.Result{Status: transport.StatusFailed}), "Not done: the review of delete_file failed."},
		{secret(transport.Result{Status: "x-unknown"}), "Not done: the review of delete_file ended without the person's approval."},
		{nil, "Not done: the review of delete_file ended without the person's approval."},
	} {
		if got := Verdict("delete_file", tt.r); got != tt.want || strings.Contains(got, "secret") {
			t.Errorf("Verdict(%v) = %q, want %q", tt.r, got, tt.want)
		}
	}
}

// TestDecided: an approval is the callback's result as it is, its error too; any other
// outcome is the callback's result (told the Result) behind the verdict, and a failing
// callback's error text behind the verdict, never an error.
func TestDecided(t *testing.T) {
	type res struct {
		texts   []string
		isError bool
	}
	notApproved := func(r *res, texts ...string) *res {
		if r == nil {
			r = &res{}
		}
		return &res{texts: append(slices.Clone(texts), r.texts...), isError: true}
	}
	approve := &transport.Result{Status: transport.StatusCompleted, Decision: transport.DecisionApprove}
	reject := &transport.Result{Status: transport.StatusCompleted, Decision: transport.DecisionReject}
	failed := errors.New("could not word it")
	for _, tt := range []struct {
		name    string
		r       *transport.Result
		err     error
		want    []string
		isError bool
		wantErr error
	}{
		{"approved", approve, nil, []string{"deleted"}, false, nil},
		{"approved, callback fails", approve, failed, nil, false, failed},
		{"rejected", reject, nil, []string{Verdict("t", reject), "deleted"}, true, nil},
		{"rejected, callback fails", reject, failed, []string{Verdict("t", reject), "could not word it"}, true, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var told *transport.Result
			got, err := Decided(context.Background(), "t", tt.r, func(_ context.Context, r *transport.Result) (*res, error) {
				told = r
				if tt.err != nil {
					return nil, tt.err
				}
				return &res{texts: []string{"deleted"}}, nil
			}, notApproved)
			if told != tt.r || !errors.Is(err, tt.wantErr) {
				t.Fatalf("told %v, err %v; want %v, %v", told, err, tt.r, tt.wantErr)
			}
			if tt.wantErr != nil {
				return
			}
			if !slices.Equal(got.texts, tt.want) || got.isError != tt.isError {
				t.Errorf("got %q (isError %v), want %q (isError %v)", got.texts, got.isError, tt.want, tt.isError)
			}
		})
	}
}

// TestNotDoneReadsAsSentences: the service's prompt ends as a sentence before the review
// link, whatever its own punctuation; no prompt leaves no gap.
func TestNotDoneReadsAsSentences(t *testing.T) {
	for prompt, want := range map[string]string{
		"Deploy to production":   "(pending). Deploy to production. Review: https://svc.example/r",
		"Delete the report?":     "(pending). Delete the report? Review: https://svc.example/r",
		"  Approve the refund. ": "(pending). Approve the refund. Review: https://svc.example/r",
		"":                       "(pending). Review: https://svc.example/r",
	} {
		it := &hitl.Interrupt{Case: &hitl.Case{Prompt: prompt, ReviewURL: "https://svc.example/r"}}
		if got := NotDone("deploy", it, "pending"); !strings.HasSuffix(got, want) {
			t.Errorf("NotDone with prompt %q = %q, want it to end %q", prompt, got, want)
		}
	}
}
