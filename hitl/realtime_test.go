package hitl_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/hitl/hitltest"
	"github.com/hitlkit/hitlkit/internal/memhttp"
	"github.com/hitlkit/hitlkit/internal/notify"
	"github.com/hitlkit/hitlkit/transport"
)

const agentCallbackURL = "https://agent.test/hitl/callbacks"

// open creates a case on the fake through c and returns its interrupt.
func open(t *testing.T, s *hitltest.Server, c *hitl.Client, typ string, o *hitl.CallOptions) *hitl.Interrupt {
	t.Helper()
	if o == nil {
		o = &hitl.CallOptions{}
	}
	o.DetectOnly = true
	resp, err := c.Do(t.Context(), post(t, s.URL+"/actions/"+typ, "Bearer agent-key"), o)
	if err != nil || resp.Interrupt == nil {
		t.Fatalf("Do = %v, %v", resp, err)
	}
	_ = resp.Body.Close()
	return resp.Interrupt
}

// after runs f after d of (virtual) time, failing the test on error.
func after(t *testing.T, d time.Duration, f func() error) {
	t.Helper()
	go func() {
		select {
		case <-time.After(d):
			if err := f(); err != nil {
				t.Errorf("scripted human: %v", err)
			}
		case <-t.Context().Done():
		}
	}()
}

func describe(u hitl.Update) string {
	s := u.State
	if u.Progress != nil {
		s += fmt.Sprintf(" %d/%d", u.Progress.CurrentStep, u.Progress.TotalSteps)
	}
	if u.Reminder {
		s += " reminder: " + u.Message
	}
	return s
}

func countPath(s *hitltest.Server, suffix string) (n int, lastIDs []string) {
	for _, r := range s.Requests() {
		if strings.HasSuffix(r.Path, suffix) {
			n++
			lastIDs = append(lastIDs, r.Header.Get("Last-Event-ID"))
		}
	}
	return n, lastIDs
}

// TestWaitOverSSE: with polls paced at 30 s (the 202's Retry-After), the event stream opens at
// once and reports opened, progress and a reminder as they happen, and the decision ends the
// wait at the moment of the click: the service's own review.completed event carries the
// complete outcome, so no poll is needed (the first would have waited for the Retry-After).
// The agent's credential goes on the stream.
func TestWaitOverSSE(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t, hitltest.WithRetryAfter(30*time.Second))
		c, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()),
			transport.WithAuthorization(func(context.Context) (string, error) { return "Bearer agent-key", nil }))
		it := open(t, s, c, "input", nil)
		id := it.ID()
		after(t, 5*time.Second, func() error { return s.Open(id) })
		after(t, 7*time.Second, func() error { return s.Progress(id, hitl.Progress{CurrentStep: 1, TotalSteps: 2}) })
		after(t, 8*time.Second, func() error { return s.Remind(id, "Still waiting for you") })
		after(t, 9*time.Second, func() error { return s.Progress(id, hitl.Progress{CurrentStep: 2, TotalSteps: 2}) })
		after(t, 10*time.Second, func() error { return s.Respond(id, "submit", map[string]any{"start_date": "2027-01-04"}, nil) })

		start := time.Now()
		var updates []string
		var times []time.Duration
		res, err := c.Wait(t.Context(), it, &hitl.WaitOptions{OnUpdate: func(u hitl.Update) {
			updates = append(updates, describe(u))
			times = append(times, time.Since(start))
		}})
		if err != nil {
			t.Fatal(err)
		}
		if res.Status != transport.StatusCompleted || res.Action != "submit" {
			t.Errorf("Result = %+v", res)
		}
		if d := time.Since(start); d != 10*time.Second {
			t.Errorf("Wait returned after %v, want 10s (the click)", d)
		}
		want := []string{"opened", "in_progress 1/2", "in_progress 1/2 reminder: Still waiting for you", "in_progress 2/2"}
		if diff := cmp.Diff(want, updates); diff != "" {
			t.Errorf("updates (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]time.Duration{5 * time.Second, 7 * time.Second, 8 * time.Second, 9 * time.Second}, times); diff != "" {
			t.Errorf("update times (-want +got):\n%s", diff)
		}
		if polls, _ := countPath(s, "/status"); polls != 0 {
			t.Errorf("%d polls, want none: the event carried the outcome", polls)
		}
		for _, r := range s.Requests() {
			if strings.HasSuffix(r.Path, "/events") && r.Header.Get("Authorization") != "Bearer agent-key" {
				t.Errorf("event stream request without the agent's credential")
			}
		}
	})
}

// TestWaitSSEResumes: a stream dropped in the middle of an event is resumed with
// Last-Event-ID; no update is lost or reported twice.
func TestWaitSSEResumes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := hitltest.NewMemoryServer(t, hitltest.WithRetryAfter(30*time.Second))
		c, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()))
		it := open(t, s, c, "input", nil)
		id := it.ID()
		if err := s.Open(id); err != nil {
			t.Fatal(err)
		}
		s.FailStream(id, hitltest.StreamDropMidEvent, 1)
		after(t, 5*time.Second, func() error { return s.Progress(id, hitl.Progress{CurrentStep: 1, TotalSteps: 2}) })
		after(t, 10*time.Second, func() error { return s.Respond(id, "submit", nil, nil) })

		var updates []string
		res, err := c.Wait(t.Context(), it, &hitl.WaitOptions{OnUpdate: func(u hitl.Update) { updates = append(updates, describe(u)) }})
		if err != nil || res.Action != "submit" {
			t.Fatalf("Wait = %+v, %v", res, err)
		}
		if diff := cmp.Diff([]string{"opened", "in_progress 1/2"}, updates); diff != "" {
			t.Errorf("updates (-want +got):\n%s", diff)
		}
		if _, ids := countPath(s, "/events"); !cmp.Equal(ids, []string{"", "evt_1"}) {
			t.Errorf("Last-Event-ID per connection = %q, want [\"\" evt_1]", ids)
		}
	})
}

// TestWaitSSEFaults: whatever the stream does, the decision arrives, by the stream when it
// can carry it and by the poll (paced at 30 s) when it cannot.
func TestWaitSSEFaults(t *testing.T) {
	tests := []struct {
		name     string
		opts     []hitltest.Option
		fault    hitltest.StreamFault
		faults   int
		want     time.Duration // from the start of the wait; the human answers at 10 s
		streams  int           // event-stream connections made
		pollOnly bool
	}{
		{"no fault", nil, 0, 0, 10 * time.Second, 1, false},
		{"401: polling only", nil, hitltest.StreamUnauthorized, 1, 30 * time.Second, 1, false},
		{"503s: reconnects, then the stream", nil, hitltest.Stream503, 2, 10 * time.Second, 3, false},
		{"heartbeats only", nil, hitltest.StreamHeartbeatsOnly, 1, 30 * time.Second, 1, false},
		{"event over 64 KiB", nil, hitltest.StreamOversized, 1, 10 * time.Second, 1, false},
		{"never closes", nil, hitltest.StreamNeverClose, 1, 10 * time.Second, 1, false},
		{"no events_url", []hitltest.Option{hitltest.WithoutEvents()}, 0, 0, 30 * time.Second, 0, false},
		{"PollOnly", nil, 0, 0, 30 * time.Second, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				s := hitltest.NewMemoryServer(t, append(tt.opts, hitltest.WithRetryAfter(30*time.Second))...)
				c, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()))
				it := open(t, s, c, "approval", nil)
				if tt.fault != 0 {
					s.FailStream(it.ID(), tt.fault, tt.faults)
				}
				after(t, 10*time.Second, func() error { return s.Respond(it.ID(), "approve", nil, nil) })
				start := time.Now()
				res, err := c.Wait(t.Context(), it, &hitl.WaitOptions{PollOnly: tt.pollOnly})
				if err != nil || res.Action != "approve" {
					t.Fatalf("Wait = %+v, %v", res, err)
				}
				if d := time.Since(start); d != tt.want {
					t.Errorf("Wait returned after %v, want %v", d, tt.want)
				}
				if n, _ := countPath(s, "/events"); n != tt.streams {
					t.Errorf("%d event-stream connections, want %d", n, tt.streams)
				}
			})
		})
	}
}

// lagging is a service whose poll lags behind its notifications: it answers pending to the
// first polls, then completed. Its event stream, if asked for, says completed at once,
// without a result (case 25).
type lagging struct {
	pendingPolls int
	polls        atomic.Int32
}

func (l *lagging) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case strings.HasSuffix(r.URL.Path, "/events"):
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, ": hello\n\nid: 1\nevent: review.x-unknown\ndata: {}\n\n"+
			"id: 2\nevent: review.completed\ndata: {\"case_id\":\"c1\",\"completed_at\":\"2026-11-22T10:00:00Z\"}\n\n")
		<-r.Context().Done()
	default:
		w.Header().Set("Retry-After", "30")
		if int(l.polls.Add(1)) <= l.pendingPolls {
			_, _ = io.WriteString(w, `{"status":"pending","case_id":"c1"}`)
			return
		}
		_, _ = io.WriteString(w, `{"status":"completed","case_id":"c1","completed_at":"2026-11-22T10:00:00Z","result":{"action":"approve","data":{}}}`)
	}
}

// TestWaitConfirmsEvents: a terminal event is only a reason to poll; while the poll says
// pending, the wait goes on at the service's pace, and the poll's result is the one returned.
func TestWaitConfirmsEvents(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		svc := &lagging{pendingPolls: 2}
		c := newClient(t, &memhttp.Transport{Handler: svc})
		it := interrupt("c1", time.Hour)
		it.Case.EventsURL = "https://svc.example/reviews/c1/events"
		start := time.Now()
		res, err := c.Wait(t.Context(), it, nil)
		if err != nil || res.Action != "approve" {
			t.Fatalf("Wait = %+v, %v", res, err)
		}
		// Poll at 0 (pending); the event at 0 asks for a poll at 1 s (pending: the poll wins);
		// the service's pace then brings the third poll at 31 s.
		if d := time.Since(start); d != 31*time.Second || svc.polls.Load() != 3 {
			t.Errorf("Wait returned after %v and %d polls, want 31s and 3", d, svc.polls.Load())
		}
	})
}

// newCallbacks returns a receiver for the fake's default secret.
func newCallbacks(t *testing.T) *hitl.Callbacks {
	t.Helper()
	cb, err := hitl.NewCallbacks([]byte(hitltest.DefaultCallbackSecret), nil)
	if err != nil {
		t.Fatal(err)
	}
	return cb
}

// TestWaitOverCallback: against every profile (the live one signs algorithm=HS256,
// value=<base64url>), the service's signed callback ends the wait at the click; a forged one
// is refused and the poll brings the decision; a duplicate changes nothing.
func TestWaitOverCallback(t *testing.T) {
	tests := []struct {
		name     string
		fault    hitltest.CallbackFault
		want     time.Duration
		statuses []int
	}{
		{"signed", 0, 10 * time.Second, []int{200}},
		{"forged", hitltest.CallbackForged, 30 * time.Second, []int{401}},
		{"duplicated", hitltest.CallbackDuplicate, 10 * time.Second, []int{200, 200}},
	}
	for _, tt := range tests {
		for _, profile := range hitltest.Profiles() {
			t.Run(tt.name+" "+profile.String(), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					cb := newCallbacks(t)
					s := hitltest.NewMemoryServer(t, hitltest.WithProfile(profile), hitltest.WithRetryAfter(30*time.Second), hitltest.WithoutEvents(),
						hitltest.WithCallbackHandler(cb))
					c, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()), hitl.WithCallbacks(cb))
					it := open(t, s, c, "approval", &hitl.CallOptions{CallbackURL: agentCallbackURL})
					if it.Case.CallbackURL != agentCallbackURL {
						t.Fatalf("the service did not echo the callback URL: %q", it.Case.CallbackURL)
					}
					if tt.fault != 0 {
						s.FailCallback(it.ID(), tt.fault, 1)
					}
					after(t, 10*time.Second, func() error { return s.Respond(it.ID(), "approve", nil, nil) })
					start := time.Now()
					res, err := c.Wait(t.Context(), it, nil)
					if err != nil || res.Action != "approve" {
						t.Fatalf("Wait = %+v, %v", res, err)
					}
					if d := time.Since(start); d != tt.want {
						t.Errorf("Wait returned after %v, want %v", d, tt.want)
					}
					synctest.Wait()
					var statuses []int
					for _, d := range s.Callbacks() {
						statuses = append(statuses, d.Status)
					}
					if diff := cmp.Diff(tt.statuses, statuses); diff != "" {
						t.Errorf("callback answers (-want +got):\n%s", diff)
					}
				})
			})
		}
	}
}

// TestCallbackBeforeWait: a callback that arrives before Wait begins is kept and wakes it:
// with a poll that still says pending, the kept callback brings the confirming poll at 1 s
// instead of the service's 30 s.
func TestCallbackBeforeWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cb := newCallbacks(t)
		body := `{"event":"review.completed","case_id":"c1","timestamp":"2026-11-22T10:00:00Z"}`
		req := httptest.NewRequest(http.MethodPost, agentCallbackURL, strings.NewReader(body))
		req.Header.Set(hitl.SignatureHeader, notify.SignHMACSHA256([]byte(hitltest.DefaultCallbackSecret), []byte(body), "sha256="))
		w := httptest.NewRecorder()
		cb.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			t.Fatalf("callback answered %d", w.Code)
		}

		svc := &lagging{pendingPolls: 1}
		c := newClient(t, &memhttp.Transport{Handler: svc}, hitl.WithCallbacks(cb))
		start := time.Now()
		res, err := c.Wait(t.Context(), interrupt("c1", time.Hour), nil)
		if err != nil || res.Action != "approve" {
			t.Fatalf("Wait = %+v, %v", res, err)
		}
		if d := time.Since(start); d != time.Second {
			t.Errorf("Wait returned after %v, want 1s", d)
		}
	})
}

// TestWaitCancelWithEverything: cancelling a wait that polls, streams and listens returns at
// once with the caller's cause, and leaves nothing running (synctest checks).
func TestWaitCancelWithEverything(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cb := newCallbacks(t)
		s := hitltest.NewMemoryServer(t, hitltest.WithRetryAfter(30*time.Second), hitltest.WithCallbackHandler(cb))
		c, _ := hitl.NewClient(transport.WithHTTPClient(s.Client()), hitl.WithCallbacks(cb))
		it := open(t, s, c, "approval", &hitl.CallOptions{CallbackURL: agentCallbackURL})
		errMine := errors.New("operator stopped the agent")
		ctx, cancel := context.WithCancelCause(t.Context())
		time.AfterFunc(5*time.Second, func() { cancel(errMine) })
		start := time.Now()
		_, err := c.Wait(ctx, it, nil)
		if !errors.Is(err, errMine) {
			t.Fatalf("Wait = %v, want the caller's cause", err)
		}
		if d := time.Since(start); d != 5*time.Second {
			t.Errorf("Wait returned after %v, want 5s", d)
		}
	})
}

func TestSetCallbackURL(t *testing.T) {
	tests := []struct {
		name, body, url, want string
		ok                    bool
	}{
		{"empty body", "", "https://a.example/cb", `{"hitl_callback_url":"https://a.example/cb"}`, true},
		{"object", `{"query":"deploy","n":1}`, "https://a.example/cb", `{"hitl_callback_url":"https://a.example/cb","n":1,"query":"deploy"}`, true},
		{"replaces", `{"hitl_callback_url":"https://old.example"}`, "https://a.example/cb", `{"hitl_callback_url":"https://a.example/cb"}`, true},
		{"array body", `[1]`, "https://a.example/cb", "", false},
		{"null body", `null`, "https://a.example/cb", "", false},
		{"relative URL", `{}`, "/cb", "", false},
		{"other scheme", `{}`, "ftp://a.example/cb", "", false},
	}
	for _, tt := range tests {
		got, err := hitl.SetCallbackURL([]byte(tt.body), tt.url)
		if (err == nil) != tt.ok || string(got) != tt.want {
			t.Errorf("%s: SetCallbackURL = %s, %v", tt.name, got, err)
		}
	}
}

// TestCallbacksReceiver: both documented bodies are accepted, upper-case hex verifies, and
// everything else is refused with the status that stops or fixes the sender (cases 28–30).
func TestCallbacksReceiver(t *testing.T) {
	secret := []byte("per-service-secret")
	cb, err := hitl.NewCallbacks(secret, nil)
	if err != nil {
		t.Fatal(err)
	}
	sign := func(body string) string { return notify.SignHMACSHA256(secret, []byte(body), "sha256=") }
	spec := `{"event":"review.completed","case_id":"review_1","completed_at":"2026-11-22T10:00:00Z","result":{"action":"approve","data":{}}}`
	openapi := `{"event":"review.expired","case_id":"review_2","timestamp":"2026-11-22T10:00:00Z"}`
	tests := []struct {
		name, body, sig string
		want            int
	}{
		{"spec body", spec, sign(spec), 200},
		{"openapi body", openapi, sign(openapi), 200},
		{"duplicate", spec, sign(spec), 200},
		{"upper-case hex", `{"event":"review.cancelled","case_id":"review_3"}`,
			"sha256=" + strings.ToUpper(strings.TrimPrefix(sign(`{"event":"review.cancelled","case_id":"review_3"}`), "sha256=")), 200},
		{"reformatted under the old signature", strings.Replace(spec, `":"`, `": "`, 1), sign(spec), 401},
		{"no prefix", spec, strings.TrimPrefix(sign(spec), "sha256="), 401},
		{"no header", spec, "", 401},
		{"no case_id", `{"event":"review.completed"}`, sign(`{"event":"review.completed"}`), 400},
		{"malformed case_id", `{"event":"review.completed","case_id":"a/../b"}`, sign(`{"event":"review.completed","case_id":"a/../b"}`), 400},
		{"no event", `{"case_id":"review_1"}`, sign(`{"case_id":"review_1"}`), 400},
	}
	for _, tt := range tests {
		req := httptest.NewRequest(http.MethodPost, "/cb", strings.NewReader(tt.body))
		if tt.sig != "" {
			req.Header.Set(hitl.SignatureHeader, tt.sig)
		}
		w := httptest.NewRecorder()
		cb.ServeHTTP(w, req)
		if w.Code != tt.want {
			t.Errorf("%s: answered %d, want %d", tt.name, w.Code, tt.want)
		}
	}
	if _, err := hitl.NewCallbacks(nil, nil); err == nil {
		t.Error("NewCallbacks accepted an empty secret")
	}
}

// TestCallbackSignatureForms: a callback signed in §9's form (sha256=<hex>, upper-case hex
// too) or in the form one live service uses (algorithm=HS256, value=<base64url>) is verified;
// the same forms with another secret, another body, another algorithm or a cut value are
// refused with 401, and so is a non-canonical spelling of the right MAC (a last character
// differing in the bits base64 leaves unused, extra padding); the second form is logged once
// at debug.
func TestCallbackSignatureForms(t *testing.T) {
	secret := []byte("callback-secret")
	body := []byte(`{"event":"review.completed","case_id":"review_abc","completed_at":"2026-11-22T10:00:00Z","result":{"action":"approve"}}`)
	var logged bytes.Buffer
	cb, err := hitl.NewCallbacks(secret, &hitl.CallbacksOptions{Logger: slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	if err != nil {
		t.Fatal(err)
	}
	good := hs256(secret, body)
	for _, tt := range []struct {
		sig  string
		want int
	}{
		{notify.SignHMACSHA256(secret, body, "sha256="), 200},
		{"sha256=" + strings.ToUpper(strings.TrimPrefix(notify.SignHMACSHA256(secret, body, "sha256="), "sha256=")), 200},
		{"algorithm=HS256, value=" + good, 200},
		{"algorithm=HS256,value=" + good + "=", 200},
		{"value=" + good + ", algorithm=hs256", 200},
		{"algorithm=HS256, value=" + hs256([]byte("other"), body), 401},
		{"algorithm=HS256, value=" + hs256(secret, append(body, ' ')), 401},
		{"algorithm=HS512, value=" + good, 401},
		{"algorithm=HS256, value=" + good[:20], 401},
		{"algorithm=HS256, value=" + restyled(good), 401},
		{"algorithm=HS256, value=" + good + "==", 401},
		{"algorithm=HS256, value=" + good[:10] + "\r\r" + good[10:], 401}, // CR and LF: skipped by encoding/base64
		{"algorithm=HS256, value=" + good[:10] + "\n" + good[10:], 401},
		{"value=" + good, 401},
		{good, 401},
		{"", 401},
	} {
		req := httptest.NewRequest(http.MethodPost, "/cb", bytes.NewReader(body))
		req.Header.Set(hitl.SignatureHeader, tt.sig)
		w := httptest.NewRecorder()
		cb.ServeHTTP(w, req)
		if w.Code != tt.want {
			t.Errorf("%q: %d, want %d", tt.sig, w.Code, tt.want)
		}
	}
	if n := strings.Count(logged.String(), "algorithm=HS256"); n != 1 {
		t.Errorf("the HS256 form was logged %d times, want once:\n%s", n, logged.String())
	}
}

// restyled returns the unpadded base64url value v (of 32 bytes) with its last character's
// unused low bits flipped: the same bytes to a lenient decoder, another string to anyone else.
func restyled(v string) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	last := strings.IndexByte(alphabet, v[len(v)-1])
	return v[:len(v)-1] + string(alphabet[last^1])
}
