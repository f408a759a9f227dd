package a2a_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/internal/flood"
)

// TestPushReceiverFlood: 1,000 connections reach the push receiver at once with the right
// token (so their bodies must be read), and as many with a wrong one. Bodies are read up to
// 64 KiB, a few at a time, stalled ones are cut at the read deadline, a wrong token is refused
// without reading, and the extra heap stays under 64 MiB.
func TestPushReceiverFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 loopback connections")
	}
	good := http.Header{"X-A2a-Notification-Token": {"push-token"}}
	bad := http.Header{"X-A2a-Notification-Token": {"guess"}}
	for _, a := range []flood.Attack{
		{Conns: 1000, Declared: 1 << 20, Sent: 1<<20 - 1, Header: good},
		{Conns: 1000, Declared: 32 << 10, Sent: 16 << 10, Header: good},
		{Conns: 1000, Declared: 1 << 20, Sent: 1<<20 - 1, Header: bad},
	} {
		t.Run(fmt.Sprintf("declared %d sent %d token %s", a.Declared, a.Sent, a.Header.Get("X-A2a-Notification-Token")), func(t *testing.T) {
			r := flood.Run(t, &a2a.PushReceiver{Token: "push-token", ReadTimeout: time.Second}, a, 10*time.Second)
			t.Logf("statuses %v, at most %d handlers at once, extra heap %.1f MiB, last handler freed %v after the last byte",
				r.Statuses, r.PeakHandlers, float64(r.ExtraHeap)/(1<<20), r.Freed.Round(time.Millisecond))
			if r.ExtraHeap >= 64<<20 {
				t.Errorf("extra heap %d bytes, want under 64 MiB", r.ExtraHeap)
			}
			want := []int{http.StatusServiceUnavailable, http.StatusRequestEntityTooLarge, http.StatusBadRequest}
			if a.Header.Get("X-A2a-Notification-Token") != "push-token" {
				want = []int{http.StatusUnauthorized}
			}
			n := 0
			for _, code := range want {
				n += r.Statuses[code]
			}
			if n != a.Conns {
				t.Errorf("statuses %v, want every connection refused with one of %v", r.Statuses, want)
			}
		})
	}
}
