package hi_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/hi"
	"github.com/hitlkit/hitlkit/internal/memhttp"
	"github.com/hitlkit/hitlkit/transport"
)

// endpoint is an HI endpoint at the spec's illustrative routes, resolving by the policy.
type endpoint struct {
	mu    sync.Mutex
	store map[string]*hi.Interaction
}

func (e *endpoint) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	e.mu.Lock()
	defer e.mu.Unlock()
	body, _ := io.ReadAll(r.Body)
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/agent-output":
		it, err := hi.Parse(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		e.store[it.InteractionID] = it
		_ = json.NewEncoder(w).Encode(it)
	case r.Method == http.MethodPost && r.URL.Path == "/human-feedback":
		var f hi.FeedbackRequest
		_ = json.Unmarshal(body, &f)
		it, ok := e.store[f.InteractionID]
		if !ok {
			http.Error(w, "Interaction not found", http.StatusNotFound)
			return
		}
		if _, err := it.Record(hi.Feedback{ParticipantID: f.ParticipantID, Action: f.Action, Reason: f.Reason, InputText: f.InputText}); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"message": "Feedback recorded", "interaction": it})
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/api/interactions/"):
		it, ok := e.store[strings.TrimPrefix(r.URL.Path, "/api/interactions/")]
		if !ok {
			http.Error(w, "Interaction not found", http.StatusNotFound)
			return
		}
		_ = json.NewEncoder(w).Encode(it)
	default:
		http.NotFound(w, r)
	}
}

func TestEndpointClient(t *testing.T) {
	srv := httptest.NewServer(&endpoint{store: map[string]*hi.Interaction{}})
	defer srv.Close()
	c, err := hi.NewClient(srv.URL, transport.WithHTTPClient(srv.Client()), transport.WithAllowPrivateAddresses(), transport.WithPollInterval(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	it := message(3, hi.Majority)
	if _, err := c.Create(t.Context(), it); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Feedback(t.Context(), hi.FeedbackRequest{InteractionID: it.InteractionID, ParticipantID: "p1", Action: "escalate"}); !errors.Is(err, hi.ErrUnsupportedAction) {
		t.Errorf("unsupported action: %v", err)
	}
	if _, err := c.Feedback(t.Context(), hi.FeedbackRequest{InteractionID: "nope", ParticipantID: "p1", Action: "approve"}); !errors.Is(err, transport.ErrNotFound) {
		t.Errorf("unknown interaction: %v", err)
	}
	go func() {
		for _, who := range []string{"p1", "p3"} {
			<-time.After(300 * time.Millisecond)
			if _, err := c.Feedback(t.Context(), hi.FeedbackRequest{InteractionID: it.InteractionID, ParticipantID: who, Action: "reject", Reason: "over budget"}); err != nil {
				t.Error(err)
			}
		}
	}()
	res, err := c.Wait(t.Context(), it.InteractionID)
	if err != nil || res.Status != transport.StatusCompleted || res.Action != "reject" || res.RespondedBy.Name != "p3" {
		t.Fatalf("Wait = %+v, %v", res, err)
	}
	got, err := c.Get(t.Context(), it.InteractionID)
	if err != nil || got.Status != hi.StatusResolved || len(got.History) != 2 {
		t.Errorf("Get = %+v, %v", got, err)
	}
	if _, err := c.Wait(t.Context(), "nope"); !errors.Is(err, transport.ErrNotFound) {
		t.Errorf("Wait on an unknown interaction: %v", err)
	}
}

// TestWaitNeverReturnsAnotherInteraction: an endpoint that answers the poll for one
// interaction with another, resolved one does not make Wait return that decision.
func TestWaitNeverReturnsAnotherInteraction(t *testing.T) {
	other := message(1, hi.Majority)
	other.InteractionID = "int_other"
	if _, err := other.Record(hi.Feedback{ParticipantID: "p1", Action: "approve"}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(other)
	}))
	defer srv.Close()
	c, err := hi.NewClient(srv.URL, transport.WithHTTPClient(srv.Client()), transport.WithAllowPrivateAddresses(), transport.WithPollInterval(time.Second))
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Wait(t.Context(), "int_mine")
	if res != nil || !errors.Is(err, transport.ErrMismatch) || !strings.Contains(err.Error(), `interaction "int_other", not "int_mine"`) {
		t.Fatalf("Wait = %+v, %v; want a mismatch naming both ids", res, err)
	}
}

// TestMaxPollsInFlight: 20 waits on resolved interactions, at an endpoint that takes 1 s per
// poll, poll it at most 5 at a time with WithMaxPollsInFlight(5): four rounds.
func TestMaxPollsInFlight(t *testing.T) {
	if _, err := hi.NewClient("https://hi.example", transport.WithMaxPollsInFlight(0)); err == nil {
		t.Error("WithMaxPollsInFlight(0) accepted")
	}
	synctest.Test(t, func(t *testing.T) {
		e := &endpoint{store: map[string]*hi.Interaction{}}
		for i := range 20 {
			it := message(1, hi.Majority)
			it.InteractionID = fmt.Sprintf("int_%d", i)
			if _, err := it.Record(hi.Feedback{ParticipantID: "p1", Action: "approve"}); err != nil {
				t.Fatal(err)
			}
			e.store[it.InteractionID] = it
		}
		slow := &memhttp.Slow{Delay: time.Second, Handler: e}
		c, err := hi.NewClient("https://hi.example", transport.WithHTTPClient(&http.Client{Transport: &memhttp.Transport{Handler: slow}}),
			transport.WithMaxPollsInFlight(5))
		if err != nil {
			t.Fatal(err)
		}
		began := time.Now()
		var wg sync.WaitGroup
		for id := range e.store {
			wg.Go(func() {
				if r, err := c.Wait(t.Context(), id); err != nil || r.Action != "approve" {
					t.Errorf("Wait = %+v, %v", r, err)
				}
			})
		}
		wg.Wait()
		if most := slow.Most(); most != 5 || time.Since(began) != 4*time.Second {
			t.Errorf("%d polls in flight at most, all done after %v; want 5, 4s", most, time.Since(began))
		}
	})
}
