package telemetry_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// Every kind of Result makes one audit record saying what it was and how it was learned: a
// cancellation, an expiry whose default applied, and a decision a signed callback brought
// without a confirming poll.
func TestAuditRecordEveryOutcome(t *testing.T) {
	secret := []byte("callback-secret")
	cb, err := hitl.NewCallbacks(secret, &hitl.CallbacksOptions{Decide: true})
	if err != nil {
		t.Fatal(err)
	}
	rows := []struct {
		name   string
		body   string
		decide func(svc *hitltest.Server, id string) error
		check  func(t *testing.T, r transport.Record)
	}{
		{"cancellation", `{}`, func(svc *hitltest.Server, id string) error { return svc.Cancel(id, "withdrawn") },
			func(t *testing.T, r transport.Record) {
				if r.Status != transport.StatusCancelled || r.Decision != "" || r.Action != "" || r.LearnedBy != "poll" || !r.Confirmed {
					t.Errorf("record %+v", r)
				}
			}},
		{"expiry, default applied", `{"default_action":"approve"}`, func(svc *hitltest.Server, id string) error { return svc.Expire(id) },
			func(t *testing.T, r transport.Record) {
				if r.Status != transport.StatusExpired || !r.DefaultApplied || r.DefaultAction != "approve" || r.Decision != "" || r.Action != "" {
					t.Errorf("record %+v, want an expiry with its default applied and no decision", r)
				}
			}},
		{"callback", `{"hitl_callback_url":"https://agent.test/cb"}`,
			func(svc *hitltest.Server, id string) error {
				return svc.Respond(id, "reject", nil, &transport.Responder{Name: "Ada"})
			},
			func(t *testing.T, r transport.Record) {
				if r.Decision != transport.DecisionReject || r.LearnedBy != "callback" || r.Confirmed || !r.Evidence.SignatureVerified {
					t.Errorf("record %+v, want a rejection learned by a verified callback, unconfirmed", r)
				}
			}},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			svc := hitltest.NewServer(t, hitltest.WithCallbackSecret(secret), hitltest.WithCallbackHandler(cb), hitltest.WithoutEvents())
			var records []transport.Record
			c, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses(), hitl.WithCallbacks(cb),
				transport.WithAudit(func(_ context.Context, r transport.Record) { records = append(records, r) }),
				hitl.WithForwarder(func(context.Context, *hitl.Interrupt) error { return nil }))
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan struct{})
			defer close(done)
			go func() {
				if id := svc.NextCase(done); id != "" {
					if err := row.decide(svc, id); err != nil {
						t.Errorf("decide: %v", err)
					}
				}
			}()
			req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(row.body))
			req.Header.Set("Content-Type", "application/json")
			resp, err := c.Do(t.Context(), req, &hitl.CallOptions{EveryDecisionOK: true})
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if len(records) != 1 {
				t.Fatalf("%d records, want 1: %+v", len(records), records)
			}
			if r := records[0]; r.Protocol != "hitl" || r.ID == "" || r.AskedAt.IsZero() || r.DecidedAt.IsZero() {
				t.Errorf("record %+v", r)
			}
			row.check(t, records[0])
		})
	}
}
