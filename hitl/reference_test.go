package hitl_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// TestRetryAfterPacesFirstPoll: against every profile, the 202's Retry-After (30 s from the
// reference services) holds the first poll back, and, when the case has an event stream,
// the stream opens at once, beside it.
func TestRetryAfterPacesFirstPoll(t *testing.T) {
	for _, profile := range hitltest.Profiles() {
		t.Run(profile.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := hitltest.NewMemoryServer(t, hitltest.WithProfile(profile), hitltest.WithRetryAfter(30*time.Second))
				c, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()), hitl.WithAutoDiscovery())
				it := open(t, s, c, "approval", nil)
				called := time.Now()
				after(t, 45*time.Second, func() error { return s.Respond(it.ID(), "approve", nil, nil) })
				res, err := c.Wait(t.Context(), it, nil)
				if err != nil || res.Action != "approve" {
					t.Fatalf("Wait = %v, %v", res, err)
				}
				var firstPoll, firstEvents time.Duration = -1, -1
				for _, r := range s.Requests() {
					switch {
					case strings.HasSuffix(r.Path, "/status") && firstPoll < 0:
						firstPoll = r.Time.Sub(called)
					case strings.HasSuffix(r.Path, "/events") && firstEvents < 0:
						firstEvents = r.Time.Sub(called)
					}
				}
				if firstPoll != 30*time.Second {
					t.Errorf("first poll %v after the 202, want 30s", firstPoll)
				}
				if firstEvents != 0 {
					t.Errorf("event stream opened %v after the 202, want at once", firstEvents)
				}
				if d := time.Since(called); d != 45*time.Second {
					t.Errorf("Wait returned %v after the 202, want 45s (the click)", d)
				}
			})
		})
	}
}

// TestDiscoveryFeedsTheWait: the reference services put no events_url in the 202 but
// advertise their event streams in the discovery document; with WithAutoDiscovery the wait
// finds the stream, which ignores Last-Event-ID, starts with review.pending and never
// closes, and the decision arrives at the click, long before a poll would have seen it.
// (The typed v0.8 fields of example flow 07 are checked in TestCase36Discovery.)
func TestDiscoveryFeedsTheWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t, hitltest.WithProfile(hitltest.ProfileReference), hitltest.WithRetryAfter(5*time.Minute))
		c, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()), hitl.WithAutoDiscovery())
		it := open(t, s, c, "approval", nil)
		if it.Case.EventsURL != "" {
			t.Fatalf("the reference profile sent events_url %q", it.Case.EventsURL)
		}
		called := time.Now()
		after(t, 20*time.Second, func() error { return s.Open(it.ID()) })
		after(t, 40*time.Second, func() error { return s.Respond(it.ID(), "reject", nil, nil) })
		var states []string
		res, err := c.Wait(t.Context(), it, &hitl.WaitOptions{OnUpdate: func(u hitl.Update) { states = append(states, u.State) }})
		if err != nil || res.Action != "reject" {
			t.Fatalf("Wait = %v, %v", res, err)
		}
		if d := time.Since(called); d != 40*time.Second {
			t.Errorf("Wait returned %v after the 202, want 40s", d)
		}
		if n, _ := countPath(s, "/api/reviews/"+it.ID()+"/events"); n != 1 {
			t.Errorf("%d event streams at the advertised URL", n)
		}
		if len(states) == 0 || states[len(states)-1] != "opened" {
			t.Errorf("updates %v, want the stream's opened", states)
		}
	})
}

// TestForwardedMessageNamesWhatTheHumanSees: the forwarded message says the review type and,
// for a form, its steps; the summary never carries the review URL's token.
func TestForwardedMessageNamesWhatTheHumanSees(t *testing.T) {
	it := flowInterrupt(t, loadSteps(t, "08-multi-step-input.json"))
	var out bytes.Buffer
	if err := hitl.WriteTo(&out)(context.Background(), it); err != nil {
		t.Fatal(err)
	}
	want := "Input review: 3-step form: Personal Information → Work Preferences → Review & Submit"
	if !strings.Contains(out.String(), want) || it.Summary() != want {
		t.Errorf("forwarded %q; Summary %q", out.String(), it.Summary())
	}
	it.Round = 2
	if got := it.Summary(); !strings.HasSuffix(got, ": round 2") || strings.Contains(got, "token") {
		t.Errorf("Summary in round 2 = %q", got)
	}
}

// TestChainFollowsTheNextCase: a chain numbers its rounds; when the service opens the next
// round itself (next_case_id, no new 202), the chain follows it at the poll URL the previous
// case's pattern gives; the responder keeps every field the service sent.
func TestChainFollowsTheNextCase(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		first := interrupt("review_c1", time.Hour)
		edit := `{"status":"completed","case_id":"review_c1","completed_at":"2026-02-22T10:05:18Z","next_case_id":"review_c2",
			"result":{"action":"edit","data":{"feedback":"shorter"}},"responded_by":{"name":"Ana","id":"u_42","platform":"slack","platform_user_id":"U123"}}`
		done := `{"status":"completed","case_id":"review_c2","completed_at":"2026-02-22T10:09:00Z","result":{"action":"approve","data":{}}}`
		svc := &script{replies: []reply{ok(edit), ok(done)}}
		var rounds []int
		c := newClient(t, svc, hitl.WithForwarder(func(_ context.Context, it *hitl.Interrupt) error {
			rounds = append(rounds, it.Round)
			return nil
		}))
		history, err := c.Chain(t.Context(), first, func(context.Context, []hitl.Round) (*hitl.Interrupt, error) { return nil, nil }, nil)
		if err != nil || len(history) != 2 {
			t.Fatalf("Chain = %d rounds, %v", len(history), err)
		}
		if history[1].Result.Action != "approve" || history[1].Interrupt.ID() != "review_c2" {
			t.Errorf("second round %+v", history[1].Result)
		}
		reqs, _ := svc.requests()
		if got := reqs[len(reqs)-1].URL.String(); got != "https://svc.example/reviews/review_c2/status" {
			t.Errorf("second round polled %s", got)
		}
		if len(rounds) != 2 || rounds[0] != 1 || rounds[1] != 2 {
			t.Errorf("forwarded rounds %v", rounds)
		}
		by := history[0].Result.RespondedBy
		if by == nil || by.Name != "Ana" || by.ID != "u_42" || by.Platform != "slack" || by.PlatformUserID != "U123" || !json.Valid(by.Raw) {
			t.Errorf("responder %+v", by)
		}
	})
}
