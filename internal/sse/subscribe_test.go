package sse_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/internal/memhttp"
	"github.com/hitlkit/hitlkit/internal/sse"
	"github.com/hitlkit/hitlkit/transport"
)

// streams is a scripted event-stream server: connection n (from 1) is served by script(n, w,
// r). It records each connection's Last-Event-ID and time, and counts closed bodies.
type streams struct {
	script func(n int, w http.ResponseWriter, r *http.Request)

	mu      sync.Mutex
	lastIDs []string
	times   []time.Time
	closed  int
}

func (s *streams) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.lastIDs = append(s.lastIDs, r.Header.Get("Last-Event-ID"))
	s.times = append(s.times, time.Now())
	n := len(s.lastIDs)
	s.mu.Unlock()
	s.script(n, w, r)
}

func (s *streams) client() *http.Client {
	return &http.Client{Transport: closeCounter{base: &memhttp.Transport{Handler: s}, s: s}}
}

type closeCounter struct {
	base http.RoundTripper
	s    *streams
}

func (c closeCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.base.RoundTrip(r)
	if err == nil {
		resp.Body = &countedBody{ReadCloser: resp.Body, s: c.s}
	}
	return resp, err
}

type countedBody struct {
	io.ReadCloser
	s    *streams
	once sync.Once
}

func (b *countedBody) Close() error {
	b.once.Do(func() { b.s.mu.Lock(); b.s.closed++; b.s.mu.Unlock() })
	return b.ReadCloser.Close()
}

// eventStream starts a 200 text/event-stream response and writes chunks to it.
func eventStream(w http.ResponseWriter, chunks ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	for _, c := range chunks {
		if _, err := io.WriteString(w, c); err != nil {
			return
		}
	}
}

// hold keeps the connection open until the client goes away.
func hold(r *http.Request) { <-r.Context().Done() }

// collect subscribes and records "id name data" for every event until one named "end".
func collect(ctx context.Context, s *sse.Subscriber, url string) ([]string, error) {
	var got []string
	err := sse.Subscribe(ctx, s, url, func(ev sse.Event) (bool, error) {
		got = append(got, ev.ID+" "+ev.Name+" "+string(ev.Data))
		return ev.Name == "end", nil
	})
	return got, err
}

const streamURL = "https://svc.example/events"

// TestSubscribeParsing: the event-stream grammar a real server may use: CRLF and lone CR
// line ends, multi-line data, comments, id after data, events without id or name, a block
// with only retry:, unknown event names.
func TestSubscribeParsing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := &streams{script: func(n int, w http.ResponseWriter, r *http.Request) {
			eventStream(w,
				": hello\n\n",
				"event: review.opened\r\nid: 1\r\ndata: {\"a\":1}\r\n\r\n",
				"data: line one\ndata: line two\nid: 2\nevent: multi\n\n",
				"retry: 2000\n\n",
				"event: no-data\nid: 3\n\n",
				"data: anonymous\n\n",
				"event: x-vendor.thing\rdata: cr\r\r",
				": heartbeat\n\n",
				"id: 9\nevent: end\ndata: {}\n\n")
			hold(r)
		}}
		got, err := collect(t.Context(), &sse.Subscriber{Client: srv.client()}, streamURL)
		if err != nil {
			t.Fatal(err)
		}
		want := []string{
			`1 review.opened {"a":1}`,
			"2 multi line one\nline two",
			"3  anonymous",
			"3 x-vendor.thing cr",
			"9 end {}",
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("events (-want +got):\n%s", d)
		}
	})
}

// TestSubscribeResume: a stream dropped mid-event and a stream closed cleanly are both
// resumed with Last-Event-ID; the half-received event is not delivered, nothing is lost,
// and events a server sends again are delivered once.
func TestSubscribeResume(t *testing.T) {
	log := []string{
		"id: evt_1\nevent: a\ndata: 1\n\n",
		"id: evt_2\nevent: b\ndata: 2\n\n",
		"id: evt_3\nevent: c\ndata: 3\n\n",
		"id: evt_4\nevent: end\ndata: 4\n\n",
	}
	after := func(id string) []string {
		for i, e := range log {
			if strings.HasPrefix(e, "id: "+id+"\n") {
				return log[i+1:]
			}
		}
		return log
	}
	tests := []struct {
		name    string
		script  func(n int, w http.ResponseWriter, r *http.Request)
		lastIDs []string
	}{
		{"dropped mid-event", func(n int, w http.ResponseWriter, r *http.Request) {
			if n == 1 {
				eventStream(w, log[0], log[1][:12]) // "id: evt_2\nev"
				return
			}
			eventStream(w, after(r.Header.Get("Last-Event-ID"))...)
		}, []string{"", "evt_1"}},
		{"dropped after a partial id line", func(n int, w http.ResponseWriter, r *http.Request) {
			if n == 1 {
				eventStream(w, log[0], "id: evt_")
				return
			}
			eventStream(w, after(r.Header.Get("Last-Event-ID"))...)
		}, []string{"", "evt_1"}},
		{"closed cleanly after each event", func(n int, w http.ResponseWriter, r *http.Request) {
			eventStream(w, after(r.Header.Get("Last-Event-ID"))[0])
		}, []string{"", "evt_1", "evt_2", "evt_3"}},
		{"server replays everything", func(n int, w http.ResponseWriter, r *http.Request) {
			eventStream(w, log[:min(n+1, len(log))]...)
		}, []string{"", "evt_2", "evt_3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := &streams{script: tt.script}
				got, err := collect(t.Context(), &sse.Subscriber{Client: srv.client()}, streamURL)
				if err != nil {
					t.Fatal(err)
				}
				want := []string{"evt_1 a 1", "evt_2 b 2", "evt_3 c 3", "evt_4 end 4"}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("events (-want +got):\n%s", d)
				}
				if d := cmp.Diff(tt.lastIDs, srv.lastIDs); d != "" {
					t.Errorf("Last-Event-ID per connection (-want +got):\n%s", d)
				}
			})
		})
	}
}

// TestSubscribePacing: retry: and Retry-After set the reconnect delay, clamped to the
// configured bounds; an idle connection is replaced; heartbeats keep one alive.
func TestSubscribePacing(t *testing.T) {
	tests := []struct {
		name   string
		sub    sse.Subscriber
		script func(n int, w http.ResponseWriter, r *http.Request)
		gaps   [][2]time.Duration // bounds of the gaps between connection starts
	}{
		{"retry field", sse.Subscriber{}, func(n int, w http.ResponseWriter, r *http.Request) {
			if n == 1 {
				eventStream(w, "retry: 5000\nid: 1\nevent: a\ndata: x\n\n")
				return
			}
			eventStream(w, "id: 2\nevent: end\ndata: x\n\n")
		}, [][2]time.Duration{{5 * time.Second, 5 * time.Second}}},
		{"retry field above the ceiling", sse.Subscriber{MaxRetry: 10 * time.Second}, func(n int, w http.ResponseWriter, r *http.Request) {
			if n == 1 {
				eventStream(w, "retry: 600000\nid: 1\nevent: a\ndata: x\n\n")
				return
			}
			eventStream(w, "id: 2\nevent: end\ndata: x\n\n")
		}, [][2]time.Duration{{10 * time.Second, 10 * time.Second}}},
		{"503 with Retry-After", sse.Subscriber{}, func(n int, w http.ResponseWriter, r *http.Request) {
			if n == 1 {
				w.Header().Set("Retry-After", "7")
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return
			}
			eventStream(w, "id: 2\nevent: end\ndata: x\n\n")
		}, [][2]time.Duration{{7 * time.Second, 7 * time.Second}}},
		{"idle connection", sse.Subscriber{IdleTimeout: 20 * time.Second}, func(n int, w http.ResponseWriter, r *http.Request) {
			if n == 1 {
				eventStream(w, "retry: 1000\nid: 1\nevent: a\ndata: x\n\n")
				hold(r)
				return
			}
			eventStream(w, "id: 2\nevent: end\ndata: x\n\n")
		}, [][2]time.Duration{{21 * time.Second, 21500 * time.Millisecond}}}, // 20 s idle, then retry: 1 s or the jittered 1 s backoff
		{"heartbeats keep it alive", sse.Subscriber{IdleTimeout: 20 * time.Second}, func(n int, w http.ResponseWriter, r *http.Request) {
			eventStream(w, "id: 1\nevent: a\ndata: x\n\n")
			for range 12 {
				select {
				case <-time.After(10 * time.Second):
				case <-r.Context().Done():
					return
				}
				if _, err := io.WriteString(w, ": ping\n\n"); err != nil {
					return
				}
			}
			_, _ = io.WriteString(w, "id: 2\nevent: end\ndata: x\n\n")
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := &streams{script: tt.script}
				tt.sub.Client = srv.client()
				if _, err := collect(t.Context(), &tt.sub, streamURL); err != nil {
					t.Fatal(err)
				}
				if len(srv.times) != len(tt.gaps)+1 {
					t.Fatalf("%d connections, want %d", len(srv.times), len(tt.gaps)+1)
				}
				for i, b := range tt.gaps {
					if gap := srv.times[i+1].Sub(srv.times[i]); gap < b[0] || gap > b[1] {
						t.Errorf("gap %d = %v, want within [%v, %v]", i+1, gap, b[0], b[1])
					}
				}
			})
		})
	}
}

// errStatus stands, in a test table, for a *transport.StatusError of a status that is
// neither unauthorized nor not found.
var errStatus = errors.New("a status error")

// TestSubscribeUnavailable: responses that mean "no stream here" end the subscription at
// once with ErrStreamUnavailable, with every refused body closed; repeated failures end it
// after MaxFailures.
func TestSubscribeUnavailable(t *testing.T) {
	tests := []struct {
		name     string
		sub      sse.Subscriber
		script   func(n int, w http.ResponseWriter, r *http.Request)
		want     error
		requests int
	}{
		{"401", sse.Subscriber{}, func(n int, w http.ResponseWriter, r *http.Request) {
			http.Error(w, "no", http.StatusUnauthorized)
		}, transport.ErrUnauthorized, 1},
		{"404", sse.Subscriber{}, func(n int, w http.ResponseWriter, r *http.Request) {
			http.Error(w, "no", http.StatusNotFound)
		}, transport.ErrNotFound, 1},
		{"410", sse.Subscriber{}, func(n int, w http.ResponseWriter, r *http.Request) {
			http.Error(w, "no", http.StatusGone)
		}, transport.ErrNotFound, 1},
		{"204 means stop", sse.Subscriber{}, func(n int, w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusNoContent)
		}, errStatus, 1},
		{"redirect is not followed", sse.Subscriber{}, func(n int, w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "https://elsewhere.example/events", http.StatusFound)
		}, errStatus, 1},
		{"200 html page", sse.Subscriber{}, func(n int, w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = io.WriteString(w, "<html>login</html>")
		}, httpx.ErrStreamUnavailable, 1},
		{"event over the limit", sse.Subscriber{MaxEventSize: 64 << 10}, func(n int, w http.ResponseWriter, r *http.Request) {
			eventStream(w, "id: 1\nevent: big\ndata: "+strings.Repeat("x", 70<<10)+"\n\n")
		}, sse.ErrEventTooLarge, 1},
		{"500 every time", sse.Subscriber{MaxFailures: 4}, func(n int, w http.ResponseWriter, r *http.Request) {
			http.Error(w, "oops", http.StatusInternalServerError)
		}, httpx.ErrStreamUnavailable, 4},
		{"closed at once every time", sse.Subscriber{}, func(n int, w http.ResponseWriter, r *http.Request) {
			eventStream(w)
		}, httpx.ErrStreamUnavailable, sse.DefaultMaxFailures},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := &streams{script: tt.script}
				tt.sub.Client = srv.client()
				_, err := collect(t.Context(), &tt.sub, streamURL)
				var se *transport.StatusError
				if !errors.Is(err, httpx.ErrStreamUnavailable) || tt.want == errStatus && !errors.As(err, &se) || tt.want != errStatus && !errors.Is(err, tt.want) {
					t.Fatalf("Subscribe = %v, want ErrStreamUnavailable and %v", err, tt.want)
				}
				synctest.Wait()
				if len(srv.lastIDs) != tt.requests || srv.closed != tt.requests {
					t.Errorf("%d requests, %d bodies closed; want %d of each", len(srv.lastIDs), srv.closed, tt.requests)
				}
			})
		})
	}
}

// TestSubscribeLargeEvent: an event well over 64 KiB arrives whole with the default limit.
func TestSubscribeLargeEvent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		big := strings.Repeat("y", 300<<10)
		srv := &streams{script: func(n int, w http.ResponseWriter, r *http.Request) {
			eventStream(w, "id: 1\nevent: end\ndata: "+big+"\n\n")
		}}
		got, err := collect(t.Context(), &sse.Subscriber{Client: srv.client()}, streamURL)
		if err != nil || len(got) != 1 || got[0] != "1 end "+big {
			t.Fatalf("Subscribe = %d events, %v", len(got), err)
		}
	})
}

// TestSubscribeCancel: the caller's cause comes back promptly, whatever the stream is doing,
// and the handler's own error ends the subscription.
func TestSubscribeCancel(t *testing.T) {
	errMine := errors.New("caller gave up")
	scripts := map[string]func(n int, w http.ResponseWriter, r *http.Request){
		"open stream": func(n int, w http.ResponseWriter, r *http.Request) {
			eventStream(w, "id: 1\nevent: a\ndata: x\n\n")
			hold(r)
		},
		"stalled headers": func(n int, w http.ResponseWriter, r *http.Request) { hold(r) },
		"failing": func(n int, w http.ResponseWriter, r *http.Request) {
			http.Error(w, "oops", http.StatusServiceUnavailable)
		},
	}
	for name, script := range scripts {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := &streams{script: script}
				ctx, cancel := context.WithCancelCause(t.Context())
				time.AfterFunc(10*time.Second, func() { cancel(errMine) })
				start := time.Now()
				_, err := collect(ctx, &sse.Subscriber{Client: srv.client(), MaxFailures: 100}, streamURL)
				if !errors.Is(err, errMine) {
					t.Fatalf("Subscribe = %v, want the caller's cause", err)
				}
				if d := time.Since(start); d != 10*time.Second {
					t.Errorf("returned after %v, want 10s", d)
				}
			})
		})
	}
	t.Run("handler error", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			srv := &streams{script: scripts["open stream"]}
			err := sse.Subscribe(t.Context(), &sse.Subscriber{Client: srv.client()}, streamURL,
				func(sse.Event) (bool, error) { return false, fmt.Errorf("decode: %w", errMine) })
			if !errors.Is(err, errMine) {
				t.Fatalf("Subscribe = %v", err)
			}
		})
	})
}

// TestSubscribeAuthorize: credentials are added to every connection, a failing source ends
// nothing but that connection.
func TestSubscribeAuthorize(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var auth []string
		srv := &streams{script: func(n int, w http.ResponseWriter, r *http.Request) {
			auth = append(auth, r.Header.Get("Authorization"))
			if n == 1 {
				eventStream(w, "id: 1\nevent: a\ndata: x\n\n")
				return
			}
			eventStream(w, "id: 2\nevent: end\ndata: x\n\n")
		}}
		calls := 0
		sub := &sse.Subscriber{Client: srv.client(), Authorize: func(_ context.Context, r *http.Request) error {
			calls++
			if calls == 2 {
				return errors.New("token service down")
			}
			r.Header.Set("Authorization", fmt.Sprintf("Bearer t%d", calls))
			return nil
		}}
		if _, err := collect(t.Context(), sub, streamURL); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff([]string{"Bearer t1", "Bearer t3"}, auth); d != "" {
			t.Errorf("Authorization per connection (-want +got):\n%s", d)
		}
	})
}
