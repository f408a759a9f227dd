package transport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/hitlkit/hitlkit/internal/backoff"
	"github.com/hitlkit/hitlkit/internal/httpx"
)

// Defaults of a [Poller]'s zero fields.
const (
	// DefaultInterval is the delay between polls when the server sends no Retry-After; HITL
	// Protocol §8 recommends polling every 30 s to 5 min.
	DefaultInterval = 30 * time.Second
	// DefaultMinInterval is the shortest delay between two polls of one URL: HITL Protocol
	// §13.5 allows 60 requests per minute per case.
	DefaultMinInterval = time.Second
	// DefaultMaxInterval is the longest delay, whatever the server asks for (HITL §8: 5 min).
	DefaultMaxInterval = 5 * time.Minute
	// DefaultRequestTimeout bounds one poll request, headers and body together.
	DefaultRequestTimeout = 30 * time.Second
)

// Poller is the configuration of a poll loop. A nil *Poller or a zero field means the
// documented default. A Poller is read, never written, by [Poll], so one value may serve any
// number of concurrent waits.
type Poller struct {
	// Client sends the polls. Nil means a client on http.DefaultTransport. Its Timeout
	// should be 0: RequestTimeout bounds each poll. Its redirect policy is replaced: polls
	// never follow redirects.
	Client *http.Client
	// Authorize adds credentials to one poll request. Nil adds none. An error from it ends
	// the wait.
	Authorize func(ctx context.Context, req *http.Request) error
	// Interval is the delay after a non-terminal answer without Retry-After.
	// 0 means DefaultInterval.
	Interval time.Duration
	// MinInterval and MaxInterval clamp every delay, the server's Retry-After included.
	// 0 means DefaultMinInterval and DefaultMaxInterval.
	MinInterval, MaxInterval time.Duration
	// RequestTimeout bounds one request; a poll that takes longer counts as a transient
	// failure. 0 means DefaultRequestTimeout.
	RequestTimeout time.Duration
	// MaxBody is the largest response body read; larger bodies end the wait with
	// ErrBodyTooLarge. 0 means 1 MiB.
	MaxBody int64
	// Logger receives one debug record per poll (host and path only, never the query).
	// Nil means silent.
	Logger *slog.Logger
	// Waiting, when set, reports from a 200's headers alone that the state is still a
	// waiting one (HXP's HXP-Status header); the body is then not read. Nil reads every body.
	Waiting func(http.Header) bool
	// FirstDelay holds the first poll back (a 202's Retry-After); a wake-up ends it early.
	// It is clamped to [MinInterval, MaxInterval] like every delay; 0 polls at once.
	FirstDelay time.Duration
	// ETag is sent as If-None-Match with the first poll: the entity tag an earlier wait on
	// the same URL saw last, so that a wait carried on by another process is answered 304
	// while nothing changed. "" sends none.
	ETag string
	// OnETag, when set, is called with each new entity tag the server sends, one call at a
	// time, before the poll's answer is decoded.
	OnETag func(tag string)
	// Slots, when set, bounds the polls in flight among every loop that shares it: a poll
	// takes a slot (sends to the channel) before its request and frees it after, so when
	// cap(Slots) polls are in flight the next waits its turn (or for ctx to end). Nil: no
	// bound. [Slots.For] hands out one per origin.
	Slots chan struct{}
}

// Decoder interprets the body of one 200 poll response. It returns done=true with the
// terminal value, done=false to keep polling, or an error: one wrapped with [Temporary] makes
// the loop back off and poll again, any other ends the wait.
type Decoder[T any] func(body []byte) (value T, done bool, err error)

// Poll GETs url until decode reports a terminal value, and returns it.
//
// Pacing: after a non-terminal 200 or a 304 it waits for the response's Retry-After (seconds
// or HTTP-date) or Interval; after 429, 5xx, 408, a network error, a timed-out request or a
// [Temporary] decoder error it waits for Retry-After or a jittered exponential backoff.
// Transient failures never end the wait; 401, 403, 404, 410 and other unexpected statuses end
// it with a [*StatusError]. Every delay is clamped to [MinInterval, MaxInterval].
//
// Caching: the ETag of a 200 is sent back as If-None-Match; a 304 means unchanged.
//
// When ctx ends, Poll returns context.Cause(ctx), joined with the last transient failure if
// there was one. It starts no goroutine.
func Poll[T any](ctx context.Context, p *Poller, url string, decode Decoder[T]) (T, error) {
	return PollOnWake(ctx, p, url, nil, decode)
}

// PollOnWake is [Poll] that also polls early each time wake receives, as soon as MinInterval
// has passed since the previous poll began: an event stream or a callback said the state
// changed, and the poll confirms it. While backing off from a failure, a wake is taken at the
// end of the backoff. A nil wake never fires.
func PollOnWake[T any](ctx context.Context, p *Poller, url string, wake <-chan struct{}, decode Decoder[T]) (T, error) {
	get := func(ctx context.Context) (*http.Request, error) {
		return http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	}
	return PollRequests(ctx, p, get, wake, decode)
}

// PollRequests is [PollOnWake] for status endpoints that are not a plain GET (an A2A
// JSON-RPC tasks/get is a POST): newRequest builds each poll's request, bound to the context
// it is given, with a body that can be read once. Pacing, caching, credentials and errors are
// those of [Poll].
func PollRequests[T any](ctx context.Context, p *Poller, newRequest func(context.Context) (*http.Request, error), wake <-chan struct{}, decode Decoder[T]) (T, error) {
	cfg := p.withDefaults()
	var url string
	bo := backoff.NewExponential(max(cfg.MinInterval, time.Second), cfg.MaxInterval)
	var (
		zero    T
		etag    = cfg.ETag
		lastErr error
	)
	if cfg.FirstDelay > 0 {
		if !backoff.Pause(ctx, min(max(cfg.FirstDelay, cfg.MinInterval), cfg.MaxInterval), wake) {
			return zero, stopped(ctx, nil)
		}
	}
	for attempt := 1; ; attempt++ {
		if cfg.Slots != nil {
			select {
			case cfg.Slots <- struct{}{}:
			case <-ctx.Done():
				return zero, stopped(ctx, lastErr)
			}
		}
		began := time.Now()
		o := pollApart(func() outcome[T] { return pollOnce(ctx, &cfg, newRequest, &url, &etag, decode) })
		if cfg.Slots != nil {
			<-cfg.Slots
		}
		var delay time.Duration
		switch {
		case o.done:
			return o.value, nil
		case o.err != nil && !o.temporary:
			return zero, o.err
		case o.err != nil:
			lastErr = o.err
			delay = bo.Next()
		default:
			lastErr = nil
			bo.Reset()
			delay = cfg.Interval
		}
		if o.hint >= 0 {
			delay = o.hint
		}
		delay = min(max(delay, cfg.MinInterval), cfg.MaxInterval)
		cfg.Logger.LogAttrs(ctx, slog.LevelDebug, "poll",
			slog.String("url", httpx.Redact(url)), slog.Int("attempt", attempt),
			slog.Int("status", o.status), slog.Duration("next", delay), errAttr(o.err))

		early := wake
		if o.err != nil {
			early = nil
		}
		if !backoff.Pause(ctx, delay, early) {
			return zero, stopped(ctx, lastErr)
		}
		if !backoff.Pause(ctx, cfg.MinInterval-time.Since(began), nil) {
			return zero, stopped(ctx, lastErr)
		}
	}
}

func stopped(ctx context.Context, last error) error {
	cause := context.Cause(ctx)
	if last == nil {
		return cause
	}
	return fmt.Errorf("%w (last poll failed: %w)", cause, last)
}

func errAttr(err error) slog.Attr {
	if err == nil {
		return slog.Attr{}
	}
	return slog.String("err", err.Error())
}

// pollApart runs one poll on a goroutine of its own and waits for it. The HTTP client grows
// the stack of the goroutine it runs on to 8 KiB; run apart, that stack is freed after the
// poll, and a wait parked between two polls keeps half as much (BenchmarkOpenWait in hitl:
// 8 KiB of stack per open wait when polling on it, 4 KiB apart).
func pollApart[T any](poll func() outcome[T]) outcome[T] {
	done := make(chan outcome[T], 1)
	go func() { done <- poll() }()
	return <-done
}

// outcome is what one poll taught the loop. hint is the server's Retry-After, -1 when absent.
type outcome[T any] struct {
	value     T
	done      bool
	err       error
	temporary bool
	hint      time.Duration
	status    int
}

func pollOnce[T any](ctx context.Context, cfg *Poller, newRequest func(context.Context) (*http.Request, error), target *string, etag *string, decode Decoder[T]) (o outcome[T]) {
	o.hint = -1
	rctx, cancel := context.WithTimeout(ctx, cfg.RequestTimeout)
	defer cancel()
	req, err := newRequest(rctx)
	if err != nil {
		o.err = fmt.Errorf("poll: %w", httpx.StripURL(err))
		return o
	}
	url := req.URL.String()
	*target = url
	req.Header.Set("Accept", "application/json")
	if *etag != "" {
		req.Header.Set("If-None-Match", *etag)
	}
	if cfg.Authorize != nil {
		if err := cfg.Authorize(ctx, req); err != nil {
			o.err = fmt.Errorf("poll %s: credentials: %w", httpx.Redact(url), err)
			return o
		}
	}
	resp, err := cfg.Client.Do(req)
	if err != nil {
		// net/http puts the full URL, query included, in *url.Error; keep only its cause.
		// A refused private address stays refused: no retry changes where the name points.
		o.err = fmt.Errorf("poll %s: %w", httpx.Redact(url), httpx.StripURL(err))
		o.temporary = !errors.Is(err, ErrPrivateAddress)
		return o
	}
	defer httpx.DrainClose(resp.Body)
	o.status = resp.StatusCode
	if d, ok := httpx.RetryAfter(resp.Header, time.Now()); ok {
		o.hint = d
	}

	switch code := resp.StatusCode; {
	case code == http.StatusOK && cfg.Waiting != nil && cfg.Waiting(resp.Header):
	case code == http.StatusOK:
		body, err := httpx.ReadLimited(resp.Body, cfg.MaxBody)
		if errors.Is(err, httpx.ErrBodyTooLarge) {
			o.err = fmt.Errorf("poll %s: %w", httpx.Redact(url), err)
			return o
		}
		if err != nil {
			o.err, o.temporary = fmt.Errorf("poll %s: read body: %w", httpx.Redact(url), httpx.StripURL(err)), true
			return o
		}
		// RFC 9110 §8.8.3: an entity tag is quoted; "*" is only meaningful in requests.
		if tag := resp.Header.Get("ETag"); tag != "" && tag != "*" && tag != *etag {
			*etag = tag
			if cfg.OnETag != nil {
				cfg.OnETag(tag)
			}
		}
		o.value, o.done, o.err = decode(body)
		o.temporary = IsTemporary(o.err)
	case code == http.StatusNotModified:
		if *etag == "" {
			cfg.Logger.LogAttrs(ctx, slog.LevelDebug, "poll: 304 without a validator sent",
				slog.String("url", httpx.Redact(url)))
		}
	case code == http.StatusTooManyRequests, code == http.StatusRequestTimeout, code >= 500:
		o.err = fmt.Errorf("poll %s: %w", httpx.Redact(url), statusError(resp, req))
		o.temporary = true
		if code != http.StatusTooManyRequests && code != http.StatusServiceUnavailable {
			o.hint = -1
		}
	default:
		o.err = fmt.Errorf("poll: %w", statusError(resp, req))
	}
	return o
}

// statusError keeps the first 512 bytes of the body as evidence, without the secrets req
// carried.
func statusError(resp *http.Response, req *http.Request) *StatusError {
	b, _ := httpx.ReadLimited(resp.Body, 512)
	return &StatusError{StatusCode: resp.StatusCode, URL: httpx.Redact(req.URL.String()), Body: httpx.ScrubBytes(b, 512, httpx.Secrets(req)...)}
}

func (p *Poller) withDefaults() Poller {
	var c Poller
	if p != nil {
		c = *p
	}
	// Polls never follow redirects: the protocol defines none, and a redirect could carry
	// the credentials elsewhere. A 3xx ends the wait as an unexpected status.
	hc := http.Client{}
	if c.Client != nil {
		hc = *c.Client
	}
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	c.Client = &hc
	if c.Interval <= 0 {
		c.Interval = DefaultInterval
	}
	if c.MinInterval <= 0 {
		c.MinInterval = DefaultMinInterval
	}
	if c.MaxInterval <= 0 {
		c.MaxInterval = DefaultMaxInterval
	}
	c.MaxInterval = max(c.MaxInterval, c.MinInterval)
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// Wake tells a poll loop ([PollOnWake], [PollRequests]) to poll at once. Kick never blocks,
// and kicks that come before the loop looks count as one. Make it with [NewWake].
type Wake chan struct{}

// NewWake returns a Wake.
func NewWake() Wake { return make(Wake, 1) }

// Kick wakes the loop.
func (w Wake) Kick() {
	select {
	case w <- struct{}{}:
	default:
	}
}

// Relay kicks w each time from receives, until ctx ends; run it on a goroutine of its own.
func (w Wake) Relay(ctx context.Context, from <-chan struct{}) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-from:
			w.Kick()
		}
	}
}
