package hxp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/transport"
)

// scripted starts a loopback server whose every answer is h's, and an agent client for it
// holding the key "sk-agent-0123456789".
func scripted(t *testing.T, h http.HandlerFunc) (*httptest.Server, *hxp.Client) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := hxp.NewClient(srv.URL, transport.WithHTTPClient(srv.Client()), transport.WithAllowPrivateAddresses(),
		transport.WithPollInterval(time.Second), transport.WithAuthorization(key("sk-agent-0123456789")))
	if err != nil {
		t.Fatal(err)
	}
	return srv, c
}

// TestReceiptForAnotherRequest: a poll that answers with another request's receipt (or
// state) is never the Result of the wait: it is an ErrMismatch naming both ids.
func TestReceiptForAnotherRequest(t *testing.T) {
	for name, body := range map[string]string{
		"receipt of another request": `{"request_id":"req_a","status":"completed","receipt":{"request_id":"req_b","status":"completed","result":{"choice":"Approve"},"completed_by":"mallory","completed_at":"2026-01-01T00:00:00Z"}}`,
		"state of another request":   `{"request_id":"req_b","status":"completed","receipt":{"request_id":"req_b","status":"completed","result":{"choice":"Approve"},"completed_by":"mallory","completed_at":"2026-01-01T00:00:00Z"}}`,
		"expiry of another request":  `{"request_id":"req_a","status":"expired","receipt":{"request_id":"req_b","status":"expired"}}`,
	} {
		t.Run(name, func(t *testing.T) {
			srv, c := scripted(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(body))
			})
			cr := &hxp.Created{RequestID: "req_a", Status: "pending", PollURL: srv.URL + "/hxp/v1/requests/req_a"}
			r, err := c.Wait(t.Context(), cr, &hxp.WaitOptions{PollOnly: true})
			if r != nil || !errors.Is(err, transport.ErrMismatch) || !strings.Contains(err.Error(), `"req_b", not "req_a"`) {
				t.Fatalf("Wait = %v, %v; want a mismatch naming req_b and req_a", r, err)
			}
		})
	}
}

// TestEchoedSecretsStayOutOfErrors: a server that echoes the agent's key (and pads its error
// with 100 KB) gets neither the key nor the padding into the error string.
func TestEchoedSecretsStayOutOfErrors(t *testing.T) {
	srv, c := scripted(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		echo := r.Header.Get("Authorization")
		_, _ = w.Write([]byte(`{"error":"bad_key ` + echo + `","message":"you sent ` + strings.TrimPrefix(echo, "Bearer ") + strings.Repeat(" pad", 25000) + `"}`))
	})
	_, err := c.Get(context.Background(), "req_a")
	if err == nil {
		t.Fatal("no error")
	}
	var ae *hxp.APIError
	if !errors.As(err, &ae) || !errors.Is(err, hxp.ErrBadRequest) {
		t.Fatalf("error %v is not the 400's APIError", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "sk-agent-0123456789") || strings.Contains(ae.Code+ae.Message, "sk-agent-0123456789") {
		t.Errorf("the key is in the error: %q", msg)
	}
	if !strings.Contains(msg, "[redacted]") || len(msg) > 400 {
		t.Errorf("error of %d bytes: %.120q…", len(msg), msg)
	}
	_ = srv
}

// TestNoRedirectFollowed: a server that redirects to another port (another origin) gets
// neither the agent's key nor the human's token there: the client follows no redirect, on
// unary calls and on the WebSocket handshake.
func TestNoRedirectFollowed(t *testing.T) {
	var elsewhere int
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere++
		if r.Header.Get("Authorization") != "" {
			t.Errorf("%s %s on the other origin carried Authorization", r.Method, r.URL.Path)
		}
	}))
	defer other.Close()
	srv, c := scripted(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+r.URL.Path, http.StatusTemporaryRedirect)
	})
	var apiErr *hxp.APIError
	if _, err := c.Get(t.Context(), "req_a"); !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusTemporaryRedirect {
		t.Errorf("Get = %v, want the 307 as an unexpected status", err)
	}
	human, err := hxp.NewClient(srv.URL, transport.WithHTTPClient(srv.Client()), transport.WithAllowPrivateAddresses(), hxp.WithHumanAuthorization(key("human-token-0123")))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := human.Inbox(t.Context(), nil); err == nil {
		t.Error("Inbox through a redirect succeeded")
	}
	cr := &hxp.Created{RequestID: "req_a", Status: "pending", PollURL: srv.URL + "/hxp/v1/requests/req_a",
		WSURL: strings.Replace(srv.URL, "http", "ws", 1) + "/hxp/v1/requests/req_a/ws"}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Second)
	defer cancel()
	if r, err := c.Wait(ctx, cr, nil); r != nil || err == nil {
		t.Errorf("Wait through a redirect = %v, %v", r, err)
	}
	if elsewhere != 0 {
		t.Errorf("the other origin was reached %d times", elsewhere)
	}
}

// TestNilClient: every method of a nil *Client is an error naming hxp.NewClient, not a panic.
func TestNilClient(t *testing.T) {
	var c *hxp.Client
	cr := &hxp.Created{RequestID: "req_1"}
	for name, call := range map[string]func() error{
		"Create":  func() error { _, err := c.Create(t.Context(), &hxp.Request{}); return err },
		"Get":     func() error { _, err := c.Get(t.Context(), "req_1"); return err },
		"Cancel":  func() error { return c.Cancel(t.Context(), "req_1") },
		"List":    func() error { _, err := c.List(t.Context(), nil); return err },
		"Inbox":   func() error { _, err := c.Inbox(t.Context(), nil); return err },
		"Resolve": func() error { _, err := c.Resolve(t.Context(), "req_1", "yes", ""); return err },
		"Wait":    func() error { _, err := c.Wait(t.Context(), cr, nil); return err },
		"Waiter":  func() error { _, err := c.Waiter(nil).Wait(t.Context(), cr); return err },
	} {
		if err := call(); err == nil || !strings.Contains(err.Error(), "hxp.NewClient") {
			t.Errorf("nil *Client's %s = %v; want an error naming hxp.NewClient", name, err)
		}
	}
	if c.Pending() != nil {
		t.Error("a nil *Client has pending questions")
	}
}
