package hxp_test

import (
	"fmt"
	"net/http"
	"path"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/internal/memhttp"
	"github.com/hitlkit/hitlkit/transport"
)

// TestMaxPollsInFlight: 20 waits on requests that have already expired, at a server that
// takes 1 s per poll, poll it at most 5 at a time with WithMaxPollsInFlight(5): four rounds.
func TestMaxPollsInFlight(t *testing.T) {
	if _, err := hxp.NewClient("https://hxp.example", transport.WithMaxPollsInFlight(0)); err == nil {
		t.Error("WithMaxPollsInFlight(0) accepted")
	}
	synctest.Test(t, func(t *testing.T) {
		slow := &memhttp.Slow{Delay: time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = fmt.Fprintf(w, `{"request_id":%q,"status":"expired"}`, path.Base(r.URL.Path))
		})}
		c, err := hxp.NewClient("https://hxp.example", transport.WithHTTPClient(&http.Client{Transport: &memhttp.Transport{Handler: slow}}),
			transport.WithMaxPollsInFlight(5))
		if err != nil {
			t.Fatal(err)
		}
		began := time.Now()
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Go(func() {
				cr := &hxp.Created{RequestID: fmt.Sprintf("req_%d", i), Status: "pending"}
				if r, err := c.Wait(t.Context(), cr, &hxp.WaitOptions{PollOnly: true}); err != nil || r.Status != transport.StatusExpired {
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
