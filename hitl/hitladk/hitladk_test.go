package hitladk_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"

	"github.com/hitlkit/hitlkit/hitl/hitladk"
	"github.com/hitlkit/hitlkit/transport"
	"google.golang.org/adk/v2/session"
	"google.golang.org/adk/v2/tool/toolconfirmation"
	"google.golang.org/genai"
)

// paused builds an ADK agent whose delete_file tool (calling deleted) requires confirmation,
// runs it until it pauses and returns its next turn and the one pause; anything else fails t.
func paused(t *testing.T, deleted func(path string)) (turn func(*genai.Content) ([]*session.Event, error), pause hitladk.Request) {
	t.Helper()
	del, err := NewDeleteFileTool(deleted)
	if err != nil {
		t.Fatal(err)
	}
	turn, err = StartAgent(t.Context(), del)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := turn(genai.NewContentFromText("clean up the report", genai.RoleUser))
	pending := hitladk.Pending(evs)
	if err != nil || len(pending) != 1 {
		t.Fatalf("pending %+v, %v: want one confirmation", pending, err)
	}
	return turn, pending[0]
}

// run runs the agent of paused until it pauses, answers the pause with result through
// hitladk, runs it again, and reports whether the tool ran.
func run(t *testing.T, result *transport.Result) (ran bool, pending []hitladk.Request) {
	t.Helper()
	var deleted atomic.Bool
	turn, pause := paused(t, func(string) { deleted.Store(true) })
	if deleted.Load() {
		t.Fatal("deleted before the answer")
	}
	after, err := turn(hitladk.Response(pause, result))
	if err != nil {
		t.Fatal(err)
	}
	if p := hitladk.Pending(after); len(p) != 0 {
		t.Errorf("still pending after the answer: %+v", p)
	}
	return deleted.Load(), []hitladk.Request{pause}
}

// TestConfirmation: against a real ADK runner with a scripted model, a delete_file call that
// requires confirmation pauses; approve runs the tool, a rejection and an expiry (even one
// whose default action is approve) do not, and neither do a nil Result (no one was asked), an
// approving Decision on a case that did not complete or had its default applied, or a
// person's answer that is not an approval (a selection, a submitted form, an edit).
func TestConfirmation(t *testing.T) {
	for _, tt := range []struct {
		name   string
		result *transport.Result
		ran    bool
	}{
		{"approved", &transport.Result{Status: transport.StatusCompleted, Action: "approve", Decision: transport.DecisionApprove}, true},
		{"rejected", &transport.Result{Status: transport.StatusCompleted, Action: "reject", Decision: transport.DecisionReject}, false},
		{"expired with default approve", &transport.Result{Status: transport.StatusExpired, DefaultApplied: true, DefaultAction: "approve"}, false},
		{"cancelled", &transport.Result{Status: transport.StatusCancelled}, false},
		{"nil result", nil, false},
		{"status rejected with an approve decision", &transport.Result{Status: transport.StatusRejected, Action: "approve", Decision: transport.DecisionApprove}, false},
		{"default applied with an approve decision", &transport.Result{Status: transport.StatusCompleted, Action: "approve", Decision: transport.DecisionApprove, DefaultApplied: true, DefaultAction: "approve"}, false},
		{"selection answered", &transport.Result{Status: transport.StatusCompleted, Action: "select", Decision: transport.DecisionAnswer, Data: []byte(`{"selected":["keep the file"]}`)}, false},
		{"form submitted", &transport.Result{Status: transport.StatusCompleted, Action: "submit", Decision: transport.DecisionAnswer, Data: []byte(`{"proceed":false,"note":"do NOT delete"}`)}, false},
		{"edited", &transport.Result{Status: transport.StatusCompleted, Action: "edit", Decision: transport.DecisionAnswer, Data: []byte(`{"edits":{"path":"/tmp/other.txt"}}`)}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ran, pending := run(t, tt.result)
			if ran != tt.ran {
				t.Errorf("tool ran = %v, want %v", ran, tt.ran)
			}
			p := pending[0]
			if p.Name != toolconfirmation.FunctionCallName || p.Tool != "delete_file" || p.Args["path"] != "/tmp/report.txt" || p.CallID == "" {
				t.Errorf("pending %+v", p)
			}
		})
	}
}

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestAnswer: several pauses are asked at once and answered in one message, in order; one
// failed ask answers none.
func TestAnswer(t *testing.T) {
	reqs := []hitladk.Request{
		{CallID: "c1", Name: toolconfirmation.FunctionCallName, Tool: "delete_file"},
		{CallID: "c2", Name: hitladk.InputCallName},
	}
	ask := func(_ context.Context, r hitladk.Request) (*transport.Result, error) {
		if r.CallID == "c1" {
			return &transport.Result{Status: transport.StatusCompleted, Action: "approve", Decision: transport.DecisionApprove}, nil
		}
		return &transport.Result{Status: transport.StatusCompleted, Action: "submit", Data: []byte(`{"name":"Ana"}`), Decision: transport.DecisionAnswer}, nil
	}
	msg, err := hitladk.Answer(t.Context(), reqs, ask)
	if err != nil || len(msg.Parts) != 2 {
		t.Fatalf("Answer = %+v, %v", msg, err)
	}
	c1, c2 := msg.Parts[0].FunctionResponse, msg.Parts[1].FunctionResponse
	if c1.ID != "c1" || c1.Response["confirmed"] != true || c2.ID != "c2" || c2.Response["action"] != "submit" {
		t.Errorf("responses %+v, %+v", c1, c2)
	}

	lost := errors.New("service unreachable")
	msg, err = hitladk.Answer(t.Context(), reqs, func(ctx context.Context, r hitladk.Request) (*transport.Result, error) {
		if r.CallID == "c2" {
			return nil, lost
		}
		return ask(ctx, r)
	})
	if msg != nil || !errors.Is(err, lost) || !strings.Contains(err.Error(), "c2") {
		t.Errorf("with a failed ask: %+v, %v", msg, err)
	}
}

// TestADKTakesAnUnknownCallID records what ADK v2.0.0 does with a response to a call it did
// not make: it takes it without an error and the run goes on, so there is no refusal for
// hitladk to turn into an error; a host must answer only the Requests Pending found. If a
// newer ADK refuses, this test fails and that refusal should become a typed error.
func TestADKTakesAnUnknownCallID(t *testing.T) {
	turn, other := paused(t, func(string) { t.Error("the tool ran on an answer to another call") })
	other.CallID = "not-a-call-of-this-run"
	if _, err := turn(hitladk.Response(other, &transport.Result{Status: transport.StatusCompleted, Action: "approve", Decision: transport.DecisionApprove})); err != nil {
		t.Errorf("ADK refused the response: %v — make it a typed error", err)
	}
}
