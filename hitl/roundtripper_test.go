package hitl_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/google/go-cmp/cmp"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/transport"
)

// trackedBody is a request or response body that records whether it was read and closed.
type trackedBody struct {
	io.Reader
	read, closed atomic.Bool
}

func (b *trackedBody) Read(p []byte) (int, error) { b.read.Store(true); return b.Reader.Read(p) }
func (b *trackedBody) Close() error               { b.closed.Store(true); return nil }

func forwardNothing(context.Context, *hitl.Interrupt) error { return nil }

// TestTransportWaitsForTheHuman: a library that only holds an *http.Client and asks for
// every decision (EveryDecisionOK) gets, once the human decided, a 200 whose body is the
// result's data; ResultOf gives the typed Result, and the store holds nothing afterwards.
func TestTransportWaitsForTheHuman(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t)
		var store hitl.MemoryStore
		c, err := hitl.NewClient(transport.WithHTTPClient(s.Client()), hitl.WithForwarder(forwardNothing), hitl.WithStore(&store))
		if err != nil {
			t.Fatal(err)
		}
		human(t, s, func(id string) error {
			return s.Respond(id, "select", map[string]any{"selected": []string{"job_2"}}, &transport.Responder{Name: "Ana"})
		})
		hc := &http.Client{Transport: c.Transport(s.Client().Transport, &hitl.CallOptions{EveryDecisionOK: true})}
		req := post(t, s.URL+"/actions/selection", "")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" || resp.Request != req {
			t.Errorf("response = %d %q, request %p; want 200 application/json for %p", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Request, req)
		}
		if diff := cmp.Diff(`{"selected":["job_2"]}`, string(body)); diff != "" {
			t.Errorf("body (-want +got):\n%s", diff)
		}
		r := hitl.ResultOf(resp)
		if r == nil || r.Status != transport.StatusCompleted || r.Action != "select" || r.RespondedBy == nil || r.RespondedBy.Name != "Ana" {
			t.Fatalf("ResultOf = %+v; want Ana's selection", r)
		}
		if left, _ := store.List(t.Context()); len(left) != 0 {
			t.Errorf("store holds %d interrupts after the decision; want 0", len(left))
		}
	})
}

// TestTransportNoDataNoBody: with EveryDecisionOK, an expiry has no answer to carry; the
// body is empty and the Result says what happened.
func TestTransportNoDataNoBody(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t)
		c := newClient(t, s.Client().Transport, hitl.WithForwarder(forwardNothing))
		human(t, s, func(id string) error { return s.Expire(id) })
		hc := &http.Client{Transport: c.Transport(s.Client().Transport, &hitl.CallOptions{EveryDecisionOK: true})}
		resp, err := hc.Do(post(t, s.URL+"/actions/approval", ""))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		r := hitl.ResultOf(resp)
		if len(body) != 0 || resp.ContentLength != 0 || r == nil || r.Status != transport.StatusExpired || !r.DefaultApplied {
			t.Errorf("body %q, length %d, result %+v; want no body and an expiry", body, resp.ContentLength, r)
		}
	})
}

// TestTransportPassThrough: answers that ask for no human come back as the very response the
// base transport returned, their bodies unread; a stream is never read, whatever it claims.
func TestTransportPassThrough(t *testing.T) {
	tests := []struct {
		name   string
		status int
		header http.Header
		a2a    bool // the request negotiated A2A
	}{
		{"plain 200", 200, http.Header{"Content-Type": {"application/json"}}, false},
		{"404", 404, nil, false},
		{"A2A stream", 200, http.Header{"Content-Type": {"text/event-stream"}}, true},
		{"202 stream", 202, http.Header{"Content-Type": {"text/event-stream; charset=utf-8"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := &trackedBody{Reader: strings.NewReader(`{"status":"human_input_required","hitl":{}}`)}
			want := &http.Response{StatusCode: tt.status, Header: tt.header, Body: body}
			base := roundTripFunc(func(req *http.Request) (*http.Response, error) { want.Request = req; return want, nil })
			c := newClient(t, base, hitl.WithForwarder(forwardNothing))
			req, _ := http.NewRequest(http.MethodGet, "https://svc.example/stream", nil)
			if tt.a2a {
				req.Header.Set("A2A-Version", "1.0")
			}
			got, err := c.Transport(base, nil).RoundTrip(req)
			if err != nil || got != want || body.read.Load() || body.closed.Load() || hitl.ResultOf(got) != nil {
				t.Errorf("RoundTrip = %p, %v (body read %v, closed %v); want the base's response %p untouched",
					got, err, body.read.Load(), body.closed.Load(), want)
			}
		})
	}
}

// fixed is a base transport answering every request with the same plain 200, allocating
// nothing itself.
type fixed struct{ resp *http.Response }

func (f *fixed) RoundTrip(*http.Request) (*http.Response, error) { return f.resp, nil }

// TestTransportPassThroughAllocs: on an answer that asks for no human, a stream included,
// the transport allocates exactly what its base allocates (BenchmarkTransportPassThrough
// measures a plain 200 against a real server).
func TestTransportPassThroughAllocs(t *testing.T) {
	tests := []struct {
		name   string
		status int
		ctype  string
		a2a    bool // the request negotiated A2A
	}{
		{"plain 200", 200, "application/json", false},
		{"404", 404, "application/json", false},
		{"event stream", 200, "text/event-stream", false},
		{"202 event stream", 202, "text/event-stream", false},
		{"A2A stream", 200, "text/event-stream", true},
		{"A2A answer", 200, "application/json", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := &fixed{resp: &http.Response{StatusCode: tt.status, Header: http.Header{"Content-Type": {tt.ctype}},
				Body: io.NopCloser(strings.NewReader(`{}`))}}
			c := newClient(t, base, hitl.WithForwarder(forwardNothing))
			rt := c.Transport(base, nil)
			req, _ := http.NewRequest(http.MethodGet, "https://svc.example/items", nil)
			if tt.a2a {
				req.Header.Set("A2A-Version", "1.0")
			}
			baseAllocs := testing.AllocsPerRun(100, func() { _, _ = base.RoundTrip(req) })
			got := testing.AllocsPerRun(100, func() {
				if resp, err := rt.RoundTrip(req); err != nil || resp != base.resp {
					t.Fatalf("RoundTrip = %v, %v; want the base's response", resp, err)
				}
			})
			if got != baseAllocs {
				t.Errorf("allocations per pass-through = %v; want the base's %v", got, baseAllocs)
			}
		})
	}
}

// TestTransportRequestBodies: with a CallbackURL the body is sent once, rewritten, whether or
// not it can be read again; a body over the limit fails before anything is sent. Every body
// handed to RoundTrip is closed, as the RoundTripper contract asks.
func TestTransportRequestBodies(t *testing.T) {
	tests := []struct {
		name     string
		body     string
		getBody  bool
		wantSent string
		wantErr  error
	}{
		{"not replayable", `{"q":1}`, false, `{"hitl_callback_url":"https://agent.example/cb","q":1}`, nil},
		{"replayable", `{"q":1}`, true, `{"hitl_callback_url":"https://agent.example/cb","q":1}`, nil},
		{"over the limit", `{"q":"` + strings.Repeat("x", 1<<20) + `"}`, false, "", transport.ErrBodyTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := &script{replies: []reply{{status: 200, body: `{}`}}}
			c := newClient(t, base, hitl.WithForwarder(forwardNothing))
			rt := c.Transport(base, &hitl.CallOptions{CallbackURL: "https://agent.example/cb"})
			body := &trackedBody{Reader: strings.NewReader(tt.body)}
			req, _ := http.NewRequest(http.MethodPost, "https://svc.example/actions", body)
			if tt.getBody {
				req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(strings.NewReader(tt.body)), nil }
			}
			before := *req
			resp, err := rt.RoundTrip(req)
			sent, _ := base.requests()
			if !errors.Is(err, tt.wantErr) || (err != nil) != (resp == nil) {
				t.Fatalf("RoundTrip = %v, %v; want %v", resp, err, tt.wantErr)
			}
			if !body.closed.Load() {
				t.Error("the request body was not closed")
			}
			if req.Body != before.Body || req.ContentLength != before.ContentLength || len(req.Header) != len(before.Header) {
				t.Error("RoundTrip modified the caller's request")
			}
			if tt.wantErr != nil {
				if len(sent) != 0 {
					t.Errorf("%d requests sent; want none", len(sent))
				}
				return
			}
			got, _ := io.ReadAll(sent[0].Body)
			if diff := cmp.Diff(tt.wantSent, string(got)); diff != "" {
				t.Errorf("sent body (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTransportWithoutDecision: when a response asked for a human and no decision is learned,
// the caller gets no response and an error that says why and holds the interrupt, which
// stays in the store; the asking response's body is closed.
func TestTransportWithoutDecision(t *testing.T) {
	errStop := errors.New("the agent shuts down")
	tests := []struct {
		name    string
		replies []reply
		cancel  bool
		want    error
	}{
		{"poll 404", []reply{{status: 202, body: envelopeWith(hitlJSON())}, {status: 404, body: `{"error":"not_found"}`}}, false, transport.ErrNotFound},
		{"cancelled", []reply{{status: 202, body: envelopeWith(hitlJSON())}, {status: 200, body: `{"status":"pending","case_id":"review_abc123"}`}}, true, errStop},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				base := &script{replies: tt.replies}
				var store hitl.MemoryStore
				ctx, cancel := context.WithCancelCause(t.Context())
				defer cancel(nil)
				forwarded := func(context.Context, *hitl.Interrupt) error {
					if tt.cancel {
						cancel(errStop)
					}
					return nil
				}
				c := newClient(t, base, hitl.WithForwarder(forwarded), hitl.WithStore(&store))
				hc := &http.Client{Transport: c.Transport(base, nil)}
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "https://svc.example/jobs", strings.NewReader(`{}`))
				resp, err := hc.Do(req)
				var we *hitl.WaitError
				if resp != nil || !errors.Is(err, tt.want) || !errors.As(err, &we) || we.Interrupt.ID() != "review_abc123" {
					t.Fatalf("Do = %v, %v; want no response and a WaitError for review_abc123 matching %v", resp, err, tt.want)
				}
				if strings.Contains(err.Error(), "K7xR2mN4") {
					t.Errorf("error %q holds the review token", err)
				}
				if kept, _ := store.List(t.Context()); len(kept) != 1 || kept[0].ID() != "review_abc123" {
					t.Errorf("store = %v; want the interrupt kept for Resume", kept)
				}
			})
		})
	}
}

// TestTransportUnreadableAnswer: a 202 whose hitl object is broken, or too large to read, is
// never passed off as an ordinary answer: no response, a typed error, the body closed.
func TestTransportUnreadableAnswer(t *testing.T) {
	tests := []struct {
		name string
		body string
		want func(error) bool
	}{
		{"broken hitl", `{"status":"human_input_required","hitl":{"case_id":42}}`,
			func(err error) bool { var ie *hitl.InvalidError; return errors.As(err, &ie) }},
		{"over the limit", `{"hitl":"` + strings.Repeat("x", 1<<20) + `"}`,
			func(err error) bool { return errors.Is(err, transport.ErrBodyTooLarge) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := &trackedBody{Reader: strings.NewReader(tt.body)}
			base := roundTripFunc(func(req *http.Request) (*http.Response, error) {
				return &http.Response{StatusCode: 202, Header: http.Header{}, Body: body, Request: req}, nil
			})
			c := newClient(t, base, hitl.WithForwarder(forwardNothing))
			req, _ := http.NewRequest(http.MethodPost, "https://svc.example/jobs", nil)
			resp, err := c.Transport(base, nil).RoundTrip(req)
			if resp != nil || !tt.want(err) || !body.closed.Load() {
				t.Errorf("RoundTrip = %v, %v (body closed %v); want no response, the typed error, the body closed", resp, err, body.closed.Load())
			}
		})
	}
}

// TestTransportA2A: an A2A SDK's call through the transport returns once its task's question
// was answered, with the task's final state as the body.
func TestTransportA2A(t *testing.T) {
	agent := a2atest.NewMemoryAgent(t)
	ask := func(context.Context, *a2a.Pause) (a2a.Answer, error) { return a2a.HectorDecision(true), nil }
	c := newClient(t, agent.Client().Transport, hitl.WithForwarder(forwardNothing))
	hc := &http.Client{Transport: c.Transport(agent.Client().Transport, &hitl.CallOptions{Wait: &hitl.WaitOptions{Ask: ask}})}
	resp := a2aCall(t, hc, agent.Endpoint(a2a.JSONRPC10), true)
	body, _ := io.ReadAll(resp.Body)
	r := hitl.ResultOf(resp)
	if resp.StatusCode != http.StatusOK || r == nil || r.Status != transport.StatusCompleted || r.Action != "approve" {
		t.Fatalf("response %d, result %+v; want 200 and the approved task", resp.StatusCode, r)
	}
	task, err := a2a.TaskOf(r)
	if err != nil || task.ID == "" || !bytes.Contains(body, []byte(task.ID)) {
		t.Errorf("body %s; want the final task (%v)", body, err)
	}
}

// TestTransportUnderAnA2A03Client: an A2A 0.3 SDK client behind the transport, speaking
// JSON-RPC unmarked, gets the agent's own answer (the task asking for input), which it reads
// itself; Client.Do on the same call finds the question.
func TestTransportUnderAnA2A03Client(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		agent := a2atest.NewMemoryAgent(t)
		c := newClient(t, agent.Client().Transport, hitl.WithForwarder(forwardNothing))
		hc := &http.Client{Transport: c.Transport(agent.Client().Transport, nil)}
		ac, err := a2a.NewClient(transport.WithHTTPClient(hc), transport.WithAllowPrivateAddresses())
		if err != nil {
			t.Fatal(err)
		}
		ev, err := ac.Send(t.Context(), agent.Endpoint(a2a.JSONRPC03), a2a.Message{Parts: []a2a.Part{a2a.TextPart("go")}}, nil)
		if err != nil || ev.Task == nil || ev.Task.State != a2a.StateInputRequired {
			t.Fatalf("Send through the transport = %+v, %v; want the agent's input-required task", ev, err)
		}
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, agent.Endpoint(a2a.JSONRPC03).URL,
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"go"}]}}}`))
		req.Header.Set("Content-Type", "application/json")
		out, err := c.Do(t.Context(), req, &hitl.CallOptions{DetectOnly: true})
		if err != nil || out.Interrupt == nil || out.Interrupt.Kind != hitl.KindA2AInput {
			t.Fatalf("Do = %+v, %v; want the question", out, err)
		}
		_ = out.Body.Close()
	})
}
