package hxptest_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/hitlkit/hitlkit/hxp"
	"github.com/hitlkit/hitlkit/hxp/hxptest"
	"github.com/hitlkit/hitlkit/internal/ws"
	"github.com/hitlkit/hitlkit/transport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// call sends one request to the fake with a bearer token and returns the status and the
// decoded JSON body.
func call(t *testing.T, s *hxptest.Server, method, path, token, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, s.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return resp.StatusCode, out
}

const decide = `{"agent_id":"agent_1","priority":"high","timeout_seconds":%d,"fallback":"%s",
	"action":"DECIDE","payload":{"question":"Ship?","options":["Ship","Hold"],"default_option":"Hold"}}`

func create(t *testing.T, s *hxptest.Server, timeout int, fallback string) (string, map[string]any) {
	t.Helper()
	status, out := call(t, s, http.MethodPost, "/hxp/v1/requests", hxptest.DefaultAgentKey, fmt.Sprintf(decide, timeout, fallback))
	id, _ := out["request_id"].(string)
	if status != http.StatusCreated || id == "" {
		t.Fatalf("create: %d %v", status, out)
	}
	return id, out
}

// TestRequestLifecycle: on every profile, a request is created with the agent's key only,
// polled as pending, resolved once by the scripted human with a receipt whose evidence
// verifies under the profile's formula, and polled as completed; the log records each call.
func TestRequestLifecycle(t *testing.T) {
	for _, profile := range hxptest.Profiles() {
		t.Run(profile.String(), func(t *testing.T) {
			s := hxptest.NewServer(t, hxptest.WithProfile(profile))
			if status, _ := call(t, s, http.MethodPost, "/hxp/v1/requests", "wrong", fmt.Sprintf(decide, 60, "default")); status != http.StatusUnauthorized {
				t.Errorf("create with a wrong key: %d", status)
			}
			id, created := create(t, s, 3600, "default")
			wsURL, _ := created["ws_url"].(string)
			wantWS := "ws://127.0.0.1:"
			if profile == hxptest.ProfileReference {
				wantWS = "ws://localhost:"
			}
			if !strings.HasPrefix(wsURL, wantWS) || !strings.HasSuffix(wsURL, "/hxp/ws?request_id="+id) {
				t.Errorf("ws_url %q", wsURL)
			}
			if status, st := call(t, s, http.MethodGet, "/hxp/v1/requests/"+id, hxptest.DefaultAgentKey, ""); status != http.StatusOK || st["status"] != "pending" {
				t.Errorf("poll before: %d %v", status, st)
			}
			if _, err := s.Resolve(id, "Maybe", "", hxptest.HumanID); err == nil {
				t.Error("an answer outside the options was taken")
			}
			rc, err := s.Resolve(id, "Ship", "looks good", hxptest.HumanID)
			if err != nil {
				t.Fatal(err)
			}
			formula := hxp.HashSpec
			if profile == hxptest.ProfileReference {
				formula = hxp.HashReference
			}
			if !rc.VerifyEvidence(s.Secret(), formula) || rc.CompletedBy != hxptest.HumanID || string(rc.Result) != `"Ship"` {
				t.Errorf("receipt %+v", rc)
			}
			if _, err := s.Resolve(id, "Hold", "", hxptest.HumanID); !errors.Is(err, hxptest.ErrEnded) {
				t.Errorf("second answer: %v", err)
			}
			if err := s.Cancel("nope"); !errors.Is(err, hxptest.ErrNotFound) {
				t.Errorf("cancel of an unknown request: %v", err)
			}
			status, st := call(t, s, http.MethodGet, "/hxp/v1/requests/"+id, hxptest.DefaultAgentKey, "")
			receipt, _ := st["receipt"].(map[string]any)
			if status != http.StatusOK || st["status"] != "completed" || receipt["evidence_hash"] != rc.EvidenceHash {
				t.Errorf("poll after: %d %v", status, st)
			}
			var got []int
			for _, r := range s.Requests() {
				got = append(got, r.Status)
				if r.Time.IsZero() || r.Header.Get("Authorization") == "" {
					t.Errorf("request %+v", r)
				}
			}
			if want := []int{401, 201, 200, 200}; !slices.Equal(got, want) {
				t.Errorf("statuses %v, want %v", got, want)
			}
		})
	}
}

// TestFailNext: a fault queued for one request hits that request's next poll only; one for
// any request hits the next poll.
func TestFailNext(t *testing.T) {
	s := hxptest.NewServer(t)
	a, _ := create(t, s, 3600, "default")
	b, _ := create(t, s, 3600, "default")
	poll := func(id string) int {
		status, _ := call(t, s, http.MethodGet, "/hxp/v1/requests/"+id, hxptest.DefaultAgentKey, "")
		return status
	}
	s.FailNext(a, hxptest.Fault503, 1)
	if got := []int{poll(b), poll(a), poll(a)}; !slices.Equal(got, []int{200, 503, 200}) {
		t.Errorf("statuses %v", got)
	}
	s.FailNext("", hxptest.FaultUnauthorized, 1)
	s.FailNext("", hxptest.FaultNotFound, 1)
	s.FailNext("", hxptest.Fault500, 1)
	if got := []int{poll(b), poll(a), poll(b), poll(a)}; !slices.Equal(got, []int{401, 404, 500, 200}) {
		t.Errorf("statuses %v", got)
	}
}

// read returns the next WebSocket event's name, "" when none arrives within d.
func read(t *testing.T, c *ws.Conn, d time.Duration) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), d)
	defer cancel()
	b, err := c.Read(ctx)
	if err != nil {
		return ""
	}
	var ev struct{ Event string }
	_ = json.Unmarshal(b, &ev)
	return ev.Event
}

// events reads a WebSocket's events until the server closes it.
func events(t *testing.T, c *ws.Conn) []string {
	t.Helper()
	var out []string
	for {
		ev := read(t, c, 5*time.Second)
		if ev == "" {
			return out
		}
		out = append(out, ev)
	}
}

// TestWebSocketProfiles: a subscriber is told of the outcome; after it, the spec's server
// replays any terminal event to a new subscriber, the reference server only a completion.
func TestWebSocketProfiles(t *testing.T) {
	for _, profile := range hxptest.Profiles() {
		t.Run(profile.String(), func(t *testing.T) {
			s := hxptest.NewServer(t, hxptest.WithProfile(profile), hxptest.WithWSShape(hxptest.WSPath))
			dial := func(id string) *ws.Conn {
				h := http.Header{"Authorization": {"Bearer " + hxptest.DefaultAgentKey}}
				c, err := ws.Dial(t.Context(), "ws"+strings.TrimPrefix(s.URL, "http")+"/hxp/ws/"+id, s.Client(), h, 1<<20)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { _ = c.Close() })
				return c
			}
			done, _ := create(t, s, 3600, "default")
			c := dial(done)
			if _, err := s.Resolve(done, "Ship", "", hxptest.HumanID); err != nil {
				t.Fatal(err)
			}
			if evs := events(t, c); !slices.Equal(evs, []string{"completed"}) {
				t.Errorf("live events %q", evs)
			}
			if evs := events(t, dial(done)); !slices.Equal(evs, []string{"completed"}) {
				t.Errorf("replay of a completion %q", evs)
			}
			cancelled, _ := create(t, s, 3600, "default")
			if err := s.Cancel(cancelled); err != nil {
				t.Fatal(err)
			}
			if profile == hxptest.ProfileReference {
				if ev := read(t, dial(cancelled), 100*time.Millisecond); ev != "" {
					t.Errorf("replay of a cancellation %q, want none", ev)
				}
			} else if evs := events(t, dial(cancelled)); !slices.Equal(evs, []string{"cancelled"}) {
				t.Errorf("replay of a cancellation %q", evs)
			}
			pending, _ := create(t, s, 3600, "default")
			dropped := dial(pending)
			if err := s.Assign(pending, "user_2"); err != nil {
				t.Fatal(err)
			}
			if ev := read(t, dropped, 5*time.Second); ev != "assigned" {
				t.Errorf("live event %q", ev)
			}
			s.DropWebSockets()
			if _, err := dropped.Read(t.Context()); err == nil {
				t.Error("a dropped WebSocket still reads")
			}
			if s.WebSockets() != 4 {
				t.Errorf("%d WebSockets accepted, want 4", s.WebSockets())
			}
		})
	}
}

// TestTimeouts: a request left unanswered takes its fallback: the default option as the
// system's answer; under the spec, fail issues a failure receipt, and under the reference
// server's timeouts it ends as expired without one.
func TestTimeouts(t *testing.T) {
	tests := []struct {
		name, fallback, want string
		opts                 []hxptest.Option
		receipt              bool
	}{
		{"default", "default", "completed", nil, true},
		{"fail", "fail", "failed", nil, true},
		{"reference fail", "fail", "expired", []hxptest.Option{hxptest.WithReferenceTimeouts()}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := hxptest.NewServer(t, tt.opts...)
			id, _ := create(t, s, 1, tt.fallback)
			c, err := ws.Dial(t.Context(), "ws"+strings.TrimPrefix(s.URL, "http")+"/hxp/ws/"+id, s.Client(),
				http.Header{"Authorization": {"Bearer " + hxptest.DefaultAgentKey}}, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if evs := events(t, c); !slices.Equal(evs, []string{tt.want}) {
				t.Errorf("events %q, want %q", evs, tt.want)
			}
			_, st := call(t, s, http.MethodGet, "/hxp/v1/requests/"+id, hxptest.DefaultAgentKey, "")
			rc, _ := st["receipt"].(map[string]any)
			if st["status"] != tt.want || (rc != nil) != tt.receipt {
				t.Errorf("state %v", st)
			}
			if tt.fallback == "default" && (rc["result"] != "Hold" || rc["completed_by"] != hxp.SystemResponder) {
				t.Errorf("receipt %v", rc)
			}
		})
	}
}

// TestUnstarted: an unstarted server listens only once started, on loopback.
func TestUnstarted(t *testing.T) {
	s := hxptest.NewUnstartedServer()
	if s.URL != "" {
		t.Fatalf("unstarted server at %q", s.URL)
	}
	s.Start()
	defer s.Close()
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") {
		t.Errorf("URL %q", s.URL)
	}
	create(t, s, 60, "default")
}

// TestStartTLS: on every profile, a server started over TLS gives wss:// URLs on its own
// host, and an agent that trusts its certificate waits on a request over them: the human's
// answer arrives over the WebSocket, long before the next poll is due (a minute). The
// request log names the request of each call.
func TestStartTLS(t *testing.T) {
	for _, profile := range hxptest.Profiles() {
		t.Run(profile.String(), func(t *testing.T) {
			s := hxptest.NewUnstartedServer(hxptest.WithProfile(profile))
			s.StartTLS()
			defer s.Close()
			if !strings.HasPrefix(s.URL, "https://127.0.0.1:") || s.Certificate() == nil {
				t.Fatalf("URL %q, certificate %v", s.URL, s.Certificate())
			}
			const poll = time.Minute
			agent, err := hxp.NewClient(s.URL, transport.WithHTTPClient(s.Client()), transport.WithAllowPrivateAddresses(),
				transport.WithAuthorization(transport.StaticToken(hxptest.DefaultAgentKey)), transport.WithPollInterval(poll))
			if err != nil {
				t.Fatal(err)
			}
			cr, err := agent.Create(t.Context(), &hxp.Request{AgentID: "agent_1", TimeoutSeconds: 3600,
				Decide: &hxp.Decide{Question: "Ship?", Options: []string{"Ship", "Hold"}, DefaultOption: "Hold"}})
			if err != nil {
				t.Fatal(err)
			}
			if want := "wss" + strings.TrimPrefix(s.URL, "https") + "/hxp/ws?request_id=" + cr.RequestID; cr.WSURL != want {
				t.Fatalf("ws_url %q; want %q", cr.WSURL, want)
			}
			polled := func() bool {
				return slices.ContainsFunc(s.Requests(), func(r hxptest.Request) bool { return r.Method == http.MethodGet && r.RequestID == cr.RequestID })
			}
			go func() {
				for !polled() { // the wait subscribes before its first poll
					<-time.After(5 * time.Millisecond)
				}
				if _, err := s.Resolve(cr.RequestID, "Ship", "", hxptest.HumanID); err != nil {
					t.Error(err)
				}
			}()
			// Well under the poll interval: only the WebSocket can bring the answer in time.
			ctx, cancel := context.WithTimeout(t.Context(), poll/3)
			defer cancel()
			res, err := agent.Wait(ctx, cr, nil)
			if err != nil || res.Action != "Ship" {
				t.Fatalf("Wait = %+v, %v; want Ship over the WebSocket", res, err)
			}
			s.Close() // a WebSocket is logged when it ends
			var paths []string
			for _, r := range s.Requests() {
				paths = append(paths, r.Method+" "+r.Path)
				if want := cr.RequestID; r.Path != "/hxp/v1/requests" && r.RequestID != want {
					t.Errorf("%s %s logged for request %q; want %q", r.Method, r.Path, r.RequestID, want)
				}
			}
			if want := []string{"POST /hxp/v1/requests", "GET /hxp/v1/requests/" + cr.RequestID, "GET /hxp/ws"}; !slices.Equal(paths, want) {
				t.Errorf("requests %v; want %v (the outcome over the WebSocket, one poll)", paths, want)
			}
		})
	}
}

// TestCloseWhileWebSocketsConnect: Close racing with WebSockets being accepted waits for
// every one it let in and lets none in after it began; the race detector and the leak
// check hold it to that.
func TestCloseWhileWebSocketsConnect(t *testing.T) {
	for range 50 {
		s := hxptest.NewUnstartedServer()
		s.Start()
		id, _ := create(t, s, 3600, "default")
		h := http.Header{"Authorization": {"Bearer " + hxptest.DefaultAgentKey}}
		url := "ws" + strings.TrimPrefix(s.URL, "http") + "/hxp/ws?request_id=" + id
		dialed := make(chan *ws.Conn, 8)
		for range cap(dialed) {
			go func() {
				c, _ := ws.Dial(t.Context(), url, s.Client(), h, 1<<20)
				dialed <- c
			}()
		}
		// Close as the first connection is through, while the others are being accepted.
		if c := <-dialed; c != nil {
			_ = c.Close()
		}
		s.Close()
		for range cap(dialed) - 1 {
			if c := <-dialed; c != nil {
				_ = c.Close()
			}
		}
	}
}

// TestCloseLogsWebSockets: once Close has returned, every WebSocket it ended is in the
// request log, with its status.
func TestCloseLogsWebSockets(t *testing.T) {
	for range 100 {
		s := hxptest.NewUnstartedServer()
		s.Start()
		id, _ := create(t, s, 3600, "default")
		c, err := ws.Dial(t.Context(), "ws"+strings.TrimPrefix(s.URL, "http")+"/hxp/ws/"+id, s.Client(),
			http.Header{"Authorization": {"Bearer " + hxptest.DefaultAgentKey}}, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Assign(id, "user_2"); err != nil {
			t.Fatal(err)
		}
		if ev := read(t, c, 10*time.Second); ev != "assigned" { // the handler has the socket
			t.Fatalf("event %q, want assigned", ev)
		}
		s.Close()
		_ = c.Close()
		reqs := s.Requests()
		if !slices.ContainsFunc(reqs, func(r hxptest.Request) bool {
			return r.Path == "/hxp/ws/"+id && r.Status == http.StatusSwitchingProtocols
		}) {
			t.Fatalf("the WebSocket ended by Close is not in the log %v", reqs)
		}
	}
}

// TestDefaultEvidenceIsSpec: the default server (ProfileSpec, no WithHashFormula) signs a
// receipt with §4.2's formula as the hxp package documents it, SHA-256(request_id + result +
// completed_at + server_secret), the result a string's value; computed here by hand, and
// checked with Receipt.VerifyEvidence(DefaultSecret, hxp.HashSpec). Before, the default server
// used the reference server's formula, so the documented check failed on it.
func TestDefaultEvidenceIsSpec(t *testing.T) {
	s := hxptest.NewServer(t)
	id, _ := create(t, s, 3600, "default")
	rc, err := s.Resolve(id, "Ship", "", hxptest.HumanID)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(id + "Ship" + rc.CompletedAt + hxptest.DefaultSecret))
	if rc.EvidenceHash != hex.EncodeToString(sum[:]) {
		t.Errorf("evidence_hash %s; want SHA-256(request_id + result + completed_at + secret) %x", rc.EvidenceHash, sum)
	}
	if !rc.VerifyEvidence([]byte(hxptest.DefaultSecret), hxp.HashSpec) {
		t.Error("the default server's receipt does not verify with hxp.HashSpec")
	}
	// WithHashFormula still chooses, on either profile.
	r := hxptest.NewServer(t, hxptest.WithHashFormula(hxp.HashReference))
	id, _ = create(t, r, 3600, "default")
	if rc, err := r.Resolve(id, "Ship", "", hxptest.HumanID); err != nil || !rc.VerifyEvidence(r.Secret(), hxp.HashReference) {
		t.Errorf("WithHashFormula(HashReference): %+v, %v", rc, err)
	}
	p := hxptest.NewServer(t, hxptest.WithHashFormula(hxp.HashSpec), hxptest.WithProfile(hxptest.ProfileReference))
	id, _ = create(t, p, 3600, "default")
	if rc, err := p.Resolve(id, "Ship", "", hxptest.HumanID); err != nil || !rc.VerifyEvidence(p.Secret(), hxp.HashSpec) {
		t.Errorf("WithHashFormula(HashSpec) before WithProfile(ProfileReference): %+v, %v", rc, err)
	}
}
