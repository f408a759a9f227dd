package telemetry_test

import (
	"encoding/json"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/hi"
	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/hxp/hxptest"
	"github.com/hitlkit/hitlkit/transport"
	"github.com/hitlkit/hitlkit/transport/transporttest"
)

// hxp's and hi's clients list each wait running on them, with its id, prompt and start; a
// wait that ends leaves the list.
func TestPendingOnHXPAndHI(t *testing.T) {
	t.Run("hxp", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			srv := hxptest.NewMemoryServer(t)
			c, err := hxp.NewClient(srv.URL, transport.WithHTTPClient(srv.Client()),
				transport.WithAuthorization(transport.StaticToken(hxptest.DefaultAgentKey)))
			if err != nil {
				t.Fatal(err)
			}
			created, err := c.Create(t.Context(), &hxp.Request{Priority: hxp.PriorityHigh, TimeoutSeconds: 3600,
				AgentID: "agent_1", Approve: &hxp.Approve{Item: "Refund order 42", Details: json.RawMessage(`{"amount":42}`)}})
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			var during []transport.Pending
			time.AfterFunc(10*time.Second, func() {
				during = c.Pending()
				_, _ = srv.Resolve(created.RequestID, "approved", "", "user_owner")
			})
			if _, err := c.Wait(t.Context(), created, nil); err != nil {
				t.Fatal(err)
			}
			if len(during) != 1 || during[0].Protocol != "hxp" || during[0].ID != created.RequestID || during[0].Prompt == "" ||
				!during[0].Waiting || !during[0].Since.Equal(start) {
				t.Errorf("Pending during the wait = %+v", during)
			}
			if p := c.Pending(); len(p) != 0 {
				t.Errorf("Pending after the wait = %+v", p)
			}
		})
	})
	t.Run("hi", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			it := interaction(t)
			var resolved atomic.Bool
			endpoint := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				now := *it
				if resolved.Load() {
					now.Status = hi.StatusResolved
					now.History = []hi.Feedback{{ParticipantID: "p1", Action: "approve"}, {ParticipantID: "p2", Action: "approve"}}
				}
				_ = json.NewEncoder(w).Encode(&now)
			})
			c, err := hi.NewClient("https://hi.test", transport.WithHTTPClient(&http.Client{Transport: &transporttest.Transport{Handler: endpoint}}))
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			var during []transport.Pending
			time.AfterFunc(10*time.Second, func() { during = c.Pending(); resolved.Store(true) })
			if r, err := c.Wait(t.Context(), it.InteractionID); err != nil || !r.Approved() {
				t.Fatalf("Wait = %+v, %v", r, err)
			}
			if len(during) != 1 || during[0].Protocol != "hi" || during[0].ID != it.InteractionID || !during[0].Waiting || !during[0].Since.Equal(start) {
				t.Errorf("Pending during the wait = %+v", during)
			}
			if p := c.Pending(); len(p) != 0 {
				t.Errorf("Pending after the wait = %+v", p)
			}
		})
	})
}
