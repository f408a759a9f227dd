package retry

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/hitlkit/hitlkit/internal/memhttp"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// script answers with the given statuses in turn (the last one repeats) and records when
// each request came, relative to the start of the bubble.
type script struct {
	mu       sync.Mutex
	statuses []int
	header   http.Header
	at       []time.Duration
	start    time.Time
	closed   int
}

func (s *script) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := min(len(s.at), len(s.statuses)-1)
	s.at = append(s.at, time.Since(s.start).Round(time.Second))
	for k, v := range s.header {
		w.Header()[k] = v
	}
	w.WriteHeader(s.statuses[i])
	_, _ = io.WriteString(w, "body "+http.StatusText(s.statuses[i]))
}

// closeCounter is a transport that counts CloseIdleConnections calls.
type closeCounter struct {
	http.RoundTripper
	s *script
}

func (c closeCounter) CloseIdleConnections() { c.s.mu.Lock(); c.s.closed++; c.s.mu.Unlock() }

func TestDo(t *testing.T) {
	tests := []struct {
		name     string
		method   string
		statuses []int
		header   http.Header
		wantAt   []time.Duration // request times; waits are jittered within [d/2, d]
		wantLast int
	}{
		{"success at once", "GET", []int{200}, nil, []time.Duration{0}, 200},
		{"404 is not retried", "GET", []int{404}, nil, []time.Duration{0}, 404},
		{"POST is never retried", "POST", []int{503, 200}, nil, []time.Duration{0}, 503},
		{"Retry-After is honoured", "GET", []int{429, 200}, http.Header{"Retry-After": {"7"}}, []time.Duration{0, 7 * time.Second}, 200},
		{"a long Retry-After is capped at 30 s", "GET", []int{503, 200}, http.Header{"Retry-After": {"86400"}}, []time.Duration{0, 30 * time.Second}, 200},
		{"gives up after 3 retries with the last body", "GET", []int{503}, http.Header{"Retry-After": {"2"}},
			[]time.Duration{0, 2 * time.Second, 4 * time.Second, 6 * time.Second}, 503},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := &script{statuses: tt.statuses, header: tt.header, start: time.Now()}
				hc := &http.Client{Transport: closeCounter{&memhttp.Transport{Handler: s}, s}}
				req, _ := http.NewRequestWithContext(t.Context(), tt.method, "https://svc.test/x?token=secret", nil)
				resp, err := Do(hc, req, Policy{})
				if err != nil {
					t.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != tt.wantLast || !strings.Contains(string(body), http.StatusText(tt.wantLast)) {
					t.Errorf("last response %d %q, want %d with its body", resp.StatusCode, body, tt.wantLast)
				}
				if diff := cmp.Diff(tt.wantAt, s.at); diff != "" {
					t.Errorf("request times (-want +got):\n%s", diff)
				}
				if s.closed != 0 {
					t.Errorf("the caller's idle connections were closed %d times", s.closed)
				}
			})
		})
	}
}

func TestDoBackoffWithoutRetryAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &script{statuses: []int{502, 502, 200}, start: time.Now()}
		req, _ := http.NewRequestWithContext(t.Context(), "GET", "https://svc.test/", nil)
		resp, err := Do(&http.Client{Transport: &memhttp.Transport{Handler: s}}, req, Policy{})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if len(s.at) != 3 {
			t.Fatalf("%d requests, want 3", len(s.at))
		}
		// Waits of 1 s then 2 s, each jittered into its upper half.
		if g1, g2 := s.at[1]-s.at[0], s.at[2]-s.at[1]; g1 > time.Second || g2 < time.Second || g2 > 2*time.Second {
			t.Errorf("gaps %v and %v, want ≤1 s then 1–2 s", g1, g2)
		}
	})
}

func TestDoStopsOnCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &script{statuses: []int{503}, header: http.Header{"Retry-After": {"20"}}, start: time.Now()}
		cause := errors.New("agent stopping")
		ctx, cancel := context.WithCancelCause(t.Context())
		time.AfterFunc(5*time.Second, func() { cancel(cause) })
		req, _ := http.NewRequestWithContext(ctx, "GET", "https://svc.test/", nil)
		resp, err := Do(&http.Client{Transport: &memhttp.Transport{Handler: s}}, req, Policy{})
		if resp != nil {
			resp.Body.Close()
		}
		if err == nil || time.Since(s.start) != 5*time.Second {
			t.Errorf("Do returned %v after %v, want an error at 5 s", err, time.Since(s.start))
		}
	})
}
