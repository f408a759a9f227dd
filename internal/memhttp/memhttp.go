// Package memhttp serves an http.Handler through an in-memory http.RoundTripper
// ([transporttest.Transport], named here for the module's own tests), and holds [Slow].
package memhttp

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/hitlkit/hitlkit/transport/transporttest"
)

// Transport is transporttest.Transport.
type Transport = transporttest.Transport

// ErrConnectionReset is transporttest.ErrConnectionReset.
var ErrConnectionReset = transporttest.ErrConnectionReset

// Slow wraps Handler (as a server) or Next (as a client's transport), holding each request
// for Delay before it is served or sent, and counts the requests in flight (see Most). Safe
// for concurrent use.
type Slow struct {
	Handler http.Handler
	Next    http.RoundTripper
	Delay   time.Duration

	mu             sync.Mutex
	inFlight, most int
}

// ServeHTTP implements http.Handler.
func (s *Slow) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	defer s.enter()()
	select {
	case <-time.After(s.Delay):
		s.Handler.ServeHTTP(w, r)
	case <-r.Context().Done():
	}
}

// RoundTrip implements http.RoundTripper; the request counts as in flight until Next has
// answered, its body aside.
func (s *Slow) RoundTrip(r *http.Request) (*http.Response, error) {
	defer s.enter()()
	select {
	case <-time.After(s.Delay):
		return s.Next.RoundTrip(r)
	case <-r.Context().Done():
		return nil, context.Cause(r.Context())
	}
}

// enter counts a request in flight and returns what counts it out.
func (s *Slow) enter() (leave func()) {
	s.mu.Lock()
	s.inFlight++
	s.most = max(s.most, s.inFlight)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}
}

// Most is the largest number of requests that were in flight at once.
func (s *Slow) Most() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.most
}
