package transport_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/hi"
	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/hxp/hxptest"
	"github.com/hitlkit/hitlkit/transport"
)

// decisionCase is one human decision, as a person makes it in any protocol.
type decisionCase struct {
	name    string
	approve bool
	reason  string
}

// want is what every protocol must report for a decision (Action is each protocol's own
// word; RespondedBy is who the service says answered, for the protocols that report one).
type shape struct {
	Status      transport.Status
	Decision    transport.Decision
	Action      string
	Reason      string
	RespondedBy string
}

func shapeOf(r *transport.Result) shape {
	s := shape{Status: r.Status, Decision: r.Decision, Action: r.Action, Reason: r.Reason}
	if r.RespondedBy != nil {
		s.RespondedBy = r.RespondedBy.Name
	}
	return s
}

// TestOneResultShape runs the same human decisions — a yes, a no with a reason, a no without
// one — through hitl, hxp and a2a against their fakes, and hi's resolution of a response, and compares the Results: the same
// Status, Decision and Reason everywhere (a person's no is completed with DecisionReject and
// its reason in Reason, its data still in Data), Action in each protocol's own word, and the
// responder where the protocol reports one.
func TestOneResultShape(t *testing.T) {
	cases := []decisionCase{{"approve", true, ""}, {"reject with a reason", false, "too risky"}, {"reject", false, ""}}
	protocols := []struct {
		name        string
		yes, no     string
		respondedBy string
		run         func(t *testing.T, d decisionCase) *transport.Result
	}{
		{"hitl", "approve", "reject", "ana", hitlDecision},
		{"hxp", hxp.Approved, hxp.Rejected, "ana", hxpDecision},
		{"a2a", "approve", "deny", "", a2aDecision}, // A2A reports no responder
		{"hi", "approve", "reject", "ana", hiDecision},
	}
	for _, d := range cases {
		for _, p := range protocols {
			t.Run(d.name+"/"+p.name, func(t *testing.T) {
				r := p.run(t, d)
				want := shape{Status: transport.StatusCompleted, Decision: transport.DecisionApprove, Action: p.yes,
					Reason: d.reason, RespondedBy: p.respondedBy}
				if !d.approve {
					want.Decision, want.Action = transport.DecisionReject, p.no
				}
				if got := shapeOf(r); got != want {
					t.Errorf("%s: %+v; want %+v", p.name, got, want)
				}
				if r.Approved() != d.approve {
					t.Errorf("Approved() = %v", r.Approved())
				}
			})
		}
	}
}

func hitlDecision(t *testing.T, d decisionCase) *transport.Result {
	svc := hitltest.NewMemoryServer(t)
	c, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses())
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(`{"prompt":"Deploy?"}`))
	resp, err := svc.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	it, err := c.Detect(resp)
	_ = resp.Body.Close()
	if err != nil || it == nil {
		t.Fatalf("Detect = %v, %v", it, err)
	}
	action, data := "approve", map[string]any{}
	if !d.approve {
		action = "reject"
	}
	if d.reason != "" {
		data["feedback"] = d.reason
	}
	if err := svc.Respond(it.ID(), action, data, &transport.Responder{Name: "ana"}); err != nil {
		t.Fatal(err)
	}
	r, err := c.Wait(t.Context(), it, &hitl.WaitOptions{PollOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if a, err := hitl.ApprovalOf(r); err != nil || a.Feedback != d.reason {
		t.Errorf("ApprovalOf = %+v, %v; the data stays in Data", a, err)
	}
	return r
}

func hxpDecision(t *testing.T, d decisionCase) *transport.Result {
	srv := hxptest.NewServer(t)
	c, err := hxp.NewClient(srv.URL, transport.WithHTTPClient(srv.Client()), transport.WithAllowPrivateAddresses(),
		transport.WithAuthorization(transport.StaticToken(hxptest.DefaultAgentKey)))
	if err != nil {
		t.Fatal(err)
	}
	cr, err := c.Create(t.Context(), &hxp.Request{Priority: hxp.PriorityHigh, TimeoutSeconds: 3600, AgentID: "agent_1",
		Approve: &hxp.Approve{Item: "Deploy?", Details: json.RawMessage(`{}`)}})
	if err != nil {
		t.Fatal(err)
	}
	result := hxp.Approved
	if !d.approve {
		result = hxp.Rejected
	}
	if _, err := srv.Resolve(cr.RequestID, result, d.reason, "ana"); err != nil {
		t.Fatal(err)
	}
	r, err := c.Wait(t.Context(), cr, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func a2aDecision(t *testing.T, d decisionCase) *transport.Result {
	agent := a2atest.NewMemoryAgent(t)
	c, err := a2a.NewClient(transport.WithHTTPClient(agent.Client()), transport.WithAllowPrivateAddresses())
	if err != nil {
		t.Fatal(err)
	}
	ep := agent.Endpoint(a2a.JSONRPC10)
	ev, err := c.Send(t.Context(), ep, a2a.Message{Parts: []a2a.Part{a2a.TextPart("delete the report")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := a2a.NewPause(ep, ev.Task)
	if p == nil {
		t.Fatal("the task does not ask")
	}
	ask := func(context.Context, *a2a.Pause) (a2a.Answer, error) {
		a := a2a.HectorDecision(d.approve)
		if d.reason != "" {
			a.Parts = append(a.Parts, a2a.TextPart(d.reason))
		}
		return a, nil
	}
	r, err := c.Run(t.Context(), p, ask, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func hiDecision(t *testing.T, d decisionCase) *transport.Result {
	it, err := hi.Parse([]byte(`{"interactionId":"inv-1","resolutionPolicy":"first_response","timestamp":"2026-11-22T10:00:00Z",
	  "agentInstanceId":"agent-1","type":"approval","urgency":"blocking","userActions":["approve","reject"],
	  "agentOutput":{"summary":"Deploy?","confidence":0.5},"participants":[{"id":"ana","role":"owner"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	action := "approve"
	if !d.approve {
		action = "reject"
	}
	tally, err := it.Record(hi.Feedback{ParticipantID: "ana", Action: action, Reason: d.reason})
	if err != nil {
		t.Fatal(err)
	}
	return tally.Result("inv-1")
}
