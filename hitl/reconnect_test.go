package hitl_test

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// TestStreamFailingIsConnectedAgain: an event stream whose connections fail more times in a
// row than one subscription tries (eight 503s) is connected again for as long as the wait
// lasts, and the decision made at 40 s arrives by it, not at the next poll five minutes on.
func TestStreamFailingIsConnectedAgain(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t, hitltest.WithRetryAfter(5*time.Minute))
		c, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()))
		it := open(t, s, c, "approval", nil)
		s.FailStream(it.ID(), hitltest.Stream503, 8)
		after(t, 40*time.Second, func() error { return s.Respond(it.ID(), "approve", nil, nil) })
		start := time.Now()
		res, err := c.Wait(t.Context(), it, nil)
		if err != nil || res.Action != "approve" {
			t.Fatalf("Wait = %+v, %v", res, err)
		}
		if d := time.Since(start); d != 40*time.Second {
			t.Errorf("Wait returned after %v, want 40s", d)
		}
		if n, _ := countPath(s, "/events"); n != 9 {
			t.Errorf("%d event-stream connections, want 9 (eight failed, one carried the decision)", n)
		}
	})
}
