package a2a_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/transport"
)

// loopback serves a fake agent on a real loopback server and counts what is open: the
// server's handlers running and connections, and the response bodies the client has not
// closed.
type loopback struct {
	srv                     *httptest.Server
	handlers, conns, bodies atomic.Int64
}

// countedBody is a response body that counts itself closed once.
type countedBody struct {
	io.ReadCloser
	n      *atomic.Int64
	closed atomic.Bool
}

func (b *countedBody) Close() error {
	if b.closed.CompareAndSwap(false, true) {
		b.n.Add(-1)
	}
	return b.ReadCloser.Close()
}

func newLoopback(t *testing.T, h http.Handler) *loopback {
	t.Helper()
	l := &loopback{}
	l.srv = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.handlers.Add(1)
		defer l.handlers.Add(-1)
		h.ServeHTTP(w, r)
	}))
	l.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			l.conns.Add(1)
		case http.StateClosed, http.StateHijacked:
			l.conns.Add(-1)
		}
	}
	l.srv.Start()
	t.Cleanup(l.srv.Close)
	return l
}

// client is an HTTP client of the server whose response bodies are counted.
func (l *loopback) client() *http.Client {
	base := l.srv.Client().Transport
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		resp, err := base.RoundTrip(r)
		if err == nil {
			l.bodies.Add(1)
			resp.Body = &countedBody{ReadCloser: resp.Body, n: &l.bodies}
		}
		return resp, err
	})}
}

// settled fails t unless, once a call has returned, no response body is left open at once
// and every handler of the server has ended within 5 s.
func (l *loopback) settled(t *testing.T, call string) {
	t.Helper()
	if n := l.bodies.Load(); n != 0 {
		t.Errorf("%s returned with %d response bodies open", call, n)
	}
	deadline := time.After(5 * time.Second)
	for l.handlers.Load() != 0 {
		select {
		case <-deadline:
			t.Fatalf("%s returned; %d of the agent's handlers still run", call, l.handlers.Load())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// TestNothingOutlivesItsCall: over a real loopback server, on every binding, each call —
// a send, a task query, a wait following the task's stream, a streamed send, a run to the
// end, a cancel, a refused query — returns with every response body it opened closed and
// every request it made ended at the agent; once the client lets its idle connections go,
// none is left open.
func TestNothingOutlivesItsCall(t *testing.T) {
	agent := a2atest.NewMemoryAgent(t, a2atest.WithAuthFirst())
	l := newLoopback(t, agent)
	hc := l.client()
	c := newClient(t, transport.WithHTTPClient(hc), transport.WithAllowPrivateAddresses(), transport.WithPollInterval(time.Hour))
	for _, b := range bindings {
		ep := agent.Endpoint(b)
		ep.URL = l.srv.URL + strings.TrimPrefix(ep.URL, agent.URL)
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		p := start(t, c, ep, nil)
		l.settled(t, string(b)+" Send")

		if _, err := c.GetTask(ctx, ep, p.TaskID); err != nil {
			t.Fatalf("%s GetTask: %v", b, err)
		}
		l.settled(t, string(b)+" GetTask")

		// The wait polls an hour apart: only the task's stream can tell it of the
		// authorisation, given once the subscription is open.
		go func() {
			for ctx.Err() == nil {
				for _, r := range agent.Requests() {
					if r.TaskID == p.TaskID && strings.Contains(strings.ToLower(r.Operation), "subscribe") {
						_ = agent.Authorize(p.TaskID)
						return
					}
				}
				select {
				case <-ctx.Done():
				case <-time.After(10 * time.Millisecond):
				}
			}
		}()
		task, err := c.Wait(ctx, p, &a2a.WaitOptions{Stream: true})
		if err != nil || task.State != a2a.StateInputRequired {
			t.Fatalf("%s Wait = %+v, %v", b, task, err)
		}
		l.settled(t, string(b)+" Wait")

		r, err := c.Run(ctx, a2a.NewPause(ep, task), func(context.Context, *a2a.Pause) (a2a.Answer, error) {
			return a2a.HectorDecision(true), nil
		}, nil)
		if err != nil || r.Status != transport.StatusCompleted {
			t.Fatalf("%s Run = %v, %v", b, r, err)
		}
		l.settled(t, string(b)+" Run")

		ev, err := c.SendStream(ctx, ep, a2a.Message{Parts: []a2a.Part{a2a.TextPart("clean up")}}, nil)
		if err != nil || ev.Task == nil {
			t.Fatalf("%s SendStream = %+v, %v", b, ev, err)
		}
		l.settled(t, string(b)+" SendStream")

		if _, err := c.Cancel(ctx, ep, ev.Task.ID); err != nil {
			t.Fatalf("%s Cancel: %v", b, err)
		}
		l.settled(t, string(b)+" Cancel")

		if _, err := c.GetTask(ctx, ep, "no-such-task"); err == nil {
			t.Fatalf("%s GetTask of an unknown task succeeded", b)
		}
		l.settled(t, string(b)+" GetTask of an unknown task")
		cancel()
	}
	l.srv.Client().CloseIdleConnections() // the transport under hc's counting
	deadline := time.After(5 * time.Second)
	for l.conns.Load() != 0 {
		select {
		case <-deadline:
			t.Fatalf("%d connections still open after the client let its idle ones go", l.conns.Load())
		case <-time.After(10 * time.Millisecond):
		}
	}
}
