package hxp_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/hxp/hxptest"
	"github.com/hitlkit/hitlkit/internal/ws"
	"github.com/hitlkit/hitlkit/transport"
)

// wsElsewhere is a WebSocket server on another origin than the HXP server: it counts the
// connections and sends each one the messages given to send.
type wsElsewhere struct {
	*httptest.Server
	dials atomic.Int32
	send  chan string
}

func newWSElsewhere(t *testing.T) *wsElsewhere {
	s := &wsElsewhere{send: make(chan string, 1)}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.dials.Add(1)
		c, err := ws.Accept(w, r)
		if err != nil {
			return
		}
		defer func() { _ = c.CloseNow() }()
		ctx := r.Context()
		gone := make(chan struct{})
		go func() {
			defer close(gone)
			c.Wait(ctx) // until the client goes
		}()
		select {
		case m := <-s.send:
			_ = c.Write(ctx, []byte(m))
			<-gone
		case <-gone:
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// TestUntrustedPushConfirmedAtOnce: a completed event from a WebSocket on another origin is
// not taken as the outcome, but the poll that confirms it goes out at once — the decision
// arrives in a fraction of a second, not when a second has passed since the previous poll.
func TestUntrustedPushConfirmedAtOnce(t *testing.T) {
	s := hxptest.NewServer(t)
	common := []transport.Option{transport.WithHTTPClient(s.Client()), transport.WithAllowPrivateAddresses(), transport.WithPollInterval(30 * time.Second)}
	agent, err := hxp.NewClient(s.URL, append(common, transport.WithAuthorization(key(hxptest.DefaultAgentKey)))...)
	if err != nil {
		t.Fatal(err)
	}
	human, err := hxp.NewClient(s.URL, append(common, hxp.WithHumanAuthorization(key(hxptest.DefaultHumanToken)))...)
	if err != nil {
		t.Fatal(err)
	}
	cr, err := agent.Create(t.Context(), decide())
	if err != nil {
		t.Fatal(err)
	}
	other := newWSElsewhere(t)
	cr.WSURL = "ws" + strings.TrimPrefix(other.URL, "http") + "/ws"

	var resolved atomic.Int64
	go func() {
		for other.dials.Load() == 0 {
			<-time.After(5 * time.Millisecond)
		}
		<-time.After(200 * time.Millisecond) // the first poll has gone out
		if _, err := human.Resolve(context.Background(), cr.RequestID, "Approve", ""); err != nil {
			t.Error(err)
			return
		}
		resolved.Store(time.Now().UnixNano())
		other.send <- fmt.Sprintf(`{"event":"completed","receipt":{"request_id":%q,"status":"completed","result":"Deny"}}`, cr.RequestID)
	}()
	res, err := agent.Wait(t.Context(), cr, nil)
	if err != nil || res.Action != "Approve" {
		t.Fatalf("Wait = %+v, %v; want the polled Approve, not the pushed Deny", res, err)
	}
	if took := time.Since(time.Unix(0, resolved.Load())); took > 600*time.Millisecond {
		t.Errorf("the decision arrived %v after the push; want it confirmed at once", took)
	}
}

// TestNoPlainWebSocketFromHTTPS: a client on an https base URL never dials a ws:// URL, even
// with local plain HTTP allowed: the polls carry the wait.
func TestNoPlainWebSocketFromHTTPS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = fmt.Fprint(w, `{"request_id":"hxp_one","status":"cancelled"}`)
	}))
	defer srv.Close()
	other := newWSElsewhere(t)
	c, err := hxp.NewClient(srv.URL, transport.WithHTTPClient(srv.Client()), transport.WithAllowPrivateAddresses())
	if err != nil {
		t.Fatal(err)
	}
	cr := &hxp.Created{RequestID: "hxp_one", PollURL: srv.URL + "/hxp/v1/requests/hxp_one",
		WSURL: "ws" + strings.TrimPrefix(other.URL, "http") + "/ws"}
	res, err := c.Wait(t.Context(), cr, nil)
	if err != nil || res == nil {
		t.Fatalf("Wait = %+v, %v", res, err)
	}
	if n := other.dials.Load(); n != 0 {
		t.Errorf("dialled the ws:// URL %d times from an https client", n)
	}
}
