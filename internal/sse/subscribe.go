package sse

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net/http"
	"time"

	"github.com/hitlkit/hitlkit/internal/backoff"
	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/internal/telemetry"
	"github.com/hitlkit/hitlkit/transport"
)

// Defaults of a [Subscriber]'s zero fields.
const (
	// DefaultMinRetry is the shortest delay before reconnecting a stream, the server's
	// retry: field included.
	DefaultMinRetry = time.Second
	// DefaultMaxRetry is the longest delay before reconnecting.
	DefaultMaxRetry = time.Minute
	// DefaultIdleTimeout ends a connection that has sent nothing, not even a heartbeat
	// comment, for this long, and reconnects: a half-open connection never reports itself.
	DefaultIdleTimeout = 90 * time.Second
	// DefaultMaxEventSize bounds one event, all its fields together.
	DefaultMaxEventSize = 1 << 20
	// DefaultMaxFailures is how many connections in a row may fail before the stream is
	// declared unavailable.
	DefaultMaxFailures = 5
)

// ErrFailing: MaxFailures connections in a row failed (the error also matches
// ErrStreamUnavailable). The server may offer the stream again later.
var ErrFailing = errors.New("connections keep failing")

// healthyAfter is how long a connection must stay up, when it delivers no event, to count
// as healthy: the reconnect backoff starts over after a healthy connection.
const healthyAfter = 30 * time.Second

// dedupeWindow is how many recent events are remembered to drop a server's replays.
const dedupeWindow = 64

// Subscriber is the configuration of an event-stream subscription (Server-Sent Events). A
// nil *Subscriber or a zero field means the documented default. A Subscriber is read, never
// written, by [Subscribe], so one value may serve any number of concurrent subscriptions.
type Subscriber struct {
	// Client opens the connections; nil means a client on http.DefaultTransport. Its Timeout
	// is ignored (a stream lasts as long as the wait) and redirects are never followed.
	Client *http.Client
	// Authorize adds credentials to each connection request. Nil adds none.
	Authorize func(ctx context.Context, req *http.Request) error
	// LastEventID is sent as Last-Event-ID with the first connection: the id of the last
	// event an earlier subscription handled, so that the server carries on after it. ""
	// sends none.
	LastEventID string
	// MinRetry and MaxRetry bound the delay before a reconnect, the server's retry: field
	// and Retry-After included. 0 means DefaultMinRetry and DefaultMaxRetry.
	MinRetry, MaxRetry time.Duration
	// IdleTimeout: 0 means DefaultIdleTimeout; a negative value disables the watchdog.
	IdleTimeout time.Duration
	// MaxEventSize: 0 means DefaultMaxEventSize.
	MaxEventSize int
	// MaxFailures: 0 means DefaultMaxFailures.
	MaxFailures int
	// Logger receives one debug record per connection (host and path only). Nil is silent.
	Logger *slog.Logger
}

// Subscribe reads the event stream at url and calls handle with each event that has data,
// from the calling goroutine, until handle reports done (Subscribe returns nil) or an error
// (returned as is).
//
// When a connection ends — the server closed it, it failed, or it sent nothing for
// IdleTimeout — Subscribe reconnects, sending the last event id as Last-Event-ID, after the
// server's retry: or Retry-After or a jittered exponential backoff that starts over after a
// healthy connection. Events the server sends again after a reconnect are dropped. An event
// cut off by a dropped connection is never delivered. Comments, events without data and the
// event names handle does not know are its to ignore.
//
// Subscribe returns an error wrapping httpx.ErrStreamUnavailable when the server refuses the
// stream (with a [*StatusError] for a refusing status) or MaxFailures connections fail in a
// row, and context.Cause(ctx) when ctx ends. It starts goroutines that all end before it
// returns.
func Subscribe(ctx context.Context, s *Subscriber, url string, handle func(Event) (done bool, err error)) error {
	cfg := s.withDefaults()
	conn := Config{Client: cfg.Client, Authorize: cfg.Authorize, MaxEventSize: cfg.MaxEventSize, IdleTimeout: max(cfg.IdleTimeout, 0)}
	bo := backoff.NewExponential(cfg.MinRetry, cfg.MaxRetry)
	var (
		lastID                 = cfg.LastEventID
		retry    time.Duration = -1
		failures int
		recent   replays
	)
	for attempt := 1; ; attempt++ {
		var (
			done      bool
			handleErr error
		)
		began := time.Now()
		st, err := Connect(ctx, &conn, url, lastID, func(ev Event) bool {
			if recent.seen(ev) {
				return true
			}
			done, handleErr = handle(ev)
			return !done && handleErr == nil
		})
		lastID = st.LastID
		if st.Retry >= 0 {
			retry = st.Retry
		}
		switch {
		case done:
			return nil
		case handleErr != nil:
			return handleErr
		case ctx.Err() != nil:
			return context.Cause(ctx)
		}

		hint := time.Duration(-1)
		var refused *RefusedError
		switch {
		case errors.As(err, &refused) && refused.Permanent:
			return fmt.Errorf("subscribe %s: %w: %w", httpx.Redact(url), httpx.ErrStreamUnavailable, refusal(refused, url))
		case errors.Is(err, ErrEventTooLarge):
			return fmt.Errorf("subscribe %s: %w: %w", httpx.Redact(url), httpx.ErrStreamUnavailable, err)
		case refused != nil:
			hint = refused.RetryAfter
			err = refusal(refused, url)
		}
		if st.Events > 0 || (st.Connected && time.Since(began) >= healthyAfter) {
			bo.Reset()
			failures = 0
		} else {
			failures++
		}
		if failures >= cfg.MaxFailures {
			return fmt.Errorf("subscribe %s: %w: %w after %d failed connections (last: %w)",
				httpx.Redact(url), httpx.ErrStreamUnavailable, ErrFailing, failures, orEOF(err))
		}
		delay := max(bo.Next(), retry, hint)
		delay = min(max(delay, cfg.MinRetry), cfg.MaxRetry)
		telemetry.From(ctx).Reconnect(ctx, err)
		cfg.Logger.LogAttrs(ctx, slog.LevelDebug, "event stream ended; reconnecting",
			slog.String("url", httpx.Redact(url)), slog.Int("attempt", attempt),
			slog.Int("events", st.Events), slog.Duration("next", delay), logErr(err))
		if !backoff.Pause(ctx, delay, nil) {
			return context.Cause(ctx)
		}
	}
}

// refusal turns a refused connection into the StatusError a poll would have given.
func refusal(r *RefusedError, url string) error {
	if r.StatusCode == http.StatusOK {
		return fmt.Errorf("%s %w", httpx.Redact(url), r)
	}
	return &transport.StatusError{StatusCode: r.StatusCode, URL: httpx.Redact(url), Body: r.Body}
}

var errClosedByServer = errors.New("server closed the stream")

func orEOF(err error) error {
	if err == nil {
		return errClosedByServer
	}
	return err
}

// replays remembers fingerprints of the last events that carried an id, to drop the ones a
// server sends again after a reconnect.
type replays struct {
	ring [dedupeWindow]uint64
	n    int
}

func (r *replays) seen(ev Event) bool {
	if ev.ID == "" {
		return false
	}
	h := fnv.New64a()
	_, _ = h.Write([]byte(ev.ID))
	_, _ = h.Write([]byte{0})
	_, _ = h.Write([]byte(ev.Name))
	_, _ = h.Write([]byte{0})
	_, _ = h.Write(ev.Data)
	sum := h.Sum64()
	for i := range min(r.n, dedupeWindow) {
		if r.ring[i] == sum {
			return true
		}
	}
	r.ring[r.n%dedupeWindow] = sum
	r.n++
	return false
}

func (s *Subscriber) withDefaults() Subscriber {
	var c Subscriber
	if s != nil {
		c = *s
	}
	if c.Client == nil {
		c.Client = &http.Client{}
	}
	if c.MinRetry <= 0 {
		c.MinRetry = DefaultMinRetry
	}
	if c.MaxRetry <= 0 {
		c.MaxRetry = DefaultMaxRetry
	}
	c.MaxRetry = max(c.MaxRetry, c.MinRetry)
	if c.IdleTimeout == 0 {
		c.IdleTimeout = DefaultIdleTimeout
	}
	if c.MaxEventSize <= 0 {
		c.MaxEventSize = DefaultMaxEventSize
	}
	if c.MaxFailures <= 0 {
		c.MaxFailures = DefaultMaxFailures
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

func logErr(err error) slog.Attr {
	if err == nil {
		return slog.Attr{}
	}
	return slog.String("err", err.Error())
}
