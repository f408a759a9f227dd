package a2a_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/internal/memhttp"
	"github.com/hitlkit/hitlkit/transport"
)

// droppingAgent is an A2A 0.3 JSON-RPC agent in memory whose task waits for authorisation
// until decided; its task stream (tasks/resubscribe) sends a snapshot, then the decision
// when it comes, and the first subscription is cut after dropAfter, as agents on the
// official JS SDK cut theirs.
type droppingAgent struct {
	dropAfter time.Duration

	mu         sync.Mutex
	state      string
	subscribes int
	gets       int
	decided    chan struct{}
}

func (a *droppingAgent) task() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return fmt.Sprintf(`{"kind":"task","id":"t1","contextId":"c1","status":{"state":%q}}`, a.state)
}

func (a *droppingAgent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var in struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &in)
	switch in.Method {
	case "tasks/get":
		a.mu.Lock()
		a.gets++
		a.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, in.ID, a.task())
	case "tasks/resubscribe":
		a.mu.Lock()
		a.subscribes++
		first := a.subscribes == 1
		a.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n\n", in.ID, a.task())
		w.(http.Flusher).Flush()
		var drop <-chan time.Time
		if first {
			drop = time.After(a.dropAfter)
		}
		select {
		case <-drop:
		case <-r.Context().Done():
		case <-a.decided:
			_, _ = fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"kind\":\"status-update\",\"taskId\":\"t1\",\"contextId\":\"c1\",\"status\":{\"state\":\"completed\"},\"final\":true}}\n\n", in.ID)
			w.(http.Flusher).Flush()
		}
	default:
		http.Error(w, "no such method", http.StatusBadRequest)
	}
}

func (a *droppingAgent) decide() {
	a.mu.Lock()
	a.state = "completed"
	a.mu.Unlock()
	close(a.decided)
}

// TestStreamDroppedIsSubscribedAgain: an agent cuts the task's stream 2 s into the wait; the
// wait subscribes again (tasks/resubscribe), and a decision made at 10 s arrives within a
// second — not at the next task query, 30 s after the last.
func TestStreamDroppedIsSubscribedAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := &droppingAgent{dropAfter: 2 * time.Second, state: "auth-required", decided: make(chan struct{})}
		c := newClient(t, transport.WithHTTPClient(&http.Client{Transport: &memhttp.Transport{Handler: agent}}))
		ep := a2a.Endpoint{URL: "https://agent.example/a2a", Binding: a2a.JSONRPC03}
		p := a2a.NewPause(ep, &a2a.Task{ID: "t1", ContextID: "c1", State: a2a.StateAuthRequired})
		if p == nil {
			t.Fatal("no pause")
		}
		start := time.Now()
		go func() {
			<-time.After(10 * time.Second)
			agent.decide()
		}()
		task, err := c.Wait(t.Context(), p, &a2a.WaitOptions{Stream: true, Interval: 30 * time.Second})
		if err != nil || task.State != a2a.StateCompleted {
			t.Fatalf("Wait = %+v, %v", task, err)
		}
		took := time.Since(start)
		agent.mu.Lock()
		defer agent.mu.Unlock()
		if took > 11*time.Second || agent.subscribes < 2 {
			t.Errorf("decision at 10 s returned after %v, %d subscriptions; want within 11 s, at least 2", took, agent.subscribes)
		}
	})
}
