package hitl_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/internal/memhttp"
	"github.com/hitlkit/hitlkit/internal/notify"
	"github.com/hitlkit/hitlkit/transport"
)

// service is a scripted case review_c1: its poll says "pending" until decideAt, then
// completed with "approve"; its event stream (at /events on any host) sends event once, at
// 10 s, and stays open.
type service struct {
	polls    atomic.Int32
	streams  atomic.Int32
	decideAt time.Time
	event    string
}

func (s *service) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case strings.HasSuffix(r.URL.Path, "/status"):
		s.polls.Add(1)
		w.Header().Set("Retry-After", "30")
		if time.Now().Before(s.decideAt) {
			_, _ = w.Write([]byte(`{"status":"pending","case_id":"review_c1"}`))
			return
		}
		_, _ = w.Write([]byte(completedApprove))
	case strings.HasSuffix(r.URL.Path, "/events"):
		s.streams.Add(1)
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-time.After(10 * time.Second):
			_, _ = fmt.Fprint(w, s.event)
			w.(http.Flusher).Flush()
		case <-r.Context().Done():
			return
		}
		<-r.Context().Done()
	default:
		http.NotFound(w, r)
	}
}

// waitDecided waits on it and checks the Result's action, how many polls the service saw,
// and how long (virtual time) the wait took.
func waitDecided(t *testing.T, c *hitl.Client, it *hitl.Interrupt, o *hitl.WaitOptions, svc *service, action string, polls int32, at time.Duration) {
	t.Helper()
	began := time.Now()
	res, err := c.Wait(t.Context(), it, o)
	if err != nil || res.Action != action {
		t.Fatalf("Wait = %v, %v; want %s", res, err, action)
	}
	if n := svc.polls.Load(); n != polls {
		t.Errorf("%d polls, want %d", n, polls)
	}
	if d := time.Since(began); d != at {
		t.Errorf("decided after %v, want %v", d, at)
	}
}

// TestTerminalEventDecides: a terminal event over the case's own stream that carries the
// complete outcome is the Result at once, without a poll; one without the outcome, from
// another origin, or about another case is not: the poll decides (and after another case's,
// the stream is read no further).
func TestTerminalEventDecides(t *testing.T) {
	const rejected = `{"case_id":"review_c1","completed_at":"2026-02-22T10:05:18Z","result":{"action":"reject","data":{"feedback":"no"}}}`
	tests := []struct {
		name       string
		eventsHost string
		event      string
		action     string // what the Result says: the event's reject, or the poll's approve
		polls      int32
		at         time.Duration
	}{
		{"complete outcome from the service", "svc.example", "event: review.completed\ndata: " + rejected + "\n\n", "reject", 0, 10 * time.Second},
		{"no result in the event", "svc.example", "event: review.completed\ndata: {\"case_id\":\"review_c1\"}\n\n", "approve", 1, 10 * time.Second},
		{"no case id in the event", "svc.example", "event: review.completed\ndata: " + strings.Replace(rejected, `"case_id":"review_c1",`, "", 1) + "\n\n", "approve", 1, 10 * time.Second},
		{"another origin", "events.example", "event: review.completed\ndata: " + rejected + "\n\n", "approve", 1, 10 * time.Second},
		{"another case", "svc.example", "event: review.completed\ndata: " + strings.Replace(rejected, "review_c1", "review_c9", 1) + "\n\n", "approve", 1, 30 * time.Second},
		// A stream that sent another case's terminal event is followed no further.
		{"another case, then this one", "svc.example", "event: review.completed\ndata: " + strings.Replace(rejected, "review_c1", "review_c9", 1) + "\n\n" +
			"event: review.completed\ndata: " + rejected + "\n\n", "approve", 1, 30 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				svc := &service{decideAt: time.Now().Add(5 * time.Second), event: tt.event}
				c, err := hitl.NewClient(transport.WithHTTPClient(&http.Client{Transport: &memhttp.Transport{Handler: svc}}),
					hitl.WithTrustedOrigins("https://events.example"))
				if err != nil {
					t.Fatal(err)
				}
				it := interrupt("review_c1", time.Hour)
				it.Case.EventsURL = "https://" + tt.eventsHost + "/reviews/review_c1/events"
				it.PollAfter = time.Now().Add(30 * time.Second)
				waitDecided(t, c, it, nil, svc, tt.action, tt.polls, tt.at)
			})
		})
	}
}

// TestTrustedCallbackDecides: with CallbacksOptions.Decide, a verified callback that carries
// the complete outcome ends the wait without a poll; by default, or when the callback lacks
// the outcome, it only makes the wait poll at once; a callback about another case reaches
// no other wait.
func TestTrustedCallbackDecides(t *testing.T) {
	secret := []byte("callback-secret")
	const rejected = `{"event":"review.completed","case_id":"%s","completed_at":"2026-02-22T10:05:18Z","result":{"action":"reject","data":{}}}`
	tests := []struct {
		name   string
		decide bool
		body   string
		action string
		polls  int32
		at     time.Duration
	}{
		{"trusted, complete", true, fmt.Sprintf(rejected, "review_c1"), "reject", 0, 10 * time.Second},
		{"default: confirmed by a poll", false, fmt.Sprintf(rejected, "review_c1"), "approve", 1, 10 * time.Second},
		{"trusted, without the result", true, `{"event":"review.completed","case_id":"review_c1","timestamp":"2026-02-22T10:05:18Z"}`, "approve", 1, 10 * time.Second},
		{"trusted, another case", true, fmt.Sprintf(rejected, "review_c9"), "approve", 1, 30 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				svc := &service{decideAt: time.Now().Add(5 * time.Second)}
				cb, err := hitl.NewCallbacks(secret, &hitl.CallbacksOptions{Decide: tt.decide})
				if err != nil {
					t.Fatal(err)
				}
				c, err := hitl.NewClient(transport.WithHTTPClient(&http.Client{Transport: &memhttp.Transport{Handler: svc}}), hitl.WithCallbacks(cb))
				if err != nil {
					t.Fatal(err)
				}
				it := interrupt("review_c1", time.Hour)
				it.PollAfter = time.Now().Add(30 * time.Second)
				go func() {
					<-time.After(10 * time.Second)
					req := httptest.NewRequest(http.MethodPost, "https://agent.example/hitl/callbacks", bytes.NewReader([]byte(tt.body)))
					req.Header.Set(hitl.SignatureHeader, notify.SignHMACSHA256(secret, []byte(tt.body), "sha256="))
					rec := httptest.NewRecorder()
					cb.ServeHTTP(rec, req)
					if rec.Code != http.StatusOK {
						t.Errorf("callback answered %d", rec.Code)
					}
				}()
				waitDecided(t, c, it, nil, svc, tt.action, tt.polls, tt.at)
			})
		})
	}
}

// BenchmarkNotificationToResult measures the work between a received terminal notification
// and the Result it settles, per notification: decoding the event (or callback body) and
// reading the outcome from it.
func BenchmarkNotificationToResult(b *testing.B) {
	cs := interrupt("review_c1", time.Hour).Case
	data := []byte(`{"case_id":"review_c1","completed_at":"2026-02-22T10:05:18Z","result":{"action":"reject","data":{"feedback":"no"}},"responded_by":{"name":"Ana"}}`)
	b.ReportAllocs()
	for b.Loop() {
		if r := hitl.OutcomeForTest(cs, "review.completed", data); r == nil || r.Action != "reject" {
			b.Fatal(r)
		}
	}
}
