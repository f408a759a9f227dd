package hitl_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/transport"
)

// TestRedirectedCallGetsNoCredentials: the agent calls A with its key; A redirects (307) to
// B, which answers the 202. The credential belongs to A: Do's polls on B carry none, though
// the call's own Authorization header is what Do would otherwise reuse.
func TestRedirectedCallGetsNoCredentials(t *testing.T) {
	body := with(func(h map[string]any) {
		h["poll_url"] = "https://b.example/reviews/abc123/status"
		h["created_at"], h["expires_at"] = "2000-01-01T00:00:00Z", "2000-01-02T00:00:00Z"
	})
	synctest.Test(t, func(t *testing.T) {
		a := &script{replies: []reply{{http.StatusTemporaryRedirect, map[string]string{"Location": "https://b.example/v1/search"}, ""}}}
		b := &script{replies: []reply{
			{http.StatusAccepted, map[string]string{"Content-Type": "application/json"}, body},
			ok(strings.ReplaceAll(completedApprove, "review_c1", "review_abc123")),
		}}
		c := newClient(t, hostRouter{"api.svc.example": a, "b.example": b}, hitl.WithForwarder(hitl.WriteTo(io.Discard)))
		resp, err := c.Do(t.Context(), post(t, "https://api.svc.example/v1/search", "Bearer agent-key"), nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.Result == nil || resp.Result.Action != "approve" {
			t.Fatalf("result %v", resp.Result)
		}
		if got := resp.Interrupt.Origin; got != "https://api.svc.example:443" {
			t.Errorf("Origin = %q, want the origin the caller called", got)
		}
		reqs, _ := b.requests()
		if len(reqs) < 2 {
			t.Fatalf("B saw %d requests, want the call and a poll", len(reqs))
		}
		for i, r := range reqs {
			if v := r.Header.Get("Authorization"); v != "" {
				t.Errorf("request %d to B (%s %s) carried Authorization %q", i, r.Method, r.URL.Path, v)
			}
		}
	})
}

// TestRedirectedA2ACallGetsNoCredentials: the same attack on an A2A agent: the call to A is
// redirected to the agent at B, whose task asks a question; the resume and tasks/get on B
// carry no credential.
func TestRedirectedA2ACallGetsNoCredentials(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewMemoryAgent(t)
		ep := agent.Endpoint(a2a.JSONRPC10)
		rec := &authRecorder{next: agent.Client().Transport}
		rt := roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if req.URL.Host == "a.example" {
				return &http.Response{StatusCode: http.StatusTemporaryRedirect, Header: http.Header{"Location": {ep.URL}},
					Body: http.NoBody, Request: req}, nil
			}
			return rec.RoundTrip(req)
		})
		c := newClient(t, rt, hitl.WithForwarder(hitl.WriteTo(io.Discard)))
		req, _ := http.NewRequest(http.MethodPost, "https://a.example/rpc",
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"clean up"}]}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("A2A-Version", "1.0")
		req.Header.Set("Authorization", "Bearer agent-key")
		resp, err := c.Do(t.Context(), req, &hitl.CallOptions{Wait: &hitl.WaitOptions{
			Ask: func(context.Context, *a2a.Pause) (a2a.Answer, error) { return a2a.HectorDecision(true), nil }}})
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.Result == nil || resp.Result.Status != transport.StatusCompleted {
			t.Fatalf("result %v", resp.Result)
		}
		if got := resp.Interrupt.Origin; got != "https://a.example:443" {
			t.Errorf("Origin = %q", got)
		}
		if n, leaked := rec.counts(); n < 2 || leaked != 0 {
			t.Errorf("agent saw %d requests, %d with Authorization", n, leaked)
		}
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// authRecorder counts the requests passed on to next, and those that carried Authorization.
type authRecorder struct {
	next        http.RoundTripper
	mu          sync.Mutex
	n, withAuth int
}

func (r *authRecorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.n++
	if req.Header.Get("Authorization") != "" {
		r.withAuth++
	}
	r.mu.Unlock()
	return r.next.RoundTrip(req)
}

func (r *authRecorder) counts() (int, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n, r.withAuth
}
