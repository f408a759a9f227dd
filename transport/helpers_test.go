package transport_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/transport"
)

var errTimeout = errors.New("test deadline")

func contextWithTimeout(t *testing.T, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(t.Context(), d, errTimeout)
}

// poller is the part of a Wait's configuration the tests set.
type poller struct {
	Client      *http.Client
	MaxInterval time.Duration
	Slots       *transport.Slots
}

// poll waits on url with p's configuration and decode, polling only.
func poll[T any](ctx context.Context, p *poller, url string, decode func([]byte) (T, bool, error)) (T, error) {
	return pollOnWake(ctx, p, url, nil, decode)
}

// pollOnWake is poll with a push source that wakes the wait each time wake receives.
func pollOnWake[T any](ctx context.Context, p *poller, url string, wake <-chan struct{}, decode func([]byte) (T, bool, error)) (T, error) {
	w := &transport.Wait[T]{URL: url, Decode: decode, Client: p.Client, MaxInterval: p.MaxInterval, Slots: p.Slots}
	if wake != nil {
		w.Push = []func(context.Context, func(), func(T)) error{func(ctx context.Context, kick func(), _ func(T)) error {
			for {
				select {
				case <-ctx.Done():
					return nil
				case <-wake:
					kick()
				}
			}
		}}
	}
	return w.Run(ctx)
}
