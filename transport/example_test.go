package transport_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/hitlkit/hitlkit/transport"
)

// A protocol's wait written on transport alone: the status URL is the source of truth, and a
// notification — here a channel standing for a webhook — only makes the wait poll at once.
// The client takes the options every client of the module takes, through NewConfig: its
// polls keep the address rules (this fake runs on 127.0.0.1, which only
// WithAllowPrivateAddresses admits), its credential goes to the service's origin only, and
// its waits share one bound on polls in flight.
func ExampleWait() {
	var decided atomic.Bool
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if decided.Load() {
			fmt.Fprint(w, `{"state":"approved","by":"ana"}`)
			return
		}
		w.Header().Set("Retry-After", "60") // the service asks for a minute between polls
		fmt.Fprint(w, `{"state":"pending"}`)
	}))
	defer svc.Close()
	notified := make(chan struct{})
	cfg, err := transport.NewConfig("acme", nil,
		transport.WithAllowPrivateAddresses(), transport.WithAuthorization(transport.StaticToken("sk-1")))
	if err != nil {
		fmt.Println(err)
		return
	}

	w := &transport.Wait[*transport.Result]{
		URL:         svc.URL + "/approvals/42",
		Client:      cfg.Service,
		Authorize:   cfg.Authorize(svc.URL),
		Slots:       cfg.Polls,
		MaxBody:     cfg.MaxBody,
		Logger:      cfg.Logger,
		MinInterval: 10 * time.Millisecond,
		Decode: func(body []byte) (*transport.Result, bool, error) {
			var st struct{ State, By string }
			if err := json.Unmarshal(body, &st); err != nil {
				return nil, false, transport.Temporary(err) // a body cut short: poll again
			}
			if st.State == "pending" {
				return nil, false, nil
			}
			r := &transport.Result{CaseID: "42", Status: transport.StatusCompleted, Action: st.State,
				Decision: transport.DecisionReject, RespondedBy: &transport.Responder{Name: st.By}}
			if st.State == "approved" {
				r.Decision = transport.DecisionApprove // a wait of one's own sets the shared word
			}
			return r, true, nil
		},
		Push: []func(context.Context, func(), func(*transport.Result)) error{func(ctx context.Context, wake func(), _ func(*transport.Result)) error {
			select {
			case <-notified:
				wake() // not the outcome: the wait polls to confirm it
			case <-ctx.Done():
			}
			return nil
		}},
	}
	go func() {
		decided.Store(true)
		close(notified)
	}()
	r, err := w.Run(context.Background())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Status, r.Action, r.RespondedBy.Name, r.Approved())
	// Output: completed approved ana true
}
