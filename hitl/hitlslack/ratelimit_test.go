package hitlslack_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitlslack"
	"github.com/hitlkit/hitlkit/hitl/hitlslack/hitlslacktest"
	"github.com/hitlkit/hitlkit/transport"
)

// TestRateLimitBurst: Slack answers 429 with Retry-After to conversations.open,
// chat.postMessage and chat.update; each call waits exactly as long as told and is made
// again, so the question is posted once and its outcome shown once. A burst that outlasts
// the caller's context is the forwarder's error, never silence.
func TestRateLimitBurst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		f := hitlslacktest.NewMemoryServer(t)
		bot, err := hitlslack.New(f.API(), secret)
		if err != nil {
			t.Fatal(err)
		}
		defer bot.Close()
		forward := bot.Forwarder(hitlslack.DM("U0REVIEWER"))
		it := &hitl.Interrupt{Kind: hitl.KindHITL, Case: &hitl.Case{CaseID: "case-1", Type: hitl.TypeApproval, Prompt: "Go?",
			ReviewURL: "https://svc.example/review/case-1?token=secret-token", PollURL: "https://svc.example/reviews/case-1/status"}}

		f.RateLimit("conversations.open", 5*time.Second)
		f.RateLimit("chat.postMessage", 30*time.Second, 30*time.Second, 1*time.Second)
		began := time.Now()
		if err := forward(ctx, it); err != nil {
			t.Fatalf("forward: %v", err)
		}
		if d := time.Since(began); d != 66*time.Second {
			t.Errorf("posting took %v, want 66s (5 + 30 + 30 + 1 of Retry-After)", d)
		}
		if n, calls := len(of(f, "chat.postMessage")), len(f.Requests()); n != 1 || calls != 6 {
			t.Errorf("%d messages in %d calls, want 1 in 6 (2 opens, 4 posts)", n, calls)
		}

		f.RateLimit("chat.update", 10*time.Second, 20*time.Second)
		began = time.Now()
		if err := bot.Finish(ctx, it, &transport.Result{Status: transport.StatusCompleted, CaseID: "case-1", Action: "approve"}); err != nil {
			t.Fatalf("Finish: %v", err)
		}
		if d := time.Since(began); d != 30*time.Second || len(of(f, "chat.update")) != 1 {
			t.Errorf("Finish took %v with %d updates, want 30s and 1", d, len(of(f, "chat.update")))
		}

		f.RateLimit("chat.postMessage", 120*time.Second)
		short, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		second := &hitl.Interrupt{Kind: hitl.KindHITL, Case: &hitl.Case{CaseID: "case-2", Type: hitl.TypeApproval, Prompt: "And this?"}}
		err = forward(short, second)
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "rate limited") {
			t.Fatalf("forward during a long burst = %v, want the rate limit and the deadline", err)
		}
		if second.Labels != nil {
			t.Errorf("labels %v on a question never posted", second.Labels)
		}
	})
}
