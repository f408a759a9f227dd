package transporttest_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/hxp/hxptest"
	"github.com/hitlkit/hitlkit/transport"
	"github.com/hitlkit/hitlkit/transport/transporttest"
)

// TestWaitInABubble: a wait of one's own on a fake served by Transport runs in virtual time
// inside a bubble — an hour of polls at the service's pace takes no time.
func TestWaitInABubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		fake := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			if time.Since(start) < time.Hour {
				w.Header().Set("Retry-After", "60")
				_, _ = io.WriteString(w, "pending")
				return
			}
			_, _ = io.WriteString(w, "approved")
		})
		hc := &http.Client{Transport: &transporttest.Transport{Handler: fake}}
		cfg, err := transport.NewConfig("acme", nil, transport.WithHTTPClient(hc))
		if err != nil {
			t.Fatal(err)
		}
		polls := 0
		w := &transport.Wait[string]{URL: "https://acme.example/approvals/1", Client: cfg.Service,
			Decode: func(b []byte) (string, bool, error) { polls++; return string(b), string(b) != "pending", nil }}
		got, err := w.Run(t.Context())
		if err != nil || got != "approved" || time.Since(start) != time.Hour || polls != 61 {
			t.Errorf("Run = %q, %v after %v and %d polls; want approved after 1h and 61", got, err, time.Since(start), polls)
		}
	})
}

// TestRealNetworkInABubbleFailsAtOnce: inside a bubble, a wait whose client would reach the
// real network ends at once with an error saying so, instead of hanging the test.
func TestRealNetworkInABubbleFailsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithTimeout(t.Context(), time.Hour)
		defer cancel()
		cfg, _ := transport.NewConfig("acme", nil, transport.WithAllowPrivateAddresses())
		for name, hc := range map[string]*http.Client{"no client": nil, "Service": cfg.Service} {
			start := time.Now()
			_, err := (&transport.Wait[int]{URL: "https://acme.example/approvals/1", Client: hc,
				Decode: func([]byte) (int, bool, error) { return 0, true, nil }}).Run(ctx)
			if err == nil || !strings.Contains(err.Error(), "synctest bubble") || time.Since(start) != 0 {
				t.Errorf("%s: %v after %v; want the bubble named, at once", name, err, time.Since(start))
			}
		}
	})
}

// fatalTB records a Fatal and ends the goroutine, as testing.T does.
type fatalTB struct {
	testing.TB
	mu  sync.Mutex
	msg string
}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatal(args ...any) {
	f.mu.Lock()
	f.msg = fmt.Sprint(args...)
	f.mu.Unlock()
	runtime.Goexit()
}

// TestFakesRefuseABubble: the fakes that listen on loopback fail the test at once when
// called inside a bubble, saying why.
func TestFakesRefuseABubble(t *testing.T) {
	for name, start := range map[string]func(testing.TB){
		"hitltest.NewServer": func(tb testing.TB) { hitltest.NewServer(tb) },
		"hxptest.NewServer":  func(tb testing.TB) { hxptest.NewServer(tb) },
		"a2atest.NewAgent":   func(tb testing.TB) { a2atest.NewAgent(tb) },
		"a2atest.NewRelay":   func(tb testing.TB) { a2atest.NewRelay(tb) },
	} {
		synctest.Test(t, func(t *testing.T) {
			tb := &fatalTB{TB: t}
			done := make(chan struct{})
			go func() {
				defer close(done)
				start(tb)
			}()
			<-done
			if !strings.Contains(tb.msg, "synctest bubble") {
				t.Errorf("%s in a bubble: %q; want a failure naming the bubble", name, tb.msg)
			}
		})
	}
}
