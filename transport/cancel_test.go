package transport_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"testing/synctest"

	"github.com/hitlkit/hitlkit/transport"
)

// TestWaitWithEndedContext: a wait whose context has already ended returns its cause at
// once, however the context's end and the first poll's scheduling interleave.
func TestWaitWithEndedContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := roundTripFunc(func(*http.Request) (*http.Response, error) { return nil, errors.New("unreachable") })
		for range 300 {
			ctx, cancel := context.WithCancel(t.Context())
			cancel()
			w := &transport.Wait[int]{URL: "https://svc.example/s", Client: &http.Client{Transport: rt},
				Decode: func([]byte) (int, bool, error) { return 0, true, nil }}
			if _, err := w.Run(ctx); !errors.Is(err, context.Canceled) {
				t.Fatalf("Run = %v, want context.Canceled", err)
			}
		}
	})
}
