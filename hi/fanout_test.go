package hi_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/hi"
	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/hxp/hxptest"
	"github.com/hitlkit/hitlkit/transport"
)

// TestFanOutOverHITL: five participants, one HITL case each; the third approval (at 35 s)
// resolves majority, the two waits still open are stopped at once, and nothing is left
// running (synctest fails the test otherwise).
func TestFanOutOverHITL(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t, hitltest.WithRetryAfter(30*time.Second))
		var (
			mu    sync.Mutex
			cases = map[string]string{} // participant → case id
		)
		forward := func(_ context.Context, it *hitl.Interrupt) error {
			mu.Lock()
			defer mu.Unlock()
			who, _, _ := strings.Cut(it.Prompt(), ":")
			cases[who] = it.ID()
			return nil
		}
		c, err := hitl.NewClient(transport.WithHTTPClient(s.Client()), hitl.WithForwarder(forward))
		if err != nil {
			t.Fatal(err)
		}
		ask := hi.OverHITL(c, func(ctx context.Context, it *hi.Interaction, p hi.Participant) (*http.Request, error) {
			body, _ := json.Marshal(map[string]string{"prompt": p.ID + ": " + it.AgentOutput.Summary})
			return http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/actions/approval", strings.NewReader(string(body)))
		})
		decide := func(at time.Duration, who, action string) {
			go func() {
				<-time.After(at)
				mu.Lock()
				id := cases[who]
				mu.Unlock()
				if err := s.Respond(id, action, map[string]string{"feedback": who + " says " + action}, nil); err != nil {
					t.Errorf("%s: %v", who, err)
				}
			}()
		}
		decide(10*time.Second, "p1", "approve")
		decide(20*time.Second, "p2", "approve")
		decide(35*time.Second, "p3", "approve")

		it := message(5, hi.Majority)
		start := time.Now()
		res, tally, err := hi.FanOut(t.Context(), it, ask, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != 35*time.Second {
			t.Errorf("FanOut returned after %v, want 35s", d)
		}
		if res.Status != transport.StatusCompleted || res.Action != "approve" || tally.DecidedBy != "p3" || tally.Counts["approve"] != 3 {
			t.Errorf("Result %+v, tally %+v", res, tally)
		}
		if it.Status != hi.StatusResolved || len(it.History) != 3 || it.History[0].Reason != "p1 says approve" {
			t.Errorf("interaction %+v", it)
		}
		mu.Lock()
		defer mu.Unlock()
		for _, who := range []string{"p4", "p5"} {
			if st, _ := s.Case(cases[who]); st.State != "pending" {
				t.Errorf("%s's case is %s", who, st.State)
			}
		}
	})
}

// TestFanOutOverHXP: the same over HXP: the third approval resolves, and the two requests no
// longer needed are cancelled on the server.
func TestFanOutOverHXP(t *testing.T) {
	s := hxptest.NewServer(t)
	opts := []transport.Option{transport.WithHTTPClient(s.Client()), transport.WithAllowPrivateAddresses(), transport.WithPollInterval(time.Second)}
	agent, _ := hxp.NewClient(s.URL, append(opts, transport.WithAuthorization(transport.StaticToken(hxptest.DefaultAgentKey)))...)
	human, _ := hxp.NewClient(s.URL, append(opts, hxp.WithHumanAuthorization(transport.StaticToken(hxptest.DefaultHumanToken)))...)
	ask := hi.OverHXP(agent, func(it *hi.Interaction, p hi.Participant) *hxp.Request {
		return &hxp.Request{AgentID: p.ID, Approve: &hxp.Approve{Item: it.AgentOutput.Summary, Details: json.RawMessage(`{"amount":1240}`)}}
	})
	go func() { // three participants approve, one after another
		ids := map[string]string{}
		for len(ids) < 5 {
			inbox, err := human.Inbox(context.Background(), nil)
			if err != nil {
				t.Error(err)
				return
			}
			for _, r := range inbox.Requests {
				ids[r.Request.AgentID] = r.RequestID
			}
			<-time.After(10 * time.Millisecond)
		}
		for _, who := range []string{"p2", "p4", "p5"} {
			<-time.After(50 * time.Millisecond)
			if _, err := human.Resolve(context.Background(), ids[who], hxp.Approved, ""); err != nil {
				t.Error(err)
			}
		}
	}()
	it := message(5, hi.Majority)
	res, tally, err := hi.FanOut(t.Context(), it, ask, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Action != "approve" || tally.DecidedBy != "p5" {
		t.Errorf("Result %+v, tally %+v", res, tally)
	}
	list, err := agent.List(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	statuses := map[string]string{}
	for _, r := range list {
		statuses[r.Request.AgentID] = r.Status
	}
	want := map[string]string{"p1": "cancelled", "p2": "completed", "p3": "cancelled", "p4": "completed", "p5": "completed"}
	for who, st := range want {
		if statuses[who] != st {
			t.Errorf("%s: %s, want %s", who, statuses[who], st)
		}
	}
}

// TestFanOutAbstentions: when every ask returns and too few answered, the Result is failed
// with the explanation; when an ask fails, the error comes back.
func TestFanOutAbstentions(t *testing.T) {
	it := message(3, hi.Majority)
	abstain := func(_ context.Context, _ *hi.Interaction, p hi.Participant) (hi.Feedback, error) {
		if p.ID == "p1" {
			return hi.Feedback{Action: "approve"}, nil
		}
		return hi.Feedback{}, nil
	}
	res, _, err := hi.FanOut(t.Context(), it, abstain, nil)
	if err != nil || res.Status != transport.StatusFailed || !strings.Contains(res.Reason, "no action can have a majority") {
		t.Errorf("FanOut = %+v, %v", res, err)
	}
	errDown := errors.New("service down")
	failing := func(_ context.Context, _ *hi.Interaction, p hi.Participant) (hi.Feedback, error) {
		switch p.ID {
		case "p1":
			return hi.Feedback{Action: "approve"}, nil // p2's yes would make a majority
		case "p2":
			return hi.Feedback{}, errDown
		}
		return hi.Feedback{}, nil
	}
	if _, _, err := hi.FanOut(t.Context(), message(3, hi.Majority), failing, nil); !errors.Is(err, errDown) {
		t.Errorf("FanOut with a failing ask = %v", err)
	}
	errMine := errors.New("caller gave up")
	ctx, cancel := context.WithCancelCause(t.Context())
	cancel(errMine)
	blocking := func(ctx context.Context, _ *hi.Interaction, _ hi.Participant) (hi.Feedback, error) {
		<-ctx.Done()
		return hi.Feedback{}, context.Cause(ctx)
	}
	if _, _, err := hi.FanOut(ctx, message(2, hi.AllRequired), blocking, nil); !errors.Is(err, errMine) {
		t.Errorf("FanOut cancelled = %v", err)
	}
}

// hitlPanel is a HITL service in memory whose participants answer at set times: ask opens one
// case per participant, and answer(at, who, f) ends who's case at that time with f (which
// calls the server with the case's id), unless the test has ended.
type hitlPanel struct {
	s     *hitltest.Server
	ask   hi.Ask
	mu    sync.Mutex
	cases map[string]string // participant → case id
}

func newHITLPanel(t *testing.T) *hitlPanel {
	p := &hitlPanel{s: hitltest.NewMemoryServer(t, hitltest.WithRetryAfter(30*time.Second)), cases: map[string]string{}}
	forward := func(_ context.Context, it *hitl.Interrupt) error {
		p.mu.Lock()
		defer p.mu.Unlock()
		who, _, _ := strings.Cut(it.Prompt(), ":")
		p.cases[who] = it.ID()
		return nil
	}
	c, err := hitl.NewClient(transport.WithHTTPClient(p.s.Client()), hitl.WithForwarder(forward))
	if err != nil {
		t.Fatal(err)
	}
	p.ask = hi.OverHITL(c, func(ctx context.Context, it *hi.Interaction, pt hi.Participant) (*http.Request, error) {
		body, _ := json.Marshal(map[string]string{"prompt": pt.ID + ": " + it.AgentOutput.Summary})
		return http.NewRequestWithContext(ctx, http.MethodPost, p.s.URL+"/actions/approval", strings.NewReader(string(body)))
	})
	return p
}

func (p *hitlPanel) answer(t *testing.T, at time.Duration, who string, f func(s *hitltest.Server, id string) error) {
	go func() {
		select {
		case <-time.After(at):
		case <-t.Context().Done(): // the test ended first
			return
		}
		p.mu.Lock()
		id := p.cases[who]
		p.mu.Unlock()
		if err := f(p.s, id); err != nil {
			t.Errorf("%s: %v", who, err)
		}
	}()
}

func respond(action string) func(*hitltest.Server, string) error {
	return func(s *hitltest.Server, id string) error {
		return s.Respond(id, action, map[string]string{"feedback": "says " + action}, nil)
	}
}

// TestFanOutOverHITLRejection: over HITL a participant's rejection is their reject vote, not
// an unknown outcome. Under first_response p2's no at 10 s decides: the Result is that
// rejection (Decision reject, by p2, with p2's reason) and p1's later yes does not count.
func TestFanOutOverHITLRejection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newHITLPanel(t)
		p.answer(t, 10*time.Second, "p2", respond("reject"))
		p.answer(t, 20*time.Second, "p1", respond("approve"))
		start := time.Now()
		res, tally, err := hi.FanOut(t.Context(), message(2, hi.FirstResponse), p.ask, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != 10*time.Second {
			t.Errorf("FanOut returned after %v, want 10s", d)
		}
		if res.Approved() || res.Status != transport.StatusCompleted || res.Decision != transport.DecisionReject ||
			res.Action != "reject" || res.Reason != "says reject" || res.RespondedBy == nil || res.RespondedBy.Name != "p2" {
			t.Errorf("Result %v (reason %q, by %+v), want p2's rejection", res, res.Reason, res.RespondedBy)
		}
		if tally.DecidedBy != "p2" || tally.Votes["p2"] != "reject" {
			t.Errorf("tally %+v", tally)
		}
	})
}

// TestFanOutOverHITLAbstentions: over HITL an expired or cancelled case is that participant's
// abstention, not an error: with p2's case expired and p3's cancelled, majority of three is
// a failed Result saying one participant responded.
func TestFanOutOverHITLAbstentions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newHITLPanel(t)
		p.answer(t, 10*time.Second, "p1", respond("approve"))
		p.answer(t, 20*time.Second, "p2", func(s *hitltest.Server, id string) error { return s.Expire(id) })
		p.answer(t, 30*time.Second, "p3", func(s *hitltest.Server, id string) error { return s.Cancel(id, "withdrawn") })
		res, tally, err := hi.FanOut(t.Context(), message(3, hi.Majority), p.ask, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Approved() || res.Status != transport.StatusFailed || !strings.Contains(res.Reason, "1 of 3 participants responded") {
			t.Errorf("Result %v (reason %q)", res, res.Reason)
		}
		if len(tally.Votes) != 1 || tally.Votes["p1"] != "approve" {
			t.Errorf("tally %+v", tally)
		}
	})
}

// TestActionCase: actions are compared as Parse writes userActions, trimmed and in lower
// case: "Approve" from an Ask or Record is the action approve, one with "APPROVE".
func TestActionCase(t *testing.T) {
	it := message(2, hi.AllRequired)
	it.UserActions = []string{"Approve", "reject"} // as a program may build it
	spelled := map[string]string{"p1": "Approve", "p2": " APPROVE"}
	ask := func(_ context.Context, _ *hi.Interaction, p hi.Participant) (hi.Feedback, error) {
		return hi.Feedback{Action: spelled[p.ID]}, nil
	}
	res, tally, err := hi.FanOut(t.Context(), it, ask, nil)
	if err != nil || !res.Approved() || res.Action != "approve" || len(tally.Refused) != 0 {
		t.Errorf("FanOut = %v, %v; tally %+v", res, err, tally)
	}
	it = message(2, hi.FirstResponse)
	if tally, err := it.Record(hi.Feedback{ParticipantID: "p2", Action: "Reject"}); err != nil || tally.Outcome != "reject" {
		t.Errorf("Record(Reject) = %+v, %v", tally, err)
	}
}

// TestFanOutEndsWhenSettled: each participant answers once in a fan-out, so FanOut returns
// as soon as the answers still to come cannot change the outcome, and stops the asks still
// waiting (their context ends with ErrResolved; synctest fails the test on a goroutine left).
// Under all_required one no is the Result: a rejection by that participant.
func TestFanOutEndsWhenSettled(t *testing.T) {
	type answer struct {
		at     time.Duration
		action string // "" abstains
	}
	tests := []struct {
		name     string
		policy   hi.Policy
		answers  []answer // p1, p2, …; an answer at 0 never comes
		at       time.Duration
		decision transport.Decision
		by       string
		reason   string // a substring of a failed Result's Reason
	}{
		{"all_required, one no", hi.AllRequired, []answer{{10 * time.Second, "approve"}, {20 * time.Second, "reject"}, {}},
			20 * time.Second, transport.DecisionReject, "p2", ""},
		{"all_required, no first", hi.AllRequired, []answer{{0, ""}, {5 * time.Second, "reject"}, {}},
			5 * time.Second, transport.DecisionReject, "p2", ""},
		{"majority no longer possible", hi.Majority, []answer{{10 * time.Second, "approve"}, {20 * time.Second, "reject"}, {30 * time.Second, "edit"}, {}},
			30 * time.Second, "", "", "no action can have a majority; 3 of 4"},
		{"majority, abstentions", hi.Majority, []answer{{10 * time.Second, ""}, {20 * time.Second, ""}, {}},
			20 * time.Second, "", "", "no action can have a majority"},
		{"quorum no longer possible", hi.Quorum(3), []answer{{10 * time.Second, "approve"}, {20 * time.Second, "reject"}, {}},
			20 * time.Second, "", "", "no action can reach the quorum of 3"},
		{"all_required, one abstains", hi.AllRequired, []answer{{10 * time.Second, "approve"}, {20 * time.Second, ""}, {30 * time.Second, "approve"}},
			30 * time.Second, "", "", "all_required: unresolvable, too few valid responses; 2 of 3 participants responded (approve 2)"},
		{"first_response, nobody", hi.FirstResponse, []answer{{10 * time.Second, ""}, {20 * time.Second, ""}},
			20 * time.Second, "", "", "first_response: unresolvable, too few valid responses; 0 of 2 participants responded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var stopped sync.Map // participant → the cause their ask was stopped with
				ask := func(ctx context.Context, _ *hi.Interaction, p hi.Participant) (hi.Feedback, error) {
					var i int
					fmt.Sscanf(p.ID, "p%d", &i)
					a := tt.answers[i-1]
					var after <-chan time.Time // nil: never answers
					if a.at > 0 {
						after = time.After(a.at)
					}
					select {
					case <-after:
						return hi.Feedback{Action: a.action, Reason: p.ID + " says " + a.action}, nil
					case <-ctx.Done():
						stopped.Store(p.ID, context.Cause(ctx))
						return hi.Feedback{}, context.Cause(ctx)
					}
				}
				it := message(len(tt.answers), tt.policy)
				start := time.Now()
				res, tally, err := hi.FanOut(t.Context(), it, ask, nil)
				if err != nil {
					t.Fatal(err)
				}
				if d := time.Since(start); d != tt.at {
					t.Errorf("FanOut returned after %v, want %v", d, tt.at)
				}
				if res.Approved() || res.Decision != tt.decision || it.Status != hi.StatusResolved || !tally.Resolved {
					t.Errorf("Result %v, tally %+v", res, tally)
				}
				if tt.by != "" && (res.RespondedBy == nil || res.RespondedBy.Name != tt.by || res.Reason != tt.by+" says reject") {
					t.Errorf("Result %v by %+v, reason %q; want %s's no", res, res.RespondedBy, res.Reason, tt.by)
				}
				if tt.reason != "" && (res.Status != transport.StatusFailed || !strings.Contains(res.Reason, tt.reason)) {
					t.Errorf("Result %v, reason %q; want failed, %q", res, res.Reason, tt.reason)
				}
				last := fmt.Sprintf("p%d", len(tt.answers))
				if cause, _ := stopped.Load(last); tt.answers[len(tt.answers)-1].at == 0 && cause != hi.ErrResolved {
					t.Errorf("%s's ask was stopped with %v, want ErrResolved", last, cause)
				}
			})
		})
	}
}

// TestFanOutOverHITLAllRequiredNo: over HITL, all_required with p2's no at 20 s and p3 who
// never answers: FanOut returns p2's rejection at 20 s and stops p3's wait.
func TestFanOutOverHITLAllRequiredNo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p := newHITLPanel(t)
		p.answer(t, 10*time.Second, "p1", respond("approve"))
		p.answer(t, 20*time.Second, "p2", respond("reject"))
		start := time.Now()
		res, _, err := hi.FanOut(t.Context(), message(3, hi.AllRequired), p.ask, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d != 20*time.Second {
			t.Errorf("FanOut returned after %v, want 20s", d)
		}
		if res.Approved() || res.Decision != transport.DecisionReject || res.RespondedBy == nil || res.RespondedBy.Name != "p2" || res.Reason != "says reject" {
			t.Errorf("Result %v (reason %q, by %+v), want p2's rejection", res, res.Reason, res.RespondedBy)
		}
	})
}

// TestFanOutOverHXPDecideIsNoYes: a participant who picks the DECIDE option "approve" (or
// "reject") made a choice, not a yes or a no: the vote is an abstention, and the fan-out is
// no go-ahead, though the interaction offers "approve" as a userAction.
func TestFanOutOverHXPDecideIsNoYes(t *testing.T) {
	for _, option := range []string{"approve", "confirm"} {
		s := hxptest.NewServer(t)
		opts := []transport.Option{transport.WithHTTPClient(s.Client()), transport.WithAllowPrivateAddresses(), transport.WithPollInterval(time.Second)}
		agent, _ := hxp.NewClient(s.URL, append(opts, transport.WithAuthorization(transport.StaticToken(hxptest.DefaultAgentKey)))...)
		human, _ := hxp.NewClient(s.URL, append(opts, hxp.WithHumanAuthorization(transport.StaticToken(hxptest.DefaultHumanToken)))...)
		ask := hi.OverHXP(agent, func(it *hi.Interaction, p hi.Participant) *hxp.Request {
			return &hxp.Request{AgentID: p.ID, Decide: &hxp.Decide{Question: "Which?", Options: []string{option, "reject"}}}
		})
		go func() {
			for {
				inbox, err := human.Inbox(context.Background(), nil)
				if err != nil {
					t.Error(err)
					return
				}
				if len(inbox.Requests) > 0 {
					if _, err := human.Resolve(context.Background(), inbox.Requests[0].RequestID, option, ""); err != nil {
						t.Error(err)
					}
					return
				}
				<-time.After(10 * time.Millisecond)
			}
		}()
		it := message(1, hi.FirstResponse)
		it.UserActions = []string{option, "reject"}
		res, tally, err := hi.FanOut(t.Context(), it, ask, nil)
		if err != nil || res.Approved() || res.Decision == transport.DecisionApprove {
			t.Errorf("option %q: FanOut = %v (tally %+v), %v; want no go-ahead", option, res, tally, err)
		}
	}
}
