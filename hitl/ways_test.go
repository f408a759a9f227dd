package hitl_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/hitlkit/hitlkit/a2a"
	"github.com/hitlkit/hitlkit/a2a/a2atest"
	"github.com/hitlkit/hitlkit/hitl"
	"github.com/hitlkit/hitlkit/internal/memhttp"
	"github.com/hitlkit/hitlkit/internal/notify"
	"github.com/hitlkit/hitlkit/transport"
)

// TestWaysOfOneWait: the built-in ways are Waiter values the client composes. Case review_c1
// is decided "approve" at 5 s; its stream sends a terminal event with a "reject" outcome at
// 10 s; the 202 asked for the first poll at 30 s; a signed callback without the outcome
// arrives at 11 s. Which way ends the wait, and how, shows which ways ran.
func TestWaysOfOneWait(t *testing.T) {
	const event = "event: review.completed\ndata: {\"case_id\":\"review_c1\",\"completed_at\":\"2026-02-22T10:05:18Z\",\"result\":{\"action\":\"reject\",\"data\":{}}}\n\n"
	secret := []byte("callback-secret")
	// button is a way of the caller's: it says "approve" at 12 s, and counts its calls.
	var calls atomic.Int32
	button := waitFunc(func(ctx context.Context, it *hitl.Interrupt) (*transport.Result, error) {
		calls.Add(1)
		select {
		case <-time.After(12 * time.Second):
			return &transport.Result{Status: transport.StatusCompleted, CaseID: it.ID(), Action: "approve"}, nil
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	})
	never := waitFunc(func(context.Context, *hitl.Interrupt) (*transport.Result, error) {
		t.Error("a WithWaiter ran although Ways replaced it")
		return nil, nil
	})
	tests := []struct {
		name    string
		ways    func(c *hitl.Client) []transport.Waiter[*hitl.Interrupt] // nil: the client's default
		wait    func(c *hitl.Client) transport.Waiter[*hitl.Interrupt]   // set: this way's own Wait, not Client.Wait
		action  string
		polls   int32
		streams int32
		calls   int32
		at      time.Duration
	}{
		{name: "default: the stream's complete outcome", action: "reject", streams: 1, calls: 1, at: 10 * time.Second},
		{name: "no ways: polling only", ways: func(*hitl.Client) []transport.Waiter[*hitl.Interrupt] { return []transport.Waiter[*hitl.Interrupt]{} },
			action: "approve", polls: 1, at: 30 * time.Second},
		{name: "the poll way adds nothing", ways: func(c *hitl.Client) []transport.Waiter[*hitl.Interrupt] {
			return []transport.Waiter[*hitl.Interrupt]{c.PollWaiter()}
		},
			action: "approve", polls: 1, at: 30 * time.Second},
		{name: "the stream only", ways: func(c *hitl.Client) []transport.Waiter[*hitl.Interrupt] {
			return []transport.Waiter[*hitl.Interrupt]{c.StreamWaiter()}
		},
			action: "reject", streams: 1, at: 10 * time.Second},
		{name: "callbacks only: a poll confirms", ways: func(c *hitl.Client) []transport.Waiter[*hitl.Interrupt] {
			return []transport.Waiter[*hitl.Interrupt]{c.CallbackWaiter()}
		},
			action: "approve", polls: 1, at: 11 * time.Second},
		{name: "a way of the caller's only: a poll confirms", ways: func(*hitl.Client) []transport.Waiter[*hitl.Interrupt] {
			return []transport.Waiter[*hitl.Interrupt]{button}
		},
			action: "approve", polls: 1, calls: 1, at: 12 * time.Second},
		{name: "StreamWaiter on its own", wait: (*hitl.Client).StreamWaiter, action: "reject", streams: 1, at: 10 * time.Second},
		{name: "CallbackWaiter on its own", wait: (*hitl.Client).CallbackWaiter, action: "approve", polls: 1, at: 11 * time.Second},
		{name: "PollWaiter on its own", wait: (*hitl.Client).PollWaiter, action: "approve", polls: 1, at: 30 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				calls.Store(0)
				svc := &service{decideAt: time.Now().Add(5 * time.Second), event: event}
				cb, err := hitl.NewCallbacks(secret, nil)
				if err != nil {
					t.Fatal(err)
				}
				opts := []transport.Option{transport.WithHTTPClient(&http.Client{Transport: &memhttp.Transport{Handler: svc}}), hitl.WithCallbacks(cb)}
				if tt.ways != nil || tt.wait != nil {
					opts = append(opts, hitl.WithWaiter(never))
				} else {
					opts = append(opts, hitl.WithWaiter(button))
				}
				c, err := hitl.NewClient(opts...)
				if err != nil {
					t.Fatal(err)
				}
				it := interrupt("review_c1", time.Hour)
				it.Case.EventsURL = "https://svc.example/reviews/review_c1/events"
				it.PollAfter = time.Now().Add(30 * time.Second)
				done := make(chan struct{})
				defer close(done)
				go func() {
					select {
					case <-time.After(11 * time.Second):
					case <-done: // the wait ended first
						return
					}
					body := []byte(`{"event":"review.completed","case_id":"review_c1","timestamp":"2026-02-22T10:05:18Z"}`)
					req := httptest.NewRequest(http.MethodPost, "https://agent.example/hitl/callbacks", bytes.NewReader(body))
					req.Header.Set(hitl.SignatureHeader, notify.SignHMACSHA256(secret, body, "sha256="))
					cb.ServeHTTP(httptest.NewRecorder(), req)
				}()
				began := time.Now()
				var res *transport.Result
				if tt.wait != nil {
					res, err = tt.wait(c).Wait(t.Context(), it)
				} else {
					var o *hitl.WaitOptions
					if tt.ways != nil {
						o = &hitl.WaitOptions{Ways: tt.ways(c)}
					}
					res, err = c.Wait(t.Context(), it, o)
				}
				if err != nil || res.Action != tt.action {
					t.Fatalf("Wait = %v, %v; want %s", res, err, tt.action)
				}
				got := fmt.Sprintf("polls %d, streams %d, button calls %d, after %v", svc.polls.Load(), svc.streams.Load(), calls.Load(), time.Since(began))
				want := fmt.Sprintf("polls %d, streams %d, button calls %d, after %v", tt.polls, tt.streams, tt.calls, tt.at)
				if got != want {
					t.Errorf("%s; want %s", got, want)
				}
			})
		})
	}
}

// TestNilWay: a nil Waiter among the Ways is refused before anything is sent.
func TestNilWay(t *testing.T) {
	c, err := hitl.NewClient(transport.WithHTTPClient(failingClient(t)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Wait(t.Context(), interrupt("review_c1", time.Hour), &hitl.WaitOptions{Ways: []transport.Waiter[*hitl.Interrupt]{nil}}); err == nil {
		t.Error("Wait with a nil way: no error")
	}
}

// TestWaysWakeAnA2ARun: a way of the caller's wakes the run of an A2A task too: the relay's
// administrator approves at 20 s, the button says so at 21 s, and the task query it causes
// ends the wait then, not at the next query five minutes after the first. Without the
// button, the five minutes.
func TestWaysWakeAnA2ARun(t *testing.T) {
	for _, withButton := range []bool{true, false} {
		t.Run(fmt.Sprint("button ", withButton), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				relay := a2atest.NewMemoryRelay(t)
				button := waitFunc(func(ctx context.Context, it *hitl.Interrupt) (*transport.Result, error) {
					select {
					case <-time.After(21 * time.Second):
						return &transport.Result{Status: transport.StatusCompleted, CaseID: it.ID()}, nil
					case <-ctx.Done():
						return nil, context.Cause(ctx)
					}
				})
				c, err := hitl.NewClient(transport.WithHTTPClient(relay.Client()), hitl.WithA2A(), hitl.WithForwarder(hitl.WriteTo(io.Discard)))
				if err != nil {
					t.Fatal(err)
				}
				go func() {
					id := relay.NextHold(t.Context().Done())
					<-time.After(20 * time.Second)
					_ = relay.Approve(id)
				}()
				o := &hitl.WaitOptions{Ways: []transport.Waiter[*hitl.Interrupt]{}, A2A: &a2a.RunOptions{Wait: a2a.WaitOptions{Interval: 5 * time.Minute}}}
				if withButton {
					o.Ways = []transport.Waiter[*hitl.Interrupt]{button, c.StreamWaiter()} // the stream is a HITL case's way: not run here
				}
				req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, relay.Endpoint().URL,
					strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"transfer 500 EUR"}]}}}`))
				began := time.Now()
				resp, err := c.Do(t.Context(), req, &hitl.CallOptions{Wait: o})
				if err != nil {
					t.Fatal(err)
				}
				_ = resp.Body.Close()
				if resp.Result == nil || resp.Result.Status != transport.StatusCompleted {
					t.Fatalf("result %v", resp.Result)
				}
				want := 5 * time.Minute
				if withButton {
					want = 21 * time.Second
				}
				if d := time.Since(began); d != want {
					t.Errorf("ended after %v, want %v", d, want)
				}
			})
		})
	}
}

// TestMaxPollsInFlight: twenty waits on one service that takes a second to answer each poll
// have at most five polls in flight with WithMaxPollsInFlight(5), and all end (in 4 s); a
// bound under one is refused.
func TestMaxPollsInFlight(t *testing.T) {
	if _, err := hitl.NewClient(transport.WithMaxPollsInFlight(0)); err == nil {
		t.Error("WithMaxPollsInFlight(0) accepted")
	}
	synctest.Test(t, func(t *testing.T) {
		svc := &memhttp.Slow{Delay: time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			id := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/reviews/"), "/status")
			_, _ = fmt.Fprintf(w, `{"status":"completed","case_id":%q,"completed_at":"2026-02-22T10:05:18Z","result":{"action":"approve","data":{}}}`, id)
		})}
		c, err := hitl.NewClient(transport.WithHTTPClient(&http.Client{Transport: &memhttp.Transport{Handler: svc}}), transport.WithMaxPollsInFlight(5))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		var wg sync.WaitGroup
		for i := range 20 {
			wg.Go(func() {
				if r, err := c.Wait(t.Context(), interrupt(fmt.Sprintf("review_c%d", i), time.Hour), nil); err != nil || r.Action != "approve" {
					t.Errorf("Wait = %v, %v", r, err)
				}
			})
		}
		wg.Wait()
		if most := svc.Most(); most != 5 || time.Since(start) != 4*time.Second {
			t.Errorf("%d polls in flight at most, all done after %v; want 5, 4s", most, time.Since(start))
		}
	})
}

// TestClosedWakeOfAnA2ARun: the caller's own Wake for an A2A run, closed at 5 s while a way
// of the caller's also wakes the run, is no longer read: the run goes on querying the task
// each minute and ends with the relay's approval (at 20 s) at the next query, at 1 min.
func TestClosedWakeOfAnA2ARun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		relay := a2atest.NewMemoryRelay(t)
		silent := waitFunc(func(ctx context.Context, it *hitl.Interrupt) (*transport.Result, error) {
			<-ctx.Done()
			return nil, context.Cause(ctx)
		})
		c, err := hitl.NewClient(transport.WithHTTPClient(relay.Client()), hitl.WithA2A(), hitl.WithForwarder(hitl.WriteTo(io.Discard)))
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			id := relay.NextHold(t.Context().Done())
			<-time.After(20 * time.Second)
			_ = relay.Approve(id)
		}()
		wake := make(chan struct{})
		time.AfterFunc(5*time.Second, func() { close(wake) })
		o := &hitl.WaitOptions{Ways: []transport.Waiter[*hitl.Interrupt]{silent},
			A2A: &a2a.RunOptions{Wait: a2a.WaitOptions{Interval: time.Minute, Wake: wake}}}
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, relay.Endpoint().URL,
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"kind":"message","messageId":"m1","role":"user","parts":[{"kind":"text","text":"transfer 500 EUR"}]}}}`))
		began := time.Now()
		resp, err := c.Do(t.Context(), req, &hitl.CallOptions{Wait: o})
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.Result == nil || resp.Result.Status != transport.StatusCompleted {
			t.Fatalf("result %v", resp.Result)
		}
		if d := time.Since(began); d != time.Minute {
			t.Errorf("ended after %v, want 1m0s (the first query after the approval)", d)
		}
	})
}
