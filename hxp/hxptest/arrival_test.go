package hxptest_test

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/hxp/hxptest"
	"github.com/hitlkit/hitlkit/transport"
)

// polls counts the agent's polls of request id in s's log.
func polls(s *hxptest.Server, id string) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Method == http.MethodGet && r.Path == "/hxp/v1/requests/"+id {
			n++
		}
	}
	return n
}

// TestHowTheDecisionArrives: on every profile, addressed as http://127.0.0.1:PORT (Server.URL)
// and as http://localhost:PORT, an agent waits with a poll interval of a minute and the human
// answers after its first poll; the answer arrives in well under the interval either way.
//   - ProfileSpec names the host the call came to in ws_url: the agent's key goes with the
//     handshake and the receipt on the WebSocket is the outcome, with one poll.
//   - ProfileReference names ws://localhost:PORT whatever the caller's host, as the reference
//     server does. Called at localhost, that is the caller's origin: as the spec's. Called at
//     127.0.0.1, it is another origin: the key is not sent, the WebSocket (the reference
//     server's asks for no key) pushes the receipt, which from another origin only makes the
//     polls look at once: the outcome comes by a second poll, at once.
func TestHowTheDecisionArrives(t *testing.T) {
	tests := []struct {
		profile hxptest.Profile
		host    string // the host the agent calls
		wsHost  string // the host ws_url names
		key     bool   // the handshake carries the agent's key
		polls   int    // 1: decided by the WebSocket; 2: by a poll the WebSocket woke
	}{
		{hxptest.ProfileSpec, "127.0.0.1", "127.0.0.1", true, 1},
		{hxptest.ProfileSpec, "localhost", "localhost", true, 1},
		{hxptest.ProfileReference, "127.0.0.1", "localhost", false, 2},
		{hxptest.ProfileReference, "localhost", "localhost", true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.profile.String()+" at "+tt.host, func(t *testing.T) {
			s := hxptest.NewServer(t, hxptest.WithProfile(tt.profile))
			port := s.URL[strings.LastIndex(s.URL, ":"):]
			const poll = time.Minute
			agent, err := hxp.NewClient("http://"+tt.host+port, transport.WithHTTPClient(s.Client()), transport.WithAllowPrivateAddresses(),
				transport.WithAuthorization(transport.StaticToken(hxptest.DefaultAgentKey)), transport.WithPollInterval(poll))
			if err != nil {
				t.Fatal(err)
			}
			cr, err := agent.Create(t.Context(), &hxp.Request{AgentID: "agent_1", TimeoutSeconds: 3600,
				Decide: &hxp.Decide{Question: "Ship?", Options: []string{"Ship", "Hold"}}})
			if err != nil {
				t.Fatal(err)
			}
			if want := "ws://" + tt.wsHost + port + "/hxp/ws?request_id=" + cr.RequestID; cr.WSURL != want {
				t.Fatalf("ws_url %q; want %q", cr.WSURL, want)
			}
			// Well under the poll interval: the answer comes through the WebSocket or not in time.
			ctx, cancel := context.WithTimeout(t.Context(), poll/3)
			defer cancel()
			var human sync.WaitGroup
			human.Go(func() {
				for polls(s, cr.RequestID) == 0 { // the wait subscribes before its first poll
					select {
					case <-time.After(5 * time.Millisecond):
					case <-ctx.Done():
						return
					}
				}
				if _, err := s.Resolve(cr.RequestID, "Ship", "", hxptest.HumanID); err != nil {
					t.Error(err)
				}
			})
			res, err := agent.Wait(ctx, cr, nil)
			human.Wait()
			if err != nil || res.Action != "Ship" {
				t.Fatalf("Wait = %v, %v; want Ship well before the next poll", res, err)
			}
			s.Close() // a WebSocket is logged when it ends
			if n := polls(s, cr.RequestID); n != tt.polls {
				t.Errorf("%d polls; want %d", n, tt.polls)
			}
			var keys []bool
			for _, r := range s.Requests() {
				if r.Path == "/hxp/ws" {
					keys = append(keys, r.Header.Get("Authorization") != "")
					if r.Status != http.StatusSwitchingProtocols {
						t.Errorf("WebSocket answered %d", r.Status)
					}
				}
			}
			if !slices.Equal(keys, []bool{tt.key}) {
				t.Errorf("WebSocket handshakes carrying the key: %v; want [%v]", keys, tt.key)
			}
		})
	}
}

// TestMemoryServer: inside a testing/synctest bubble, on every profile, an agent waits
// through the in-memory server for a decision made after hours of virtual time, with a
// poll interval of an hour; create answers name no ws_url, the wait polls, and the decision
// arrives at the first poll after it, with nothing sent outside the bubble.
func TestMemoryServer(t *testing.T) {
	for _, profile := range hxptest.Profiles() {
		t.Run(profile.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := hxptest.NewMemoryServer(t, hxptest.WithProfile(profile))
				if s.URL != "https://hxp.test" {
					t.Errorf("URL %q", s.URL)
				}
				agent, err := hxp.NewClient(s.URL, transport.WithHTTPClient(s.Client()),
					transport.WithAuthorization(transport.StaticToken(hxptest.DefaultAgentKey)), transport.WithPollInterval(time.Hour))
				if err != nil {
					t.Fatal(err)
				}
				cr, err := agent.Create(t.Context(), &hxp.Request{AgentID: "agent_1", TimeoutSeconds: 86400,
					Decide: &hxp.Decide{Question: "Ship?", Options: []string{"Ship", "Hold"}}})
				if err != nil {
					t.Fatal(err)
				}
				if cr.WSURL != "" {
					t.Errorf("ws_url %q; the in-memory server has no WebSocket", cr.WSURL)
				}
				start := time.Now()
				go func() {
					<-time.After(150 * time.Minute)
					if _, err := s.Resolve(cr.RequestID, "Ship", "", hxptest.HumanID); err != nil {
						t.Error(err)
					}
				}()
				res, err := agent.Wait(t.Context(), cr, nil)
				if err != nil || res.Action != "Ship" || res.RespondedBy.Name != hxptest.HumanID {
					t.Fatalf("Wait = %v, %v; want Ship", res, err)
				}
				// Polls at 0, 1 h, 2 h and 3 h, the last one after the answer at 2 h 30.
				if d := time.Since(start); d != 3*time.Hour {
					t.Errorf("decided after %v of virtual time; want 3h0m0s", d)
				}
				if n := polls(s, cr.RequestID); n != 4 || s.WebSockets() != 0 {
					t.Errorf("%d polls, %d WebSockets; want 4 polls, none", n, s.WebSockets())
				}
			})
		})
	}
}

// fatalTB records what a test helper reports with Fatal, and ends the goroutine as Fatal does.
type fatalTB struct {
	testing.TB
	mu       sync.Mutex
	msg      string
	cleanups []func()
}

func (f *fatalTB) Helper()           {}
func (f *fatalTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fatalTB) Fatal(args ...any) {
	f.mu.Lock()
	f.msg = fmt.Sprint(args...)
	f.mu.Unlock()
	runtime.Goexit()
}

// TestNewServerInABubble: NewServer inside a testing/synctest bubble, where a loopback
// connection would hang the test, fails the test at once and says to use NewMemoryServer.
func TestNewServerInABubble(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tb := &fatalTB{TB: t}
		done := make(chan struct{})
		go func() {
			defer close(done)
			s := hxptest.NewServer(tb)
			s.Close()
		}()
		<-done
		for _, fn := range slices.Backward(tb.cleanups) {
			fn()
		}
		tb.mu.Lock()
		defer tb.mu.Unlock()
		if !strings.Contains(tb.msg, "NewMemoryServer") {
			t.Errorf("NewServer in a bubble: Fatal(%q); want it to point to NewMemoryServer", tb.msg)
		}
	})
}
