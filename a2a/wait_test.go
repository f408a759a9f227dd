package a2a_test

import (
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/internal/memhttp"
	"github.com/hitlkit/hitlkit/transport"
)

// TestMaxPollsInFlight: 20 waits whose tasks are already answered, at an agent that takes
// 1 s per request: 10 on a client WithMaxPollsInFlight(5), 10 on two clients sharing
// WithPollSlots of 5, so at most 10 queries in flight and two rounds.
func TestMaxPollsInFlight(t *testing.T) {
	if _, err := a2a.NewClient(a2a.WithMaxPollsInFlight(0)); err == nil {
		t.Error("WithMaxPollsInFlight(0) accepted")
	}
	if _, err := a2a.NewClient(a2a.WithPollSlots(nil)); err == nil {
		t.Error("WithPollSlots(nil) accepted")
	}
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewMemoryAgent(t)
		fast := newClient(t, a2a.WithHTTPClient(agent.Client()))
		pauses := make([]*a2a.Pause, 20)
		for i := range pauses {
			pauses[i] = start(t, fast, agent.Endpoint(a2a.JSONRPC10), nil)
			if _, err := fast.Resume(t.Context(), pauses[i], a2a.HectorDecision(true)); err != nil {
				t.Fatal(err)
			}
		}
		slow := &memhttp.Slow{Delay: time.Second, Next: agent.Client().Transport}
		hc := &http.Client{Transport: slow}
		// Half the waits on a client of their own, bound 5; the other half on two clients
		// sharing slots of 5.
		bound := newClient(t, a2a.WithHTTPClient(hc), a2a.WithMaxPollsInFlight(5))
		shared := transport.NewSlots(5)
		clients := []*a2a.Client{newClient(t, a2a.WithHTTPClient(hc), a2a.WithPollSlots(shared)),
			newClient(t, a2a.WithHTTPClient(hc), a2a.WithPollSlots(shared))}
		began := time.Now()
		var wg sync.WaitGroup
		for i, p := range pauses[:10] {
			c := clients[i%2]
			wg.Go(func() {
				if task, err := c.Wait(t.Context(), p, nil); err != nil || task.State != a2a.StateCompleted {
					t.Errorf("Wait = %+v, %v", task, err)
				}
			})
		}
		for _, p := range pauses[10:] {
			c := bound
			wg.Go(func() {
				if task, err := c.Wait(t.Context(), p, nil); err != nil || task.State != a2a.StateCompleted {
					t.Errorf("Wait = %+v, %v", task, err)
				}
			})
		}
		wg.Wait()
		if most := slow.Most(); most != 10 || time.Since(began) != 2*time.Second {
			t.Errorf("%d queries in flight at most, all done after %v; want 10 (5 + 5), 2s", most, time.Since(began))
		}
	})
}
