package transport

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hitlkit/hitlkit/internal/backoff"
	"github.com/hitlkit/hitlkit/internal/httpx"
	"github.com/hitlkit/hitlkit/internal/pace"
	"github.com/hitlkit/hitlkit/internal/telemetry"
)

// The pacing a [Wait] applies when its fields are zero.
const (
	defaultInterval       = pace.Interval
	defaultMinInterval    = pace.MinInterval
	defaultMaxInterval    = pace.MaxInterval
	defaultRequestTimeout = pace.RequestTimeout
)

const (
	// pushRetryMin and pushRetryMax bound the delay before a dropped push source is started
	// again; a source that woke the wait, or stayed up pushHealthy, starts over from the
	// shortest delay.
	pushRetryMin = time.Second
	pushRetryMax = time.Minute
	pushHealthy  = 30 * time.Second
)

// Wait is one wait on a paused exchange — a HITL case, an A2A task, an HXP request, an HI
// interaction, or a protocol of one's own. It polls the source of truth until Decode reports
// a terminal value, paced by the server, while any number of push sources run beside the
// polls: each can only make the wait poll at once (wake) or, when it holds the complete
// outcome from a source the caller trusts, end the wait with it (settle).
//
// Pacing: after a non-terminal 200 or a 304 the next poll waits for the response's
// Retry-After (seconds or HTTP-date) or Interval; after 429, 5xx, 408, a network error, a
// timed-out request or a transient Decode error it waits for Retry-After or a jittered
// exponential backoff. Transient failures never end the wait; 401, 403, 404, 410 and other
// unexpected statuses end it with a [*StatusError]. Every delay is clamped to
// [MinInterval, MaxInterval]. A wake makes the next poll go out at once, but never sooner
// than MinInterval after the previous one began; a wake during a backoff is taken at its end.
// The ETag of a 200 is sent back as If-None-Match; a 304 means unchanged. Polls never follow
// redirects: a 3xx ends the wait as an unexpected status.
//
// A zero field means the documented default. A Wait is read, never written, by Run, so one
// value may serve any number of concurrent waits when its fields allow it.
type Wait[T any] struct {
	// URL is the source of truth, polled with GET. Required; its origin is also the one
	// Slots are taken for.
	URL string
	// Request, when set, builds each poll's request in place of a GET of URL (an A2A
	// JSON-RPC tasks/get is a POST), bound to the context it is given, with a body that can
	// be read once.
	Request func(ctx context.Context) (*http.Request, error)
	// Decode interprets the body of one 200 answer: done=true with the terminal value,
	// done=false to keep polling, or an error, which ends the wait — unless marked with
	// [Temporary]: the wait then backs off and polls again.
	// Required. It is called from the waiting goroutine, one call at a time.
	Decode func(body []byte) (value T, done bool, err error)
	// Waiting, when set, reports from a 200's headers alone that the state is still a
	// waiting one (HXP's HXP-Status header); the body is then not read.
	Waiting func(http.Header) bool

	// Client sends the polls: a [Config]'s Service, which keeps the address rules and the
	// caller's options. Nil means the Service of a Config without options: https to public
	// addresses only, checked where dialled, so a URL that is not is refused
	// ([ErrRefusedAddress]) and ends the wait. A client given here applies only its own
	// rules. Its Timeout should be 0: RequestTimeout bounds each poll. Its redirect policy is
	// replaced.
	Client *http.Client
	// Authorize adds credentials to one poll request; nil adds none. Its error ends the wait.
	Authorize func(ctx context.Context, req *http.Request) error
	// Interval is the delay after a non-terminal answer without Retry-After; 0 means 30 s
	// (HITL Protocol §8 recommends 30 s to 5 min).
	Interval time.Duration
	// MinInterval and MaxInterval clamp every delay, the server's Retry-After included, and
	// MinInterval is the least time between two polls, wake-ups included. 0 means 1 s (HITL
	// §13.5: 60 requests per minute) and 5 min (HITL §8).
	MinInterval, MaxInterval time.Duration
	// RequestTimeout bounds one poll, headers and body; a poll that takes longer counts as a
	// transient failure. 0 means 30 s.
	RequestTimeout time.Duration
	// MaxBody is the largest body read; larger ends the wait with ErrBodyTooLarge. 0: 1 MiB.
	MaxBody int64
	// Logger receives one debug record per poll (host and path only, never the query) and
	// per push source that ends. Nil is silent.
	Logger *slog.Logger
	// FirstDelay holds the first poll back (a 202's Retry-After); a wake-up ends it early.
	// It is clamped like every delay; 0 polls at once.
	FirstDelay time.Duration
	// ETag is sent as If-None-Match with the first poll (from an earlier wait on the same
	// URL, so that a wait carried on elsewhere is answered 304); "" sends none. OnETag, when
	// set, is called with each new entity tag before the answer is decoded.
	ETag   string
	OnETag func(tag string)
	// Slots, when set, bound the polls in flight per origin among every wait that shares
	// them (a [Config]'s Polls): a poll waits its turn (or for ctx to end) while the bound
	// is reached.
	Slots *Slots

	// Push are the push sources that run beside the polls, each on a goroutine of its own:
	// an event stream, a WebSocket, an A2A subscription, a caller's [Waiter]. A source runs
	// until ctx ends or its connection does, calling wake when it learns that the state may
	// have changed (the wait polls at once to confirm) and settle with the complete outcome
	// when it comes from a source the caller trusts (the wait ends with it, no poll). wake
	// and settle are safe to call from any goroutine, any number of times; only the first
	// settle counts.
	//
	// Its return says what happens next: nil, that it has nothing more to say (it is not
	// run again); an error, that it dropped (this module's protocol packages also use it to
	// say that the server offers no such source for this wait: logged, not run again): it is
	// run again after a jittered backoff (1 s growing to 1 min, from 1 s again after a run
	// that woke the wait or lasted 30 s), for as long as the wait lasts. Keep its resume
	// state (Last-Event-ID, a subscription to resume) in the closure.
	Push []func(ctx context.Context, wake func(), settle func(T)) error
	// Watch are sources that need no goroutine — a mailbox of callbacks: each is started
	// before the first poll, may call wake and settle from any goroutine until the stop it
	// returns is called, and is stopped before Run returns.
	Watch []func(wake func(), settle func(T)) (stop func())
}

// push is a push source of a Wait: see [Wait].Push.
type push[T any] = func(ctx context.Context, wake func(), settle func(T)) error

// errSettled: a push source brought the complete outcome; the polls stop.
var errSettled = errors.New("outcome pushed")

// Run runs the wait: it polls until the outcome is known, with every push source running
// beside the polls, stops the sources and returns the outcome — the terminal value a poll
// decoded or the value a source settled with, whichever came first. Push sources start when
// the first poll has answered without the outcome (at once when FirstDelay holds the first
// poll back): a wait its first poll decides opens no stream.
//
// No goroutine waits between two polls: each poll runs on a timer's short-lived goroutine.
// The first push source runs on the caller's goroutine, each other on one of its own.
//
// An error means the outcome is unknown: a permanent failure of a poll, or when ctx ends
// context.Cause(ctx), joined with the last transient failure if there was one. Run returns
// only after every goroutine it started has ended.
func (w *Wait[T]) Run(ctx context.Context) (T, error) {
	var zero T
	if w == nil || w.Decode == nil || w.URL == "" {
		return zero, errors.New("transport: a Wait needs a URL and a Decode")
	}
	cfg := w.withDefaults()
	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	var (
		once    sync.Once
		pushed  T
		settled atomic.Bool
	)
	obs := telemetry.From(ctx) // the span and counts of a wait a protocol client observes
	settleFrom := func(watch bool) func(T) {
		return func(v T) {
			once.Do(func() {
				pushed = v
				settled.Store(true)
				obs.Settle(watch)
				stop(errSettled)
			})
		}
	}
	settle, settleWatch := settleFrom(false), (func(T))(nil)
	if len(w.Watch) > 0 {
		settleWatch = settleFrom(true)
	}
	p := newPacer(ctx, cfg, stop)
	p.obs = obs
	wake := p.wake
	stopCancelled := context.AfterFunc(ctx, p.cancelled)
	stops := make([]func(), 0, len(w.Watch))
	for _, watch := range w.Watch { // before the first poll: no change falls between the two
		stops = append(stops, watch(wake, settleWatch))
	}
	p.start()
	var wg sync.WaitGroup
	if len(w.Push) > 0 && (w.FirstDelay > 0 || p.firstAnswered()) {
		for _, q := range w.Push[1:] {
			wg.Go(func() { cfg.keep(ctx, q, wake, settle) })
		}
		cfg.keep(ctx, w.Push[0], wake, settle)
	}
	v, err := p.result()
	if !stopCancelled() {
		<-p.gone // cancelled has run or runs: wait for it
	}
	stop(errPolled)
	wg.Wait()
	for _, s := range stops {
		s()
	}
	if settled.Load() && errors.Is(context.Cause(ctx), errSettled) {
		return pushed, nil
	}
	return v, err
}

// errPolled: a poll brought the outcome (or failed for good); the push sources stop.
var errPolled = errors.New("outcome polled")

// keep runs p until it has nothing more to say or ctx ends, again after each drop.
func (w *Wait[T]) keep(ctx context.Context, p push[T], kick func(), settle func(T)) {
	bo := backoff.NewExponential(pushRetryMin, pushRetryMax)
	for attempt := 1; ; attempt++ {
		var woke atomic.Bool
		began := time.Now()
		err := p(ctx, func() { woke.Store(true); kick() }, settle)
		if ctx.Err() != nil {
			return
		}
		if err == nil || errors.Is(err, httpx.ErrStreamUnavailable) {
			if err != nil {
				w.Logger.LogAttrs(ctx, slog.LevelDebug, "push source unavailable; polling",
					slog.String("url", httpx.Redact(w.URL)), errAttr(err))
			}
			return
		}
		if woke.Load() || time.Since(began) >= pushHealthy {
			bo.Reset()
		}
		delay := bo.Next()
		telemetry.From(ctx).Reconnect(ctx, err)
		w.Logger.LogAttrs(ctx, slog.LevelDebug, "push source dropped; reconnecting",
			slog.String("url", httpx.Redact(w.URL)), slog.Int("attempt", attempt),
			slog.Duration("next", delay), errAttr(err))
		if !backoff.Pause(ctx, delay, nil) {
			return
		}
	}
}

// pacer drives the polls of one wait from a timer: between two polls no goroutine waits, and
// each poll runs on the timer's own short-lived goroutine. The HTTP client grows the stack of
// the goroutine a request is sent from to 8 KiB; that stack is freed after each poll.
type pacer[T any] struct {
	w     *Wait[T]
	ctx   context.Context
	stop  context.CancelCauseFunc
	slots chan struct{}
	bo    *backoff.Exponential
	first chan struct{} // closed once the first poll answered or the wait ended
	done  chan struct{} // closed once the outcome is known
	gone  chan struct{} // closed when cancelled returns
	obs   *telemetry.Wait

	mu       sync.Mutex
	timer    *time.Timer
	polling  bool          // a poll is in flight
	delaying bool          // the timer holds the first poll back (FirstDelay)
	backoff  bool          // the timer runs a backoff: a wake waits for its end
	woken    bool          // a wake came while a poll was in flight or during a backoff
	began    time.Time     // when the last poll began; zero before the first
	idle     chan struct{} // closed when the poll in flight at the end of the wait ends
	etag     string
	lastErr  error
	attempt  int
	finished bool
	value    T
	err      error
}

func newPacer[T any](ctx context.Context, w *Wait[T], stop context.CancelCauseFunc) *pacer[T] {
	return &pacer[T]{w: w, ctx: ctx, stop: stop, slots: w.Slots.of(w.URL), etag: w.ETag,
		bo:    backoff.NewExponential(max(w.MinInterval, time.Second), w.MaxInterval),
		first: make(chan struct{}), done: make(chan struct{}), gone: make(chan struct{})}
}

// start schedules the first poll: at once, or after FirstDelay (which a wake ends, one
// that came before start included). Without FirstDelay, a wake that came before start is
// kept, as one during the first poll: a confirming poll follows it.
func (p *pacer[T]) start() {
	var d time.Duration
	if p.w.FirstDelay > 0 {
		d = min(max(p.w.FirstDelay, p.w.MinInterval), p.w.MaxInterval)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished { // the context ended before the first poll was scheduled
		return
	}
	if p.woken && d > 0 {
		d, p.woken = 0, false
	}
	p.delaying = d > 0
	p.timer = time.AfterFunc(d, p.fire)
}

// wake makes the next poll go out at once, MinInterval after the previous one began at the
// soonest; while a poll is in flight or a backoff runs, after it. It never blocks.
func (p *pacer[T]) wake() {
	p.obs.Wake()
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.finished || p.ctx.Err() != nil:
	case p.delaying: // until the first poll goes, wakes count as one
		p.timer.Reset(0)
	case p.polling || p.backoff || p.began.IsZero():
		p.woken = true
	default:
		p.timer.Reset(max(0, p.w.MinInterval-time.Since(p.began)))
	}
}

// fire sends one poll and schedules the next, or ends the wait.
func (p *pacer[T]) fire() {
	p.mu.Lock()
	if p.finished || p.polling || p.ctx.Err() != nil { // ended: cancelled is on its way
		p.mu.Unlock()
		return
	}
	p.polling, p.backoff, p.delaying = true, false, false
	p.attempt++
	etag := p.etag
	p.mu.Unlock()

	o, began := p.pollOnce(&etag)

	p.mu.Lock()
	defer p.mu.Unlock()
	p.polling, p.began, p.etag = false, began, etag
	if p.idle != nil {
		close(p.idle)
	}
	if p.finished {
		return
	}
	p.obs.Poll(p.ctx, o.status, o.class())
	var delay time.Duration
	switch {
	case o.done:
		p.finish(o.value, nil)
		return
	case o.err != nil && !o.temporary:
		p.finish(o.value, o.err)
		return
	case o.err != nil:
		p.lastErr, p.backoff = o.err, true
		delay = p.bo.Next()
	default:
		p.lastErr = nil
		p.bo.Reset()
		delay = p.w.Interval
	}
	if o.hint >= 0 {
		delay = o.hint
	}
	delay = min(max(delay, p.w.MinInterval), p.w.MaxInterval)
	p.w.Logger.LogAttrs(p.ctx, slog.LevelDebug, "poll",
		slog.String("url", httpx.Redact(p.w.URL)), slog.Int("attempt", p.attempt),
		slog.Int("status", o.status), slog.Duration("next", delay), errAttr(o.err))
	if p.woken && !p.backoff { // a wake during a backoff is taken after the next poll
		delay, p.woken = 0, false
	}
	p.timer.Reset(max(delay, p.w.MinInterval-time.Since(began)))
	p.answered()
}

// pollOnce takes a slot, polls once and frees the slot. It reports when the poll began.
func (p *pacer[T]) pollOnce(etag *string) (outcome[T], time.Time) {
	if p.slots != nil {
		select {
		case p.slots <- struct{}{}:
			defer func() { <-p.slots }()
		case <-p.ctx.Done():
			return outcome[T]{err: context.Cause(p.ctx), temporary: true, hint: -1}, time.Now()
		}
	}
	began := time.Now()
	return p.w.pollOnce(p.ctx, etag), began
}

// finish ends the wait with v, err. Guarded by mu.
func (p *pacer[T]) finish(v T, err error) {
	if p.finished {
		return
	}
	p.finished, p.value, p.err = true, v, err
	if p.timer != nil {
		p.timer.Stop()
	}
	p.answered()
	close(p.done)
	p.stop(errPolled)
}

// answered closes first once. Guarded by mu.
func (p *pacer[T]) answered() {
	select {
	case <-p.first:
	default:
		close(p.first)
	}
}

// cancelled ends the wait when its context ends.
func (p *pacer[T]) cancelled() {
	defer close(p.gone)
	p.mu.Lock()
	defer p.mu.Unlock()
	var zero T
	p.finish(zero, stopped(p.ctx, p.lastErr))
}

// firstAnswered waits for the first poll's answer and reports whether the wait goes on.
func (p *pacer[T]) firstAnswered() bool {
	<-p.first
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.finished
}

// result waits for the outcome and for the poll in flight, if any, to end.
func (p *pacer[T]) result() (T, error) {
	<-p.done
	p.mu.Lock()
	var idle chan struct{}
	if p.polling {
		p.idle = make(chan struct{})
		idle = p.idle
	}
	p.mu.Unlock()
	if idle != nil {
		<-idle
	}
	return p.value, p.err
}

func (w *Wait[T]) withDefaults() *Wait[T] {
	c := *w
	// Polls never follow redirects: no protocol here defines one, and a redirect could carry
	// the credentials elsewhere.
	hc := *defaultService()
	if c.Client != nil {
		hc = *c.Client
	}
	hc.CheckRedirect = httpx.NoRedirect
	c.Client = &hc
	if c.Request == nil {
		c.Request = c.get
	}
	if c.Interval <= 0 {
		c.Interval = defaultInterval
	}
	if c.MinInterval <= 0 {
		c.MinInterval = defaultMinInterval
	}
	if c.MaxInterval <= 0 {
		c.MaxInterval = defaultMaxInterval
	}
	c.MaxInterval = max(c.MaxInterval, c.MinInterval)
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = defaultRequestTimeout
	}
	if c.Logger == nil {
		c.Logger = discard
	}
	return &c
}

func (w *Wait[T]) get(ctx context.Context) (*http.Request, error) {
	return http.NewRequestWithContext(ctx, http.MethodGet, w.URL, nil)
}

var discard = slog.New(slog.DiscardHandler)
