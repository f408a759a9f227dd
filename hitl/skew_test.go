package hitl_test

import (
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/transport"
)

// TestContradictingTerminal: once a poll reports a terminal state, the wait ends with it; a
// later answer that contradicts it (the case "cancelled" after it was completed) is never
// asked for and never changes the Result.
func TestContradictingTerminal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &script{replies: []reply{pending("5"), ok(completedApprove),
			ok(`{"status":"cancelled","case_id":"review_c1","cancelled_at":"2026-02-23T10:00:00Z"}`)}}
		res, err := newClient(t, s).Wait(t.Context(), interrupt("review_c1", time.Hour), nil)
		if err != nil || res.Status != transport.StatusCompleted || res.Action != "approve" {
			t.Fatalf("Wait = %v, %v", res, err)
		}
		if reqs, _ := s.requests(); len(reqs) != 2 {
			t.Errorf("%d polls, want 2", len(reqs))
		}
	})
}

// TestClockSkew: created_at and expires_at are the service's clock. A service two hours
// behind the agent sends a one-hour case whose expires_at has already passed by the agent's
// clock; the wait keeps the case's lifetime from when it was received and gets the decision
// made after 40 minutes. A service two hours ahead changes nothing. Without a receipt time
// (an interrupt saved by an older version) expires_at is taken as it is.
func TestClockSkew(t *testing.T) {
	tests := []struct {
		name     string
		skew     time.Duration // service clock minus agent clock
		received bool
		wantErr  error
	}{
		{"service 2 h behind", -2 * time.Hour, true, nil},
		{"service 2 h ahead", 2 * time.Hour, true, nil},
		{"service 2 h behind, receipt time unknown", -2 * time.Hour, false, hitl.ErrPastExpiry},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				it := interrupt("review_c1", time.Hour)
				it.Case.CreatedAt = it.Case.CreatedAt.Add(tt.skew)
				it.Case.ExpiresAt = it.Case.ExpiresAt.Add(tt.skew)
				if tt.received {
					it.ReceivedAt = time.Now()
				}
				s := &script{replies: []reply{pending("600"), pending("600"), pending("600"), pending("600"), ok(completedApprove)}}
				res, err := newClient(t, s).Wait(t.Context(), it, nil)
				if tt.wantErr != nil {
					if !errors.Is(err, tt.wantErr) {
						t.Fatalf("Wait = %v, %v; want %v", res, err, tt.wantErr)
					}
					return
				}
				if err != nil || res.Action != "approve" {
					t.Fatalf("Wait = %v, %v", res, err)
				}
			})
		})
	}
}
