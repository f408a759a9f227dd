package hitl_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/transport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// reply is one scripted HTTP answer.
type reply struct {
	status int
	header map[string]string
	body   string
}

// script is an http.RoundTripper that answers each request with the next reply (the last
// one repeats) and records what it was sent, and when. It starts no goroutine, so it works
// inside a synctest bubble.
type script struct {
	mu      sync.Mutex
	replies []reply
	reqs    []*http.Request
	times   []time.Time
}

func (s *script) RoundTrip(req *http.Request) (*http.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = append(s.reqs, req.Clone(req.Context()))
	s.times = append(s.times, time.Now())
	r := s.replies[0]
	if len(s.replies) > 1 {
		s.replies = s.replies[1:]
	}
	h := make(http.Header)
	for k, v := range r.header {
		h.Set(k, v)
	}
	return &http.Response{StatusCode: r.status, Header: h, Request: req,
		Body: io.NopCloser(strings.NewReader(r.body))}, nil
}

func (s *script) requests() ([]*http.Request, []time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*http.Request(nil), s.reqs...), append([]time.Time(nil), s.times...)
}

func newClient(t *testing.T, rt http.RoundTripper, opts ...transport.Option) *hitl.Client {
	t.Helper()
	c, err := hitl.NewClient(append([]transport.Option{transport.WithHTTPClient(&http.Client{Transport: rt})}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// interrupt builds a HITL interrupt for case caseID, polled at https://svc.example, created now
// and expiring in ttl.
func interrupt(caseID string, ttl time.Duration) *hitl.Interrupt {
	now := time.Now()
	return &hitl.Interrupt{Kind: hitl.KindHITL, Origin: "https://svc.example:443", Case: &hitl.Case{
		SpecVersion: "0.8", CaseID: caseID, Type: hitl.TypeApproval, Prompt: "Approve?",
		ReviewURL: "https://svc.example/review/" + caseID + "?token=secret-review-token",
		PollURL:   "https://svc.example/reviews/" + caseID + "/status", DefaultAction: hitl.DefaultSkip,
		CreatedAt: now, ExpiresAt: now.Add(ttl)}}
}

// response202 builds a 202 response carrying body, as if answering a POST to reqURL.
func response202(t *testing.T, reqURL, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, reqURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Response{StatusCode: http.StatusAccepted, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewBufferString(body)), Request: req}
}

// detect sends req with c, detecting only, and returns the interrupt its answer carries; a
// failed call or an answer without one fails the test.
func detect(t *testing.T, c *hitl.Client, req *http.Request) *hitl.Interrupt {
	t.Helper()
	resp, err := c.Do(t.Context(), req, &hitl.CallOptions{DetectOnly: true})
	if err != nil || resp.Interrupt == nil {
		t.Fatalf("Do = %v, %v; want an interrupt", resp, err)
	}
	_ = resp.Body.Close()
	return resp.Interrupt
}

// waitFunc is a way of the test's own, as a function.
type waitFunc func(ctx context.Context, it *hitl.Interrupt) (*transport.Result, error)

func (f waitFunc) Wait(ctx context.Context, it *hitl.Interrupt) (*transport.Result, error) {
	return f(ctx, it)
}
