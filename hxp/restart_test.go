package hxp_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/hxp/hxptest"
	"github.com/hitlkit/hitlkit/transport"
)

// TestRestartLosesNoDecision: the agent saves the created request, is stopped mid-wait (on
// the WebSocket), the human decides while it is down, and a new client restored from the
// saved JSON gets the decision.
func TestRestartLosesNoDecision(t *testing.T) {
	s, agent, human := setup(t)
	cr, err := agent.Create(t.Context(), decide())
	if err != nil {
		t.Fatal(err)
	}
	saved, err := json.Marshal(cr)
	if err != nil {
		t.Fatal(err)
	}
	stopped := errors.New("process stopped")
	ctx, stop := context.WithCancelCause(t.Context())
	go func() {
		for range 100 { // until the wait is on the WebSocket
			if hasWS(s) {
				break
			}
			<-time.After(20 * time.Millisecond)
		}
		stop(stopped)
	}()
	if _, err := agent.Wait(ctx, cr, nil); !errors.Is(err, stopped) {
		t.Fatalf("first Wait = %v, want the stop cause", err)
	}
	if _, err := human.Resolve(t.Context(), cr.RequestID, "Approve", ""); err != nil {
		t.Fatal(err)
	}

	restarted, err := hxp.NewClient(s.URL, transport.WithHTTPClient(s.Client()), transport.WithAllowPrivateAddresses(),
		transport.WithPollInterval(time.Second), transport.WithAuthorization(key(hxptest.DefaultAgentKey)))
	if err != nil {
		t.Fatal(err)
	}
	var restored hxp.Created
	if err := json.Unmarshal(saved, &restored); err != nil {
		t.Fatal(err)
	}
	res, err := restarted.Wait(t.Context(), &restored, nil)
	if err != nil || res.Action != "Approve" || res.Decision == "" {
		t.Fatalf("after restart: %+v, %v", res, err)
	}
}
