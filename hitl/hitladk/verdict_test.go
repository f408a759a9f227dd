package hitladk_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitladk"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// TestServiceDecisionsNeverConfirm: a confirmation put on a HITL service that ends in a
// rejection, an expiry whose default action is approve, a cancellation, or a person's answer
// that is not an approval (a selection of "keep", a form submitted with proceed false, an
// edit) never runs the tool — whether the host's Asker takes every decision as a Result
// (EveryDecisionOK, then Response answers confirmed:false) or calls Do with its defaults
// (then the decision is an error matching hitl.ErrNotApproved, and Answer answers nothing).
// The response holds neither the review link nor its token.
func TestServiceDecisionsNeverConfirm(t *testing.T) {
	for _, tt := range []struct {
		name   string
		typ    string // the case's type: /actions/{typ}
		body   string
		decide func(s *hitltest.Server, id string) error
	}{
		{"rejection", "approval", `{}`, func(s *hitltest.Server, id string) error { return s.Respond(id, "reject", nil, nil) }},
		{"expiry with default approve", "approval", `{"default_action":"approve"}`, func(s *hitltest.Server, id string) error { return s.Expire(id) }},
		{"cancellation", "approval", `{}`, func(s *hitltest.Server, id string) error { return s.Cancel(id, "withdrawn") }},
		{"confirmation cancelled", "confirmation", `{}`, func(s *hitltest.Server, id string) error { return s.Respond(id, "cancel", nil, nil) }},
		{"selection keep", "selection", `{"context":{"options":[{"id":"delete","label":"Delete it"},{"id":"keep","label":"Keep it"}]}}`,
			func(s *hitltest.Server, id string) error {
				return s.Respond(id, "select", map[string]any{"selected": []string{"keep"}}, nil)
			}},
		{"form submitted with a no", "input", `{}`, func(s *hitltest.Server, id string) error {
			return s.Respond(id, "submit", map[string]any{"proceed": false, "note": "do NOT delete"}, nil)
		}},
		{"edit", "approval", `{}`, func(s *hitltest.Server, id string) error {
			return s.Respond(id, "edit", map[string]any{"edits": map[string]any{"path": "/tmp/other.txt"}}, nil)
		}},
	} {
		for _, every := range []bool{true, false} {
			t.Run(tt.name, func(t *testing.T) {
				svc := hitltest.NewServer(t)
				var reviewURL atomic.Value
				client, err := hitl.NewClient(transport.WithHTTPClient(svc.Client()), transport.WithAllowPrivateAddresses(),
					hitl.WithForwarder(func(_ context.Context, it *hitl.Interrupt) error { reviewURL.Store(it.ReviewURL()); return nil }))
				if err != nil {
					t.Fatal(err)
				}
				go func() {
					if id := svc.NextCase(t.Context().Done()); id != "" {
						_ = tt.decide(svc, id)
					}
				}()
				var deleted atomic.Bool
				turn, pause := paused(t, func(string) { deleted.Store(true) })
				var seen *transport.Result
				ask := func(ctx context.Context, _ hitladk.Request) (*transport.Result, error) {
					req, _ := http.NewRequestWithContext(ctx, http.MethodPost, svc.URL+"/actions/"+tt.typ, strings.NewReader(tt.body))
					resp, err := client.Do(ctx, req, &hitl.CallOptions{EveryDecisionOK: every})
					if resp != nil {
						_ = resp.Body.Close()
						seen = resp.Result
					}
					return seen, err
				}
				msg, err := hitladk.Answer(t.Context(), []hitladk.Request{pause}, ask)
				if seen == nil || seen.Approved() {
					t.Fatalf("the service's decision: %v", seen)
				}
				if every {
					if err != nil || msg.Parts[0].FunctionResponse.Response["confirmed"] != false {
						t.Fatalf("Answer = %+v, %v; want confirmed:false", msg, err)
					}
					b, err := json.Marshal(msg)
					if err != nil {
						t.Fatal(err)
					}
					link, _ := reviewURL.Load().(string)
					u, _ := url.Parse(link)
					if u == nil || u.Query().Get("token") == "" || strings.Contains(string(b), u.Query().Get("token")) || strings.Contains(string(b), u.String()) {
						t.Fatalf("the response holds the review link or its token (%v): %s", u, b)
					}
					if _, err := turn(msg); err != nil {
						t.Fatal(err)
					}
				} else if msg != nil || !errors.Is(err, hitl.ErrNotApproved) {
					t.Fatalf("Answer = %+v, %v; want no message and ErrNotApproved", msg, err)
				}
				if deleted.Load() {
					t.Error("the tool ran")
				}
			})
		}
	}
}
