package transport_test

import (
	"context"
	"errors"
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
	"github.com/hitlkit/hitlkit/transport"
)

type fixed struct {
	status int
	body   string
	n      int
}

func (f *fixed) RoundTrip(req *http.Request) (*http.Response, error) {
	f.n++
	return &http.Response{StatusCode: f.status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(f.body)), Request: req}, nil
}

// TestDecoderErrors: a Temporary decoder error is retried with backoff; any other ends the wait.
func TestDecoderErrors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := &fixed{status: 200, body: "x"}
		p := &poller{Client: &http.Client{Transport: rt}}
		calls := 0
		errFlaky := errors.New("flaky")
		v, err := poll(t.Context(), p, "https://svc.example/s", func(b []byte) (int, bool, error) {
			calls++
			if calls < 4 {
				return 0, false, httpx.Temporary(errFlaky)
			}
			return 42, true, nil
		})
		if v != 42 || err != nil || rt.n != 4 {
			t.Fatalf("Poll = %v, %v after %d requests", v, err, rt.n)
		}
		errBad := errors.New("bad")
		_, err = poll(t.Context(), p, "https://svc.example/s", func([]byte) (int, bool, error) { return 0, false, errBad })
		if !errors.Is(err, errBad) || httpx.IsTemporary(err) {
			t.Fatalf("Poll = %v, want the permanent error", err)
		}
	})
}

// TestBackoffGrowsAndStaysBounded: repeated 503s back off exponentially, within the bounds.
func TestBackoffGrowsAndStaysBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := &fixed{status: 503}
		p := &poller{Client: &http.Client{Transport: rt}, MaxInterval: 20 * time.Second}
		ctx, cancel := contextWithTimeout(t, 10*time.Minute)
		defer cancel()
		_, err := poll(ctx, p, "https://svc.example/s", func([]byte) (int, bool, error) { return 0, false, nil })
		var se *transport.StatusError
		if !errors.Is(err, errTimeout) || !errors.As(err, &se) || se.StatusCode != 503 {
			t.Fatalf("Poll = %v", err)
		}
		// 10 minutes at the 20 s ceiling is at least 30 polls; without backoff at 1 s it
		// would be 600, and without the ceiling far fewer than 30.
		if rt.n < 30 || rt.n > 60 {
			t.Errorf("%d polls in 10 minutes", rt.n)
		}
	})
}

func TestStatusErrorCategories(t *testing.T) {
	tests := map[int]error{401: transport.ErrUnauthorized, 403: transport.ErrUnauthorized, 404: transport.ErrNotFound,
		410: transport.ErrNotFound, 400: nil, 302: nil}
	for code, want := range tests {
		err := &transport.StatusError{StatusCode: code}
		if want == nil && (errors.Is(err, transport.ErrUnauthorized) || errors.Is(err, transport.ErrNotFound)) {
			t.Errorf("%d matches a category", code)
		}
		if want != nil && !errors.Is(err, want) {
			t.Errorf("%d does not match %v", code, want)
		}
		if code != 404 && code != 410 && errors.Is(err, transport.ErrNotFound) {
			t.Errorf("%d matches ErrNotFound", code)
		}
	}
}

// TestPollOnWake: a wake makes the next poll come early, never sooner than MinInterval after
// the previous one began; during a backoff it waits for the backoff to end.
func TestPollOnWake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var times []time.Duration
		start := time.Now()
		statuses := []int{200, 200, 503, 200, 200}
		rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			times = append(times, time.Since(start))
			code := statuses[len(times)-1]
			return &http.Response{StatusCode: code, Header: http.Header{"Retry-After": {"30"}},
				Body: io.NopCloser(strings.NewReader("x")), Request: r}, nil
		})
		wake := make(chan struct{}, 1)
		go func() {
			<-time.After(100 * time.Millisecond) // right after the first poll: held to 1 s
			wake <- struct{}{}
			<-time.After(5 * time.Second) // mid-pacing: at once; answered 503, Retry-After 30
			wake <- struct{}{}
			<-time.After(time.Second) // in the backoff: kept for after the next poll
			wake <- struct{}{}
		}()
		p := &poller{Client: &http.Client{Transport: rt}}
		_, err := pollOnWake(t.Context(), p, "https://svc.example/s", wake, func([]byte) (int, bool, error) {
			return 1, len(times) == len(statuses), nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want := []time.Duration{0, time.Second, 5100 * time.Millisecond, 35100 * time.Millisecond, 36100 * time.Millisecond}
		if d := cmp.Diff(want, times); d != "" {
			t.Errorf("poll times (-want +got):\n%s", d)
		}
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestSlotsBoundPollsInFlight: ten loops sharing three slots against a server that takes a
// second to answer have at most three polls in flight, all end (in four seconds: 3+3+3+1),
// and a loop waiting for a slot stops when its context ends.
func TestSlotsBoundPollsInFlight(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		svc := &memhttp.Slow{Delay: time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			_, _ = io.WriteString(w, "x")
		})}
		cfg, err := transport.NewConfig("test", nil, transport.WithMaxPollsInFlight(3))
		if err != nil {
			t.Fatal(err)
		}
		p := &poller{Client: &http.Client{Transport: &memhttp.Transport{Handler: svc}}, Slots: cfg.Polls}
		done := func([]byte) (int, bool, error) { return 1, true, nil }
		start := time.Now()
		var wg sync.WaitGroup
		for range 10 {
			wg.Go(func() {
				if _, err := poll(t.Context(), p, "https://svc.example/s", done); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if most := svc.Most(); most != 3 || time.Since(start) != 4*time.Second {
			t.Errorf("%d polls in flight at most, all done after %v; want 3, 4s", most, time.Since(start))
		}

		// Every slot taken: a loop waits for one, and stops with its context.
		for range 3 {
			transport.SlotsOf(p.Slots, "https://svc.example/s") <- struct{}{}
		}
		ctx, cancel := context.WithTimeoutCause(t.Context(), time.Minute, errGaveUp)
		defer cancel()
		if _, err := poll(ctx, p, "https://svc.example/s", done); !errors.Is(err, errGaveUp) {
			t.Errorf("waiting for a slot: %v, want the context's cause", err)
		}
	})
}

var errGaveUp = errors.New("gave up")

// TestWatchBeforeFirstPoll: a Watch is started before the first poll goes out, so a change
// it hears of just after that poll read the state is not lost; a wake it gives before the
// first poll brings a confirming poll after it, MinInterval (1 s) on.
func TestWatchBeforeFirstPoll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		polled := make(chan struct{})
		var polls int
		start := time.Now()
		var times []time.Duration
		rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if polls++; polls == 1 {
				close(polled)
			}
			times = append(times, time.Since(start))
			return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("x")), Request: r}, nil
		})
		w := &transport.Wait[int]{URL: "https://svc.example/s", Client: &http.Client{Transport: rt},
			Decode: func([]byte) (int, bool, error) { return 1, polls == 2, nil },
			Watch: []func(func(), func(int)) func(){func(wake func(), _ func(int)) func() {
				select {
				case <-polled:
					t.Error("the first poll went out before the Watch was started")
				case <-time.After(time.Second):
				}
				wake()
				return func() {}
			}},
		}
		if _, err := w.Run(t.Context()); err != nil {
			t.Fatal(err)
		}
		if want := []time.Duration{time.Second, 2 * time.Second}; !cmp.Equal(want, times) {
			t.Errorf("poll times %v, want %v (the first after the Watch started, the confirming one 1 s on)", times, want)
		}
	})
}

// TestWake: wake-ups never block, and those that come before the wait looks count as one:
// two at once end the first delay, and the next poll keeps to the interval.
func TestWake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var times []time.Duration
		start := time.Now()
		rt := roundTripFunc(func(r *http.Request) (*http.Response, error) {
			times = append(times, time.Since(start))
			return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("x")), Request: r}, nil
		})
		w := &transport.Wait[int]{URL: "https://svc.example/s", Client: &http.Client{Transport: rt}, FirstDelay: 10 * time.Second,
			Decode: func([]byte) (int, bool, error) { return 1, len(times) == 2, nil },
			Watch: []func(func(), func(int)) func(){func(wake func(), _ func(int)) func() {
				wake()
				wake()
				return func() {}
			}},
		}
		if _, err := w.Run(t.Context()); err != nil {
			t.Fatal(err)
		}
		if want := []time.Duration{0, 30 * time.Second}; !cmp.Equal(want, times) {
			t.Errorf("poll times %v, want %v", times, want)
		}
	})
}
