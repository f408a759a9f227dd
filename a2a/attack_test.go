package a2a_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/internal/flood"
	"github.com/hitlkit/hitlkit/internal/memhttp"
	"github.com/hitlkit/hitlkit/transport"
)

// TestPushReceiverFlood: 1,000 connections reach the push receiver at once with the right
// token (so their bodies must be read), and as many with a wrong one. Bodies are read up to
// 64 KiB, a few at a time, stalled ones are cut at the read deadline, a wrong token is refused
// without reading, and the extra heap stays under 64 MiB.
func TestPushReceiverFlood(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 loopback connections")
	}
	good := http.Header{"X-A2a-Notification-Token": {"push-token"}}
	bad := http.Header{"X-A2a-Notification-Token": {"guess"}}
	for _, a := range []flood.Attack{
		{Conns: 1000, Declared: 1 << 20, Sent: 1<<20 - 1, Header: good},
		{Conns: 1000, Declared: 32 << 10, Sent: 16 << 10, Header: good},
		{Conns: 1000, Declared: 1 << 20, Sent: 1<<20 - 1, Header: bad},
	} {
		t.Run(fmt.Sprintf("declared %d sent %d token %s", a.Declared, a.Sent, a.Header.Get("X-A2a-Notification-Token")), func(t *testing.T) {
			r := flood.Run(t, &a2a.PushReceiver{Token: "push-token", ReadTimeout: time.Second}, a, 10*time.Second)
			t.Logf("statuses %v, at most %d handlers at once, extra heap %.1f MiB, last handler freed %v after the last byte",
				r.Statuses, r.PeakHandlers, float64(r.ExtraHeap)/(1<<20), r.Freed.Round(time.Millisecond))
			if r.ExtraHeap >= 64<<20 {
				t.Errorf("extra heap %d bytes, want under 64 MiB", r.ExtraHeap)
			}
			// 0: the connection was reset after the refusal, before the answer was read (the
			// kernel resets a socket closed with unread data).
			want := []int{http.StatusServiceUnavailable, http.StatusRequestEntityTooLarge, http.StatusBadRequest, 0}
			if a.Header.Get("X-A2a-Notification-Token") != "push-token" {
				want = []int{http.StatusUnauthorized, 0}
			}
			n := 0
			for _, code := range want {
				n += r.Statuses[code]
			}
			if n != a.Conns {
				t.Errorf("statuses %v, want every connection refused with one of %v", r.Statuses, want)
			}
		})
	}
}

// TestEchoedSecretsStayOutOfErrors: an agent that echoes the bearer token in its error
// message, its error data or an unknown kind gets none of it into an error string.
func TestEchoedSecretsStayOutOfErrors(t *testing.T) {
	const token = "agent-bearer-0123456789"
	for name, answer := range map[string]func(echo string) string{
		"error message": func(echo string) string {
			return `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"bad ` + echo + strings.Repeat("x", 5000) + `","data":{"got":"` + echo + `"}}}`
		},
		"unknown kind": func(echo string) string {
			return `{"jsonrpc":"2.0","id":1,"result":{"kind":"` + echo + `","id":"t1"}}`
		},
	} {
		t.Run(name, func(t *testing.T) {
			agent := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = io.WriteString(w, answer(r.Header.Get("Authorization")))
			})
			c, err := a2a.NewClient(transport.WithHTTPClient(&http.Client{Transport: &memhttp.Transport{Handler: agent}}),
				a2a.WithAuthorize(func(_ context.Context, req *http.Request) error {
					req.Header.Set("Authorization", "Bearer "+token)
					return nil
				}))
			if err != nil {
				t.Fatal(err)
			}
			_, err = c.GetTask(t.Context(), a2a.Endpoint{URL: "https://agent.test/a2a/v1", Binding: a2a.JSONRPC03}, "t1")
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			var ae *a2a.Error
			if errors.As(err, &ae) {
				msg += ae.Message + ae.Reason + string(ae.Data)
			}
			if strings.Contains(msg, token) {
				t.Errorf("the token is in the error: %q", msg)
			}
			if len(err.Error()) > 400 {
				t.Errorf("error of %d bytes", len(err.Error()))
			}
		})
	}
}

// TestNilClient: every method of a nil *Client is an error naming a2a.NewClient, not a panic.
func TestNilClient(t *testing.T) {
	var c *a2a.Client
	ep := a2a.Endpoint{URL: "https://agent.example/a2a", Binding: a2a.JSONRPC10}
	p := &a2a.Pause{Endpoint: ep, TaskID: "t1", Class: a2a.ClassInputRequired}
	ask := func(context.Context, *a2a.Pause) (a2a.Answer, error) { return a2a.Answer{}, nil }
	for name, call := range map[string]func() error{
		"Send":       func() error { _, err := c.Send(t.Context(), ep, a2a.Message{}, nil); return err },
		"SendStream": func() error { _, err := c.SendStream(t.Context(), ep, a2a.Message{}, nil); return err },
		"GetTask":    func() error { _, err := c.GetTask(t.Context(), ep, "t1"); return err },
		"Cancel":     func() error { _, err := c.Cancel(t.Context(), ep, "t1"); return err },
		"Resume":     func() error { _, err := c.Resume(t.Context(), p, a2a.Text(p, "yes")); return err },
		"Wait":       func() error { _, err := c.Wait(t.Context(), p, nil); return err },
		"Run":        func() error { _, err := c.Run(t.Context(), p, ask, nil); return err },
		"Runner":     func() error { _, err := c.Runner(ask, nil).Wait(t.Context(), p); return err },
	} {
		if err := call(); err == nil || !strings.Contains(err.Error(), "a2a.NewClient") {
			t.Errorf("nil *Client's %s = %v; want an error naming a2a.NewClient", name, err)
		}
	}
	if c.Pending() != nil {
		t.Error("a nil *Client has pending questions")
	}
}
