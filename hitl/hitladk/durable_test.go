package hitladk_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitladk"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// TestHostRestartsMidWait: the host opens a case for an ADK pause with the pause's Labels,
// keeps it in a store, and stops while the person has not decided. A new host process takes
// the case from the store (Client.Resume), finds the session and the pause it belongs to with
// PauseOf, and resumes the run: the tool runs once, and no second case is opened.
func TestHostRestartsMidWait(t *testing.T) {
	ctx := t.Context()
	var deleted atomic.Int32
	turn, pause := paused(t, func(string) { deleted.Add(1) })
	const sessionID = "session-1"

	svc := hitltest.NewServer(t)
	store := &hitl.MemoryStore{}
	host := func() *hitl.Client {
		c, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses(), hitl.WithStore(store),
			hitl.WithForwarder(func(context.Context, *hitl.Interrupt) error { return nil }))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	// The first host opens the case and is stopped mid-wait.
	first, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		req, _ := http.NewRequestWithContext(first, http.MethodPost, svc.URL+"/actions/approval", strings.NewReader(`{"tool":"delete_file"}`))
		_, err := host().Do(first, req, &hitl.CallOptions{Labels: hitladk.Labels(sessionID, pause)})
		done <- err
	}()
	id := svc.NextCase(ctx.Done())
	deadline := time.Now().Add(10 * time.Second)
	for kept := []*hitl.Interrupt(nil); len(kept) == 0 && time.Now().Before(deadline); <-time.After(10 * time.Millisecond) {
		kept, _ = store.List(ctx) // the case is kept once Do has read the 202
	}
	stop()
	if err := <-done; err == nil {
		t.Fatal("the first host's Do returned without its stop")
	}
	if err := svc.Respond(id, "approve", nil, nil); err != nil {
		t.Fatal(err)
	}

	// The new host resumes every kept case and answers the pause each belongs to.
	var resumed int
	err := host().Resume(ctx, func(_ context.Context, it *hitl.Interrupt, r *transport.Result) error {
		sid, req, ok := hitladk.PauseOf(it)
		if !ok || sid != sessionID || req.CallID != pause.CallID {
			t.Errorf("PauseOf = %q, %+v, %v", sid, req, ok)
			return nil
		}
		resumed++
		_, err := turn(hitladk.Response(req, r))
		return err
	}, nil)
	if err != nil || resumed != 1 || deleted.Load() != 1 {
		t.Fatalf("Resume = %v: %d resumed, %d deleted; want 1 and 1", err, resumed, deleted.Load())
	}
	opened := 0
	for _, q := range svc.Requests() {
		if q.Method == http.MethodPost && strings.HasPrefix(q.Path, "/actions/") {
			opened++
		}
	}
	if opened != 1 {
		t.Errorf("%d cases opened, want 1", opened)
	}
}
