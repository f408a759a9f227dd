package hitl_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// Pending lists the waits running now and, with a store, the interrupts stored and not
// waited on; a wait that ends leaves the list.
func TestPendingListsRunningAndStored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t, hitltest.WithRetryAfter(30*time.Second))
		var store hitl.MemoryStore
		c, err := hitl.NewClient(transport.WithHTTPClient(s.Client()), hitl.WithStore(&store))
		if err != nil {
			t.Fatal(err)
		}
		running := open(t, s, c, "approval", nil)
		left := open(t, s, c, "input", nil)
		if err := store.Put(t.Context(), left); err != nil { // a previous process's wait
			t.Fatal(err)
		}
		after(t, 10*time.Second, func() error { return s.Respond(running.ID(), "approve", nil, nil) })

		var during []transport.Pending
		probe := func(ctx context.Context) {
			select {
			case <-time.After(5 * time.Second):
				during, _ = c.Pending(ctx)
			case <-ctx.Done():
			}
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { defer close(done); probe(ctx) }()
		res, err := c.Wait(t.Context(), running, nil)
		cancel()
		<-done
		if err != nil || !res.Approved() {
			t.Fatalf("Wait = %+v, %v", res, err)
		}
		if len(during) != 2 {
			t.Fatalf("Pending during the wait = %+v, want the running wait and the stored one", during)
		}
		byID := map[string]transport.Pending{}
		for _, p := range during {
			byID[p.ID] = p
		}
		if p := byID[running.ID()]; !p.Waiting || p.Protocol != "hitl" || p.Prompt != running.Prompt() || p.Since.IsZero() {
			t.Errorf("the running wait is listed as %+v", p)
		}
		if p := byID[left.ID()]; p.Waiting || p.ID != left.ID() || p.Prompt != left.Prompt() {
			t.Errorf("the stored interrupt is listed as %+v", p)
		}
		rest, err := c.Pending(t.Context())
		if err != nil || len(rest) != 1 || rest[0].ID != left.ID() {
			t.Errorf("Pending after the wait = %+v, %v; want only the stored interrupt", rest, err)
		}
	})
}
