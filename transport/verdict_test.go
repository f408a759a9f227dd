package transport_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/hi"
	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/hxp/hxptest"
	"github.com/hitlkit/hitlkit/internal/decision"
	"github.com/hitlkit/hitlkit/internal/memhttp"
	"github.com/hitlkit/hitlkit/transport"
)

// verdict is what a caller reads from a Result to decide whether to go ahead.
type verdict struct {
	Status   transport.Status
	Action   string
	Decision transport.Decision
	Approved bool
	ByHuman  bool
}

func verdictOf(r *transport.Result) verdict {
	return verdict{r.Status, r.Action, r.Decision, r.Approved(), r.Decision != ""}
}

// hitlOutcome runs one HITL case of review type typ against the fake service, the human
// acting as human does (nothing when nil), and returns the Result of the wait.
func hitlOutcome(t *testing.T, typ, body string, human func(s *hitltest.Server, id string) error) *transport.Result {
	var r *transport.Result
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t)
		c, err := hitl.NewClient(transport.WithHTTPClient(s.Client()), hitl.WithForwarder(hitl.WriteTo(io.Discard)))
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			if id := s.NextCase(t.Context().Done()); id != "" && human != nil {
				if err := human(s, id); err != nil {
					t.Error(err)
				}
			}
		}()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, s.URL+"/actions/"+typ, strings.NewReader(body))
		resp, err := c.Do(t.Context(), req, nil)
		var na *hitl.NotApprovedError
		if err != nil && !errors.As(err, &na) {
			t.Fatal(err)
		}
		resp.Body.Close()
		r = resp.Result
		if (err == nil) != r.Approved() || !errors.Is(err, hitl.ErrNotApproved) && err != nil {
			t.Errorf("Do = %v, %v; want an error matching hitl.ErrNotApproved exactly when not approved", r, err)
		}
	})
	return r
}

func respond(action string, data any) func(*hitltest.Server, string) error {
	return func(s *hitltest.Server, id string) error { return s.Respond(id, action, data, nil) }
}

// a2aOutcome runs a tool-approval task at an agent reached through hc (the fake agent when
// nil) to its end, the human answering with answer.
func a2aOutcome(t *testing.T, hc *http.Client, answer a2a.Answer) *transport.Result {
	var r *transport.Result
	synctest.Test(t, func(t *testing.T) {
		ep := a2a.Endpoint{URL: "https://agent.example/rpc", Binding: a2a.JSONRPC10}
		if hc == nil {
			agent := a2atest.NewMemoryAgent(t)
			hc, ep = agent.Client(), agent.Endpoint(a2a.JSONRPC10)
		}
		c, err := a2a.NewClient(transport.WithHTTPClient(hc))
		if err != nil {
			t.Fatal(err)
		}
		ev, err := c.Send(t.Context(), ep, a2a.Message{Parts: []a2a.Part{a2a.TextPart("delete the reports")}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		r, err = c.Run(t.Context(), a2a.NewPause(ep, ev.Task), func(context.Context, *a2a.Pause) (a2a.Answer, error) { return answer, nil }, nil)
		if err != nil {
			t.Fatal(err)
		}
	})
	return r
}

// rejecter is an agent that rejects the task when told no, as some agents end a denied tool
// call: the task's final state is rejected.
func rejecter(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ID     int
		Params struct {
			Message struct {
				TaskID string `json:"taskId"`
			}
		}
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &in)
	state, text := "TASK_STATE_INPUT_REQUIRED", "Delete /tmp/a?"
	if in.Params.Message.TaskID != "" {
		state, text = "TASK_STATE_REJECTED", "Denied."
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":{"task":{"id":"t1","contextId":"c1","status":{"state":%q,"message":{"messageId":"m","role":"ROLE_AGENT","parts":[{"text":%q}]}}}}}`,
		in.ID, state, text)
}

// relayOutcome sends a task through the fake relay, whose administrator decides with
// decide.
func relayOutcome(t *testing.T, decide func(r *a2atest.Relay, id string) error) *transport.Result {
	var r *transport.Result
	synctest.Test(t, func(t *testing.T) {
		relay := a2atest.NewMemoryRelay(t)
		c, err := a2a.NewClient(transport.WithHTTPClient(relay.Client()))
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			if id := relay.NextHold(t.Context().Done()); id != "" {
				if err := decide(relay, id); err != nil {
					t.Error(err)
				}
			}
		}()
		ev, err := c.Send(t.Context(), relay.Endpoint(), a2a.Message{Parts: []a2a.Part{a2a.TextPart("transfer 500 EUR")}}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r, err = c.Run(t.Context(), a2a.NewPause(relay.Endpoint(), ev.Task), nil, nil); err != nil {
			t.Fatal(err)
		}
	})
	return r
}

// hxpOutcome creates req at the fake HXP server and waits for it, the human answering with
// answer (nobody answers when it is nil).
func hxpOutcome(t *testing.T, req *hxp.Request, answer any) *transport.Result {
	s := hxptest.NewServer(t)
	c, err := hxp.NewClient(s.URL, transport.WithHTTPClient(s.Client()), transport.WithAllowPrivateAddresses(),
		transport.WithAuthorization(transport.StaticToken(hxptest.DefaultAgentKey)))
	if err != nil {
		t.Fatal(err)
	}
	req.AgentID = "agent_1"
	created, err := c.Create(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if answer != nil {
		if _, err := s.Resolve(created.RequestID, answer, "", hxptest.HumanID); err != nil {
			t.Fatal(err)
		}
	}
	r, err := c.Wait(t.Context(), created, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestVerdictEveryProtocol: every protocol's outcomes answer "may I go ahead?" the same way:
// Approved only for a human's approval of a completed case, and Decision in the shared words
// whatever the protocol's own (Action, kept).
func TestVerdictEveryProtocol(t *testing.T) {
	completed, expired, cancelled, rejected, failed := transport.StatusCompleted, transport.StatusExpired, transport.StatusCancelled, transport.StatusRejected, transport.StatusFailed
	approve, reject := transport.DecisionApprove, transport.DecisionReject
	decide := &hxp.Decide{Question: "Ship?", Options: []string{"Ship", "Hold"}, DefaultOption: "Hold"}
	approval := &hxp.Approve{Item: "Stripe plan", Details: json.RawMessage(`{"price":99}`)}
	tests := []struct {
		name string
		run  func(t *testing.T) *transport.Result
		want verdict
	}{
		{"hitl approve", func(t *testing.T) *transport.Result {
			return hitlOutcome(t, "approval", "", respond("approve", nil))
		}, verdict{completed, "approve", approve, true, true}},
		{"hitl edit", func(t *testing.T) *transport.Result {
			return hitlOutcome(t, "approval", "", respond("edit", map[string]any{"edits": map[string]any{"title": "x"}}))
		}, verdict{completed, "edit", transport.DecisionAnswer, false, true}},
		{"hitl reject", func(t *testing.T) *transport.Result {
			return hitlOutcome(t, "approval", "", respond("reject", nil))
		}, verdict{completed, "reject", reject, false, true}},
		{"hitl confirm", func(t *testing.T) *transport.Result {
			return hitlOutcome(t, "confirmation", "", respond("confirm", nil))
		}, verdict{completed, "confirm", approve, true, true}},
		{"hitl confirmation cancelled by the human", func(t *testing.T) *transport.Result {
			return hitlOutcome(t, "confirmation", "", respond("cancel", nil))
		}, verdict{completed, "cancel", reject, false, true}},
		{"hitl select", func(t *testing.T) *transport.Result {
			return hitlOutcome(t, "selection", "", respond("select", map[string]any{"selected": []string{"a"}}))
		}, verdict{completed, "select", transport.DecisionAnswer, false, true}},
		{"hitl submit", func(t *testing.T) *transport.Result {
			return hitlOutcome(t, "input", "", respond("submit", map[string]any{"name": "Ana"}))
		}, verdict{completed, "submit", transport.DecisionAnswer, false, true}},
		{"hitl escalation retry", func(t *testing.T) *transport.Result {
			return hitlOutcome(t, "escalation", "", respond("retry", nil))
		}, verdict{completed, "retry", transport.DecisionAnswer, false, true}},
		{"hitl escalation abort", func(t *testing.T) *transport.Result {
			return hitlOutcome(t, "escalation", "", respond("abort", nil))
		}, verdict{completed, "abort", reject, false, true}},
		{"hitl expiry with default approve", func(t *testing.T) *transport.Result {
			return hitlOutcome(t, "approval", `{"default_action":"approve","timeout":"2m"}`, nil)
		}, verdict{expired, "", "", false, false}},
		{"hitl case cancelled", func(t *testing.T) *transport.Result {
			return hitlOutcome(t, "approval", "", func(s *hitltest.Server, id string) error { return s.Cancel(id, "withdrawn") })
		}, verdict{cancelled, "", "", false, false}},
		{"a2a approve", func(t *testing.T) *transport.Result {
			return a2aOutcome(t, nil, a2a.HectorDecision(true))
		}, verdict{completed, "approve", approve, true, true}},
		{"a2a deny, task completed", func(t *testing.T) *transport.Result {
			return a2aOutcome(t, nil, a2a.HectorDecision(false))
		}, verdict{completed, "deny", reject, false, true}},
		{"a2a deny, task rejected", func(t *testing.T) *transport.Result {
			return a2aOutcome(t, &http.Client{Transport: &memhttp.Transport{Handler: http.HandlerFunc(rejecter)}}, a2a.HectorDecision(false))
		}, verdict{rejected, "deny", reject, false, true}},
		{"a2a approve, task rejected", func(t *testing.T) *transport.Result {
			return a2aOutcome(t, &http.Client{Transport: &memhttp.Transport{Handler: http.HandlerFunc(rejecter)}}, a2a.HectorDecision(true))
		}, verdict{rejected, "approve", approve, false, true}},
		{"relay approval", func(t *testing.T) *transport.Result {
			return relayOutcome(t, func(r *a2atest.Relay, id string) error { return r.Approve(id) })
		}, verdict{completed, "", approve, true, true}},
		{"relay rejection", func(t *testing.T) *transport.Result {
			return relayOutcome(t, func(r *a2atest.Relay, id string) error { return r.Reject(id, "not allowed") })
		}, verdict{rejected, "", reject, false, true}},
		{"hxp APPROVE approved", func(t *testing.T) *transport.Result {
			return hxpOutcome(t, &hxp.Request{Approve: approval}, hxp.Approved)
		}, verdict{completed, "approved", approve, true, true}},
		{"hxp APPROVE rejected", func(t *testing.T) *transport.Result {
			return hxpOutcome(t, &hxp.Request{Approve: approval}, hxp.Rejected)
		}, verdict{completed, "rejected", reject, false, true}},
		{"hxp DECIDE", func(t *testing.T) *transport.Result {
			return hxpOutcome(t, &hxp.Request{Decide: decide}, "Ship")
		}, verdict{completed, "Ship", transport.DecisionAnswer, false, true}},
		{"hxp PROVIDE", func(t *testing.T) *transport.Result {
			return hxpOutcome(t, &hxp.Request{Provide: &hxp.Provide{Prompt: "Region?", InputType: hxp.InputText}}, "us-east-1")
		}, verdict{completed, "provide", transport.DecisionAnswer, false, true}},
		{"hxp default on timeout", func(t *testing.T) *transport.Result {
			return hxpOutcome(t, &hxp.Request{Decide: &hxp.Decide{Question: "Ship?", Options: []string{"Approve", "Hold"}, DefaultOption: "Approve"},
				TimeoutSeconds: 1, Fallback: hxp.FallbackDefault}, nil)
		}, verdict{expired, "", "", false, false}},
		{"hi approve", func(*testing.T) *transport.Result {
			return hi.Tally{Resolved: true, Outcome: "approve", DecidedBy: "ana"}.Result("i1")
		}, verdict{completed, "approve", approve, true, true}},
		{"hi chosen action", func(*testing.T) *transport.Result {
			return hi.Tally{Resolved: true, Outcome: "ship", DecidedBy: "ana"}.Result("i1")
		}, verdict{completed, "ship", transport.DecisionAnswer, false, true}},
		{"hi unresolvable", func(*testing.T) *transport.Result {
			return hi.Tally{Resolved: true, Conflict: "split"}.Result("i1")
		}, verdict{failed, "", "", false, false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.run(t)
			if r == nil {
				t.Fatal("no Result")
			}
			if diff := cmp.Diff(tt.want, verdictOf(r)); diff != "" {
				t.Errorf("verdict (-want +got):\n%s", diff)
			}
			// The verdict survives a round trip through JSON, as a stored Result does.
			var back transport.Result
			if b, err := json.Marshal(r); err != nil || json.Unmarshal(b, &back) != nil || verdictOf(&back) != verdictOf(r) {
				t.Errorf("after JSON: %+v", verdictOf(&back))
			}
		})
	}
}

func TestDecisionOf(t *testing.T) {
	for action, want := range map[string]transport.Decision{
		"": "", "approve": transport.DecisionApprove, "Approved": transport.DecisionApprove, "confirm": transport.DecisionApprove,
		"reject": transport.DecisionReject, "rejected": transport.DecisionReject, "deny": transport.DecisionReject,
		"cancel": transport.DecisionReject, "abort": transport.DecisionReject, "edit": transport.DecisionAnswer,
		"select": transport.DecisionAnswer, "submit": transport.DecisionAnswer, "skip": transport.DecisionAnswer,
		"x-escalate": transport.DecisionAnswer, " ": transport.DecisionAnswer,
	} {
		if got := decision.Of(action); got != want {
			t.Errorf("DecisionOf(%q) = %q, want %q", action, got, want)
		}
	}
	// A Result without a Decision is never an approval, whatever its Action.
	if (&transport.Result{Status: transport.StatusCompleted, Action: "approve"}).Approved() {
		t.Error("approved without a Decision")
	}
	var none *transport.Result
	if none.Approved() {
		t.Error("a nil Result approves")
	}
}

// TestResultPrintsItsVerdict: a Result printed (fmt, any verb) or logged (slog) says whether
// it is a go-ahead, so no log line shows a "no" that reads as a yes: an HXP option named
// "Approve", an expiry whose default is approve and a relay approval without an Action each
// print their verdict; the service's words are quoted, and so is an id that is not one plain
// word (it could close the parenthesis or start a line of its own); the data never printed.
func TestResultPrintsItsVerdict(t *testing.T) {
	for _, tt := range []struct {
		r    transport.Result
		want string
	}{
		{transport.Result{Status: transport.StatusCompleted, Action: "approve", Decision: transport.DecisionApprove, CaseID: "review_1"},
			`completed: approve (case review_1) go-ahead`},
		{transport.Result{Status: transport.StatusCompleted, Decision: transport.DecisionApprove, CaseID: "relay-1", Data: []byte(`{"secret":"x"}`)},
			`completed: approve (case relay-1, 14 bytes of data) go-ahead`},
		{transport.Result{Status: transport.StatusCompleted, Action: "Approve", Decision: transport.DecisionAnswer, CaseID: "req_1"},
			`completed: answer "Approve" (case req_1) no go-ahead`},
		{transport.Result{Status: transport.StatusExpired, DefaultApplied: true, DefaultAction: "approve", CaseID: "review_2"},
			`expired: default "approve" (case review_2) no go-ahead`},
		{transport.Result{Status: transport.StatusCompleted, Action: "approve", CaseID: "hand_built"},
			`completed: "approve", no decision (case hand_built) no go-ahead`},
		{transport.Result{Status: transport.StatusRejected, Reason: "blocked\nby policy", CaseID: "t1"},
			`rejected: "blocked\nby policy" (case t1) no go-ahead`},
		{transport.Result{Status: transport.StatusCancelled, CaseID: "review_3"},
			`cancelled (case review_3) no go-ahead`},
		{transport.Result{Status: transport.StatusRejected, Decision: transport.DecisionReject, CaseID: "c1) go-ahead\nINFO completed: approve (case c2"},
			`rejected: reject (case "c1) go-ahead\nINFO completed: approve (case c2") no go-ahead`},
		{transport.Result{Status: transport.StatusCompleted, Decision: transport.DecisionApprove, CaseID: "tasks/7f3a-9c:1.2_x"},
			`completed: approve (case tasks/7f3a-9c:1.2_x) go-ahead`},
	} {
		for _, verb := range []string{"%v", "%s", "%+v", "%#v"} {
			if got := fmt.Sprintf(verb, tt.r); got != tt.want {
				t.Errorf("%s = %s, want %s", verb, got, tt.want)
			}
		}
		if got := fmt.Sprint(&tt.r); got != tt.want {
			t.Errorf("Sprint(pointer) = %s, want %s", got, tt.want)
		}
		approved := tt.r.LogValue().Group()[4]
		if approved.Key != "approved" || approved.Value.Bool() != tt.r.Approved() {
			t.Errorf("%s: LogValue's %v, want approved=%v", tt.want, approved, tt.r.Approved())
		}
	}
}
