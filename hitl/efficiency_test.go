package hitl_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// metering counts the requests a client sends and the bytes of the answers it reads (status
// line, headers and body); withoutETag drops If-None-Match, to compare.
type metering struct {
	base        http.RoundTripper
	withoutETag bool
	requests    int
	bytes       int64
}

func (m *metering) RoundTrip(r *http.Request) (*http.Response, error) {
	if m.withoutETag {
		r = r.Clone(r.Context())
		r.Header.Del("If-None-Match")
	}
	m.requests++
	resp, err := m.base.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	n := int64(len(resp.Status) + 11)
	for k, vs := range resp.Header {
		for _, v := range vs {
			n += int64(len(k) + len(v) + 4)
		}
	}
	m.bytes += n
	resp.Body = countingBody{resp.Body, &m.bytes}
	return resp, nil
}

type countingBody struct {
	io.ReadCloser
	n *int64
}

func (b countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	*b.n += int64(n)
	return n, err
}

// pollFor creates a case on a memory fake with Retry-After r, has it decided at t, and
// polls it to the end; it returns the requests and bytes of the wait.
func pollFor(t *testing.T, r, decideAt time.Duration, withoutETag bool) (int, int64) {
	var (
		requests int
		bytes    int64
	)
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t, hitltest.WithRetryAfter(r), hitltest.WithoutEvents())
		c, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()), hitl.WithPollIntervals(time.Second, time.Hour))
		it := detect(t, c, post(t, s.URL+"/actions/approval", ""))
		m := &metering{base: s.Client().Transport, withoutETag: withoutETag}
		c, _ = hitl.NewClient(transport.WithHTTPClient(&http.Client{Transport: m}), hitl.WithPollIntervals(time.Second, time.Hour))
		go func() {
			<-time.After(decideAt)
			_ = s.Respond(it.ID(), "approve", nil, nil)
		}()
		if _, err := c.Wait(t.Context(), it, nil); err != nil {
			t.Fatal(err)
		}
		requests, bytes = m.requests, m.bytes
	})
	return requests, bytes
}

// TestRequestEfficiency: a case decided T after the wait began, polled under Retry-After R,
// costs at most the minimum the pacing allows, ⌈T/R⌉+1 polls, plus one; ETag and 304 keep
// the waiting polls' bytes below those of a client that sends no If-None-Match. Run with -v
// for the figures.
func TestRequestEfficiency(t *testing.T) {
	for _, tc := range []struct{ r, decideAt time.Duration }{
		{10 * time.Second, 5 * time.Minute},
		{30 * time.Second, time.Hour},
		{5 * time.Minute, 8 * time.Hour},
	} {
		t.Run(fmt.Sprintf("R=%v T=%v", tc.r, tc.decideAt), func(t *testing.T) {
			minimum := int((tc.decideAt+tc.r-1)/tc.r) + 1
			reqs, withETag := pollFor(t, tc.r, tc.decideAt, false)
			reqsNoETag, noETag := pollFor(t, tc.r, tc.decideAt, true)
			t.Logf("requests %d (minimum %d); bytes %d with ETag, %d without (%.0f%%)", reqs, minimum, withETag, noETag, 100*float64(withETag)/float64(noETag))
			if reqs > minimum+1 || reqsNoETag > minimum+1 {
				t.Errorf("requests %d and %d, minimum %d", reqs, reqsNoETag, minimum)
			}
			if withETag >= noETag {
				t.Errorf("ETag saved nothing: %d bytes with, %d without", withETag, noETag)
			}
		})
	}
}

// TestAtMostSixtyPerMinute: whatever the fake does for ten minutes — every transient fault it
// can inject, a Retry-After of 0, an event stream that announces progress ten times a
// second — the client never polls one case more than 60 times in any minute (HITL §13.5).
func TestAtMostSixtyPerMinute(t *testing.T) {
	type setup func(s *hitltest.Server, id string, done <-chan struct{})
	fault := func(f hitltest.Fault) setup {
		return func(s *hitltest.Server, id string, _ <-chan struct{}) { s.FailNext(id, f, 100000) }
	}
	tests := []struct {
		name  string
		opts  []hitltest.Option
		setup setup
	}{
		{"503", nil, fault(hitltest.Fault503)},
		{"500", nil, fault(hitltest.Fault500)},
		{"429", nil, fault(hitltest.Fault429)},
		{"429 date", nil, fault(hitltest.Fault429Date)},
		{"malformed", nil, fault(hitltest.FaultTruncated)},
		{"stall", nil, fault(hitltest.FaultStall)},
		{"Retry-After 0", []hitltest.Option{hitltest.WithRetryAfter(0), hitltest.WithoutEvents()}, func(*hitltest.Server, string, <-chan struct{}) {}},
		{"progress events ten a second", []hitltest.Option{hitltest.WithRetryAfter(0)}, func(s *hitltest.Server, id string, done <-chan struct{}) {
			go func() {
				for i := 0; ; i++ {
					select {
					case <-time.After(100 * time.Millisecond):
					case <-done:
						return
					}
					if s.Progress(id, hitl.Progress{CurrentStep: i%9 + 1, TotalSteps: 10}) != nil {
						return
					}
				}
			}()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := hitltest.NewMemoryServer(t, tt.opts...)
				c, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()))
				it := detect(t, c, post(t, s.URL+"/actions/approval", ""))
				id := it.ID()
				ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
				defer cancel()
				tt.setup(s, id, ctx.Done())
				if _, err := c.Wait(ctx, it, nil); !errors.Is(err, context.DeadlineExceeded) {
					t.Fatalf("Wait = %v", err)
				}
				var polls []time.Time
				for _, r := range s.Requests() {
					if r.CaseID == id && r.Method == http.MethodGet && r.Path == "/reviews/"+id+"/status" {
						polls = append(polls, r.Time)
					}
				}
				most := 0
				for i := range polls {
					j := i
					for j < len(polls) && polls[j].Sub(polls[i]) < time.Minute {
						j++
					}
					most = max(most, j-i)
				}
				if most > 60 || len(polls) < 2 {
					t.Errorf("%d polls in ten minutes, %d in the busiest minute", len(polls), most)
				}
			})
		})
	}
}
