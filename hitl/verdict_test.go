package hitl_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// deletion is what a generated API client returns: the typed answer or an error. It never
// shows its caller the *http.Response.
type deletion struct {
	Deleted  int    `json:"deleted"`
	Feedback string `json:"feedback"`
}

// genClient is the shape of every generated API client: it holds an *http.Client and turns a
// 2xx into a *T, anything else into an error.
type genClient struct {
	hc   *http.Client
	base string
}

func (g *genClient) Delete(ctx context.Context, body string) (*deletion, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, g.base+"/actions/approval", strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	resp, err := g.hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("status %d", resp.StatusCode)
	}
	var out deletion
	if b, _ := io.ReadAll(resp.Body); len(b) > 0 {
		if err := json.Unmarshal(b, &out); err != nil {
			return nil, err
		}
	}
	return &out, nil
}

// decisions are the ways a case ends, each with whether it is a go-ahead.
var decisions = []struct {
	name    string
	body    string // the call's body: the fake reads default_action from it
	decide  func(s *hitltest.Server, id string) error
	approve bool
	status  transport.Status
}{
	{"approval", `{}`, func(s *hitltest.Server, id string) error {
		return s.Respond(id, "approve", map[string]any{"deleted": 3, "feedback": "go"}, nil)
	}, true, transport.StatusCompleted},
	{"rejection", `{}`, func(s *hitltest.Server, id string) error {
		return s.Respond(id, "reject", map[string]any{"feedback": "no way"}, nil)
	}, false, transport.StatusCompleted},
	{"edit request", `{}`, func(s *hitltest.Server, id string) error {
		return s.Respond(id, "edit", map[string]any{"feedback": "only two"}, nil)
	}, false, transport.StatusCompleted},
	{"expiry, default approve", `{"default_action":"approve"}`, func(s *hitltest.Server, id string) error {
		return s.Expire(id)
	}, false, transport.StatusExpired},
	{"expiry, default skip", `{}`, func(s *hitltest.Server, id string) error { return s.Expire(id) }, false, transport.StatusExpired},
	{"cancellation", `{}`, func(s *hitltest.Server, id string) error { return s.Cancel(id, "withdrawn") }, false, transport.StatusCancelled},
}

// TestTransportOnlyApprovalIs2xx: a generated-style client behind Client.Transport gets a *T
// only for an approval; a rejection, an edit request, an expiry (default approve included)
// and a cancellation are an error matching ErrNotApproved that holds the Result and the
// Interrupt. With EveryDecisionOK each is a 200 and ResultOf tells them apart.
func TestTransportOnlyApprovalIs2xx(t *testing.T) {
	for _, tt := range decisions {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := hitltest.NewMemoryServer(t)
				c := newClient(t, s.Client().Transport, hitl.WithForwarder(forwardNothing))
				human(t, s, func(id string) error { return tt.decide(s, id) })
				api := &genClient{hc: &http.Client{Transport: c.Transport(s.Client().Transport, nil)}, base: s.URL}
				out, err := api.Delete(t.Context(), tt.body)
				if tt.approve {
					if err != nil || out == nil || out.Deleted != 3 {
						t.Fatalf("Delete = %+v, %v; want the approval's data", out, err)
					}
					return
				}
				if out != nil || !errors.Is(err, hitl.ErrNotApproved) {
					t.Fatalf("Delete = %+v, %v; want no answer and ErrNotApproved", out, err)
				}
				var na *hitl.NotApprovedError
				if !errors.As(err, &na) || na.Result == nil || na.Result.Status != tt.status || na.Result.Approved() ||
					na.Interrupt == nil || na.Interrupt.ID() != na.Result.CaseID {
					t.Fatalf("error %v holds %+v; want the Result (%s) and the Interrupt", err, na, tt.status)
				}
				if errors.Is(err, hitl.ErrInvalid) {
					t.Errorf("%v matches ErrInvalid", err)
				}
				if strings.Contains(err.Error(), "token") || strings.Contains(err.Error(), "no way") {
					t.Errorf("error %q shows a secret or the human's data", err)
				}
			})
		})
	}
	t.Run("EveryDecisionOK", func(t *testing.T) {
		for _, tt := range decisions {
			synctest.Test(t, func(t *testing.T) {
				s := hitltest.NewMemoryServer(t)
				c := newClient(t, s.Client().Transport, hitl.WithForwarder(forwardNothing))
				human(t, s, func(id string) error { return tt.decide(s, id) })
				hc := &http.Client{Transport: c.Transport(s.Client().Transport, &hitl.CallOptions{EveryDecisionOK: true})}
				resp, err := hc.Do(post(t, s.URL+"/actions/approval", ""))
				if err != nil {
					t.Fatalf("%s: %v", tt.name, err)
				}
				_ = resp.Body.Close()
				if r := hitl.ResultOf(resp); resp.StatusCode != http.StatusOK || r == nil || r.Approved() != tt.approve {
					t.Errorf("%s: %d, Result %v; want 200 and Approved %v", tt.name, resp.StatusCode, r, tt.approve)
				}
			})
		}
	})
}

// TestDoOnlyApprovalIsNoError: Do keeps the Transport's rule — only an approval comes back
// without an error — and still returns the Response with its Interrupt and Result, so the
// caller can read the decision; EveryDecisionOK makes every decision a nil error.
func TestDoOnlyApprovalIsNoError(t *testing.T) {
	for _, tt := range decisions {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := hitltest.NewMemoryServer(t)
				c := newClient(t, s.Client().Transport, hitl.WithForwarder(forwardNothing))
				human(t, s, func(id string) error { return tt.decide(s, id) }, func(id string) error { return tt.decide(s, id) })
				for _, every := range []bool{false, true} {
					req, _ := http.NewRequest(http.MethodPost, s.URL+"/actions/approval", strings.NewReader(tt.body))
					resp, err := c.Do(t.Context(), req, &hitl.CallOptions{EveryDecisionOK: every})
					if resp == nil || resp.Result == nil || resp.Interrupt == nil || resp.Result.Status != tt.status {
						t.Fatalf("EveryDecisionOK %v: Do = %+v, %v; want the Response with its Result", every, resp, err)
					}
					_ = resp.Body.Close()
					if wantErr := !tt.approve && !every; errors.Is(err, hitl.ErrNotApproved) != wantErr || (err != nil) != wantErr {
						t.Errorf("EveryDecisionOK %v: Do error = %v; want ErrNotApproved %v", every, err, wantErr)
					}
					var na *hitl.NotApprovedError
					if errors.As(err, &na) && (na.Result != resp.Result || na.Interrupt != resp.Interrupt) {
						t.Errorf("the error holds %+v; want the Response's Result and Interrupt", na)
					}
				}
			})
		})
	}
}

// TestNoForwarderPassesThrough: a client without a forwarder leaves every call that needs no
// human alone (Do and Transport), and returns a call that asks for one with its Interrupt —
// neither forwarded nor waited on — and an error matching ErrNoForwarder that holds it.
func TestNoForwarderPassesThrough(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t)
		c := newClient(t, s.Client().Transport)

		plain := &script{replies: []reply{{200, map[string]string{"Content-Type": "application/json"}, `{"ok":true}`}}}
		pc := newClient(t, plain)
		req, _ := http.NewRequest(http.MethodGet, "https://api.svc.example/items", nil)
		resp, err := pc.Do(t.Context(), req, nil)
		if err != nil || resp.StatusCode != 200 || resp.Interrupt != nil {
			t.Fatalf("Do = %+v, %v; want the service's 200", resp, err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if string(b) != `{"ok":true}` {
			t.Errorf("body %q", b)
		}
		req, _ = http.NewRequest(http.MethodGet, "https://api.svc.example/items", nil)
		if got, err := pc.Transport(plain, nil).RoundTrip(req); err != nil || got.StatusCode != 200 {
			t.Fatalf("RoundTrip = %v, %v; want the service's 200", got, err)
		} else {
			_ = got.Body.Close()
		}

		resp, err = c.Do(t.Context(), post(t, s.URL+"/actions/approval", ""), nil)
		var we *hitl.WaitError
		if !errors.Is(err, hitl.ErrNoForwarder) || !errors.As(err, &we) || resp == nil || resp.Interrupt == nil ||
			we.Interrupt != resp.Interrupt || resp.Result != nil || resp.StatusCode != http.StatusAccepted {
			t.Fatalf("Do = %+v, %v; want the 202 with its Interrupt and a WaitError matching ErrNoForwarder", resp, err)
		}
		_ = resp.Body.Close()
		if cs, ok := s.Case(resp.Interrupt.ID()); !ok || cs.State != "pending" {
			t.Errorf("case %+v; want it pending, never waited on", cs)
		}
		if !strings.Contains(err.Error(), "hitl.WithForwarder") {
			t.Errorf("error %q does not say what to do", err)
		}

		_, err = (&http.Client{Transport: c.Transport(s.Client().Transport, nil)}).Do(post(t, s.URL+"/actions/approval", ""))
		if !errors.Is(err, hitl.ErrNoForwarder) || !errors.As(err, &we) || we.Interrupt == nil || we.Interrupt.Case == nil {
			t.Fatalf("Transport: %v; want a WaitError holding the Interrupt, matching ErrNoForwarder", err)
		}
		// The interrupt can still be put to a human and waited on.
		if err := s.Respond(we.Interrupt.ID(), "approve", nil, nil); err != nil {
			t.Fatal(err)
		}
		if r, err := c.Wait(t.Context(), we.Interrupt, nil); err != nil || !r.Approved() {
			t.Errorf("Wait = %v, %v; want the approval", r, err)
		}
	})
}

// TestRefusedBeforeSending: a Do or Transport call whose URL the address rules refuse sends
// nothing, and its error matches ErrRefusedAddress (never ErrInvalid), names the option that
// admits it and shows no secret of the URL.
func TestRefusedBeforeSending(t *testing.T) {
	for _, target := range []string{
		"http://127.0.0.1:8080/actions?api_key=s3cret",
		"https://localhost/actions?api_key=s3cret",
		"https://user:s3cret@10.0.0.7/actions",
		"http://api.svc.example/actions?api_key=s3cret",
	} {
		base := &script{replies: []reply{{200, nil, ""}}}
		c := newClient(t, base, hitl.WithForwarder(forwardNothing))
		body := &trackedBody{Reader: strings.NewReader(`{}`)}
		req, _ := http.NewRequest(http.MethodPost, target, body)
		resp, err := c.Do(t.Context(), req, nil)
		check := func(how string, err error) {
			t.Helper()
			if !errors.Is(err, transport.ErrRefusedAddress) || errors.Is(err, hitl.ErrInvalid) {
				t.Errorf("%s %s: %v; want ErrRefusedAddress, not ErrInvalid", how, target, err)
			}
			if err != nil && strings.Contains(err.Error(), "s3cret") {
				t.Errorf("%s: error %q shows the URL's secret", how, err)
			}
			if err != nil && !strings.Contains(err.Error(), "https") && !strings.Contains(err.Error(), "transport.WithAllowPrivateAddresses()") {
				t.Errorf("%s: error %q does not name transport.WithAllowPrivateAddresses()", how, err)
			}
		}
		check("Do", err)
		if resp != nil || !body.closed.Load() {
			t.Errorf("Do %s = %v; want no response and the body closed", target, resp)
		}
		req, _ = http.NewRequest(http.MethodPost, target, strings.NewReader(`{}`))
		// RoundTrip itself: an http.Client's *url.Error adds the URL, query included.
		_, err = c.Transport(base, nil).RoundTrip(req)
		check("Transport", err)
		if sent, _ := base.requests(); len(sent) != 0 {
			t.Errorf("%s: %d requests sent; want none", target, len(sent))
		}
	}
	// Allowed, the local service is called.
	base := &script{replies: []reply{{200, nil, "ok"}}}
	c := newClient(t, base, transport.WithAllowPrivateAddresses())
	req, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:8080/x", nil)
	if resp, err := c.Do(t.Context(), req, nil); err != nil {
		t.Errorf("with WithAllowPrivateAddresses: %v", err)
	} else {
		_ = resp.Body.Close()
	}
}
