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
// 1 s per request: 10 on each of two clients WithMaxPollsInFlight(5), so at most 10 queries
// in flight and two rounds.
func TestMaxPollsInFlight(t *testing.T) {
	if _, err := a2a.NewClient(transport.WithMaxPollsInFlight(0)); err == nil {
		t.Error("WithMaxPollsInFlight(0) accepted")
	}
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewMemoryAgent(t)
		fast := newClient(t, transport.WithHTTPClient(agent.Client()))
		pauses := make([]*a2a.Pause, 20)
		for i := range pauses {
			pauses[i] = start(t, fast, agent.Endpoint(a2a.JSONRPC10), nil)
			if _, err := fast.Resume(t.Context(), pauses[i], a2a.HectorDecision(true)); err != nil {
				t.Fatal(err)
			}
		}
		slow := &memhttp.Slow{Delay: time.Second, Next: agent.Client().Transport}
		hc := &http.Client{Transport: slow}
		// Half the waits on each of two clients, bound 5 each.
		bound := newClient(t, transport.WithHTTPClient(hc), transport.WithMaxPollsInFlight(5))
		other := newClient(t, transport.WithHTTPClient(hc), transport.WithMaxPollsInFlight(5))
		began := time.Now()
		var wg sync.WaitGroup
		for _, p := range pauses[:10] {
			c := other
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

// TestClosedWakeKeepsPolling: a Wake channel the caller closes mid-wait is no longer read;
// the wait goes on at its interval and ends with the task once it is completed, after a
// bounded number of queries.
func TestClosedWakeKeepsPolling(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var (
			mu    sync.Mutex
			polls int
		)
		done := time.Now().Add(10 * time.Minute)
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			polls++
			mu.Unlock()
			state := "TASK_STATE_WORKING"
			if !time.Now().Before(done) {
				state = "TASK_STATE_COMPLETED"
			}
			_, _ = w.Write([]byte(`{"id":"t1","status":{"state":"` + state + `"}}`))
		})
		c := newClient(t, transport.WithHTTPClient(&http.Client{Transport: &memhttp.Transport{Handler: h}}))
		wake := make(chan struct{})
		time.AfterFunc(30*time.Second, func() { close(wake) })
		task, err := c.Wait(t.Context(), &a2a.Pause{Class: a2a.ClassWorking, TaskID: "t1", Endpoint: a2a.Endpoint{URL: "https://agent.example", Binding: a2a.REST10}},
			&a2a.WaitOptions{Interval: time.Minute, Wake: wake})
		if err != nil || task.State != a2a.StateCompleted {
			t.Fatalf("Wait = %+v, %v; want the completed task", task, err)
		}
		if got := time.Since(done); got < 0 || got > time.Minute {
			t.Errorf("Wait ended %v after the task completed, want within one interval", got)
		}
		mu.Lock()
		defer mu.Unlock()
		if polls > 12 {
			t.Errorf("%d queries in 10 min at a 1 min interval, want at most 12", polls)
		}
	})
}
